#!/usr/bin/env bash
# Graceful shutdown of the real binary on a real SIGTERM: a request in flight completes, new connections are
# refused at once, the process exits 0; and with a short grace period a request that outlasts it is cut off and the
# process still exits 0 within the grace period (plus a little). Then a real SIGHUP with a request in flight: the
# config file is read again, the request completes, the new route answers and the process runs on.
#
#   scripts/lifecycle/run.sh [path/to/storygate]   (default .build/debug/storygate)
set -euo pipefail
cd "$(dirname "$0")/../.."
binary="${1:-.build/debug/storygate}"
# Several gateways on one machine: each admin listener takes a free port, none the default 9901.
export ADMIN_PORT=0
[ -x "$binary" ] || { echo "no storygate binary at $binary" >&2; exit 2; }

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
fail() { echo "lifecycle: FAIL: $*" >&2; cat "$work"/*.log >&2 || true; exit 1; }
pass() { echo "lifecycle: ok: $*"; }
wait_ready() {
  for _ in $(seq 1 200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/readyz")" = 200 ] && return 0
    sleep 0.05
  done
  fail "gateway on $1 did not become ready"
}
# Waits until mock-openai has received a request (recorded to its directory): the call is in flight.
wait_in_flight() {
  for _ in $(seq 1 200); do
    [ -n "$(ls -A "$1" 2>/dev/null)" ] && return 0
    sleep 0.05
  done
  fail "no request reached mock-openai"
}
scenes() {
  curl -s -o "$work/$2.body" -w '%{http_code}' -X POST -H 'X-User-Id: lifecycle' -H 'Content-Type: application/json' \
    --data '{"story_content": "Mia found a map. She followed it. The map led home.", "target_scene_count": 2}' \
    "http://127.0.0.1:$1/functions/v1/extract-scenes" >"$work/$2.status" || true
}

mock_port="$(free_port)"
"$binary" mock-openai --port "$mock_port" --latency-ms 1500 --record-dir "$work/recorded" >"$work/mock.log" 2>&1 &
pids+=($!)

# run GRACE NAME: starts a gateway with a grace period of GRACE seconds, sends a slow call, SIGTERMs the gateway.
run() {
  local grace="$1" name="$2" port
  port="$(free_port)"
  rm -rf "$work/recorded"; mkdir -p "$work/recorded"
  ENV=dev OPENAI_BASE_URL="http://127.0.0.1:$mock_port/v1" OPENAI_API_KEY=sk-local MEDIA_DIR="$work/media" \
    SHUTDOWN_GRACE_SECONDS="$grace" LOG_LEVEL=info "$binary" serve --port "$port" >"$work/gateway-$name.log" 2>&1 &
  gateway=$!
  pids+=("$gateway")
  wait_ready "$port"
  scenes "$port" "$name" &
  client=$!
  wait_in_flight "$work/recorded"
  started=$(date +%s.%N)
  kill -TERM "$gateway"
  # New connections are refused once draining starts (curl exit 7: could not connect).
  refused=""
  for _ in $(seq 1 100); do
    code=0; curl -s -o /dev/null -m 1 "http://127.0.0.1:$port/healthz" || code=$?
    if [ "$code" = 7 ]; then refused=yes; break; fi
    sleep 0.02
  done
  [ -n "$refused" ] || fail "$name: new connections were still accepted after SIGTERM"
  wait "$client" || true
  status=0; wait "$gateway" || status=$?
  elapsed=$(python3 -c "import time,sys; print(round(time.time() - float(sys.argv[1]), 2))" "$started")
  echo "$status" >"$work/$name.exit"
  echo "$elapsed" >"$work/$name.elapsed"
}

# 1. The grace period outlasts the call: it completes with 200, the gateway exits 0 afterwards.
run 20 drain
[ "$(cat "$work/drain.status")" = 200 ] || fail "in-flight call during drain: status $(cat "$work/drain.status"), expected 200"
[ "$(cat "$work/drain.exit")" = 0 ] || fail "exit status $(cat "$work/drain.exit") after SIGTERM, expected 0"
grep -q '"storygate stopped"' "$work/gateway-drain.log" || fail "no 'storygate stopped' line"
pass "a call in flight at SIGTERM completed (200), new connections were refused, exit 0 after $(cat "$work/drain.elapsed") s"
# Its access line, written by the binary itself as JSON (not through swift-log), was flushed before the exit.
python3 - "$work/gateway-drain.log" <<'PY' || fail "no JSON access line for the drained call"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1]) if '"storygate.access"' in line]
wanted = {"time", "level", "logger", "message", "auth", "latency_ms", "method", "path", "rate_limit", "request_id", "route", "status", "uid_hash"}
sys.exit(0 if any(l["status"] == 200 and l["method"] == "POST" and wanted <= set(l) for l in lines) else 1)
PY
pass "the drained call's JSON access line was written before the exit"

# 2. A grace period of 1 s, shorter than the call (2 × 1.5 s): the call is cut off, the gateway still exits 0, promptly.
run 1 cut
[ "$(cat "$work/cut.status")" != 200 ] || fail "a call longer than the grace period still completed"
[ "$(cat "$work/cut.exit")" = 0 ] || fail "exit status $(cat "$work/cut.exit") after the grace period, expected 0"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 8 else 1)" "$(cat "$work/cut.elapsed")" \
  || fail "took $(cat "$work/cut.elapsed") s to exit with a 1 s grace period"
pass "grace period 1 s: the longer call was cut off (status $(cat "$work/cut.status")), exit 0 after $(cat "$work/cut.elapsed") s"

# 3. SIGHUP with a call in flight: the config file is read again, the call completes (200), the new route answers on
#    the same process, and SIGTERM still exits 0.
port="$(free_port)"
rm -rf "$work/recorded"; mkdir -p "$work/recorded"
printf 'env: dev\nlisten: {port: %s}\n' "$port" >"$work/reload.yaml"
ENV=dev OPENAI_BASE_URL="http://127.0.0.1:$mock_port/v1" OPENAI_API_KEY=sk-local MEDIA_DIR="$work/media" LOG_LEVEL=info \
  "$binary" serve --config "$work/reload.yaml" >"$work/gateway-reload.log" 2>&1 &
gateway=$!
pids+=("$gateway")
wait_ready "$port"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H 'X-User-Id: lifecycle' "http://127.0.0.1:$port/whoami")" = 404 ] \
  || fail "reload: /whoami answered before it was configured"
scenes "$port" reload &
client=$!
wait_in_flight "$work/recorded"
printf 'env: dev\nlisten: {port: %s}\nbuiltin_routes: true\nroutes:\n  - {path: /whoami, name: whoami, builtin: me}\n' "$port" \
  >"$work/reload.yaml"
kill -HUP "$gateway"
for _ in $(seq 1 200); do
  grep -q '"reload done"' "$work/gateway-reload.log" && break
  sleep 0.05
done
grep -q '"reload done"' "$work/gateway-reload.log" || fail "reload: no 'reload done' line after SIGHUP"
wait "$client" || true
[ "$(cat "$work/reload.status")" = 200 ] || fail "reload: the call in flight at SIGHUP answered $(cat "$work/reload.status")"
kill -0 "$gateway" 2>/dev/null || fail "reload: the gateway exited on SIGHUP"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H 'X-User-Id: lifecycle' "http://127.0.0.1:$port/whoami")" = 200 ] \
  || fail "reload: the route added by the reload does not answer"
kill -TERM "$gateway"
status=0; wait "$gateway" || status=$?
[ "$status" = 0 ] || fail "reload: exit status $status after SIGTERM, expected 0"
pass "SIGHUP with a call in flight: the call completed (200), the new route answers, the process ran on; exit 0 after SIGTERM"
