#!/usr/bin/env bash
# Fuzzes a live gateway against its OpenAPI document with schemathesis: a dev-mode `storygate serve` (offline AI
# provider, X-User-Id as the caller, every rate limit in shadow mode, no failed-auth limit, media in a temporary
# folder), checked against openapi.yaml with a bounded number of examples per operation. Fails on a 5xx,
# an answer the document does not allow (status, content type, body schema, required headers), an answer slower
# than 5 s, or a run longer than the time limit (a hang). GET /openapi.yaml must serve openapi.yaml byte for byte.
#
#   scripts/schemathesis/run.sh [path/to/storygate]   (default .build/debug/storygate)
#
# Environment: SCHEMATHESIS_MAX_EXAMPLES (default 30), SCHEMATHESIS_SEED (default fixed, for a reproducible CI run),
# SCHEMATHESIS_TIME_LIMIT (seconds, default 100). schemathesis runs in its own virtualenv under .build/.
set -euo pipefail
# The admin listener takes a free port: other gateways may run on this machine.
export ADMIN_PORT=0
cd "$(dirname "$0")/../.."

binary="${1:-.build/debug/storygate}"
[ -x "$binary" ] || { echo "no storygate binary at $binary" >&2; exit 2; }
max_examples="${SCHEMATHESIS_MAX_EXAMPLES:-30}"
seed="${SCHEMATHESIS_SEED:-20261122}"
time_limit="${SCHEMATHESIS_TIME_LIMIT:-100}"

venv=.build/schemathesis-venv
pinned="$(sed -n 's/^schemathesis==//p' scripts/schemathesis/requirements.txt)"
if [ ! -x "$venv/bin/st" ] || [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null)" != "$pinned" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/schemathesis/requirements.txt
fi

work="$(mktemp -d)"
gateway_pid=""
cleanup() {
  if [ -n "$gateway_pid" ]; then
    kill "$gateway_pid" 2>/dev/null || true
    wait "$gateway_pid" 2>/dev/null || true
  fi
  if [ "${keep_work:-0}" = 1 ]; then echo "schemathesis: logs and reports kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT INT TERM

port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
base="http://127.0.0.1:$port"

# A clean environment: dev mode, no OpenAI key (the offline provider), no Redis, limits that never refuse.
env -i PATH="$PATH" HOME="${HOME:-/tmp}" \
  ENV=dev HOST=127.0.0.1 PORT="$port" LOG_LEVEL=warning DEV_CERTS_DIR=certs/dev MEDIA_DIR="$work/media" \
  RATE_LIMIT_SHADOW=all AUTH_FAILURE_LIMIT=off \
  "$binary" serve >"$work/gateway.log" 2>&1 &
gateway_pid=$!

ready=0
for _ in $(seq 1 120); do
  kill -0 "$gateway_pid" 2>/dev/null || { keep_work=1; echo "schemathesis: the gateway exited early; see $work/gateway.log" >&2; exit 1; }
  if [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$base/readyz" || true)" = 200 ]; then ready=1; break; fi
  sleep 0.25
done
[ "$ready" = 1 ] || { keep_work=1; echo "schemathesis: the gateway never became ready; see $work/gateway.log" >&2; exit 1; }

# The gateway serves the document compiled into it: it must be openapi.yaml exactly (DeployTests checks the
# embedded text too); schemathesis then reads the file.
if ! curl -sf --max-time 5 "$base/openapi.yaml" | cmp -s - openapi.yaml; then
  keep_work=1
  echo "schemathesis: GET /openapi.yaml does not answer openapi.yaml (run scripts/embed-openapi.sh and rebuild)" >&2
  exit 1
fi

# /metrics is on the admin listener, not in the public document; an older document that lists it is run without it.
excludes=()
if [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$base/metrics" || true)" = 404 ]; then
  echo "schemathesis: GET /metrics answers 404 in this build; /metrics is left out of this run" >&2
  excludes+=(--exclude-path /metrics)
fi

# Not checked here: negative_data_rejection and positive_data_acceptance (the document is a little stricter than
# the handlers: they trim strings, match enums case-insensitively, take `en-US` as `en` and 2.0 as an integer;
# DeployTests' OpenAPIRequestSchemaTests checks acceptance and refusal field by field instead), and ignored_auth
# (in dev mode every well-formed X-User-Id is a caller).
# One worker: with several, hypothesis describes strategies by parsing source in parallel threads, and CPython
# 3.11's ast.parse is not thread-safe ("SystemError: AST constructor recursion depth mismatch", a tool error).
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
checks+=,response_headers_conformance,unsupported_method,allow_header_conformance

started=$SECONDS
status=0
# Run from the work folder: schemathesis keeps a cache (.schemathesis/) in its working directory.
schema="$PWD/openapi.yaml"
st="$PWD/$venv/bin/st"
(cd "$work" && timeout --kill-after=10 "$time_limit" "$st" run "$schema" --url "$base" \
  --header "X-User-Id: schemathesis" \
  --checks "$checks" \
  --max-examples "$max_examples" \
  --seed "$seed" \
  --workers 1 \
  --request-timeout 10 \
  --max-response-time 5 \
  --suppress-health-check too_slow,filter_too_much \
  --report junit --report-dir "$work/report" \
  "${excludes[@]}") \
  || status=$?
elapsed=$((SECONDS - started))

if [ "$status" = 124 ] || [ "$status" = 137 ]; then
  keep_work=1
  echo "schemathesis: the run took longer than ${time_limit}s (a hang?); see $work" >&2
  exit 1
fi
if ! kill -0 "$gateway_pid" 2>/dev/null; then
  keep_work=1
  echo "schemathesis: the gateway died during the run; see $work/gateway.log" >&2
  exit 1
fi
if [ "$status" != 0 ]; then
  keep_work=1
  echo "schemathesis: failures (exit $status) after ${elapsed}s; see $work" >&2
  exit 1
fi
echo "schemathesis: passed in ${elapsed}s (at most $max_examples examples per operation, seed $seed)" >&2
