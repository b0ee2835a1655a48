#!/usr/bin/env bash
# Load-test kit: one StoryGate in dev mode driven by wrk with real RS256 tokens for N distinct users.
#
#   bench/load.sh                       # release build, GET /v1/me, 1,000 users' tokens rotating, 64 connections, 10 s
#   bench/load.sh --debug --duration 3  # a smoke run against a debug build
#   bench/load.sh --binary .build/release/storygate --path /functions/v1/extract-scenes --method POST \
#       --body bench/bodies/extract-scenes.json --provider mock --mock-latency-ms 0
#
# Prints requests/s, p50/p90/p99 latency, errors (responses of 400 or more, socket errors), and the gateway's
# CPU seconds (utime + stime from /proc/<pid>/stat, all its threads) with requests per CPU-second: on a machine
# that wrk and the gateway share, that is the figure that does not depend on how the cores were split.
# Installs wrk with apt-get when it is missing. Run from anywhere; stops every process it started.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'EOF'
usage: bench/load.sh [options]

  --binary PATH         use this storygate binary (default: build one)
  --debug               build and use a debug binary (for smoke runs; never for figures)
  --tokens N            distinct users' tokens rotating (default 1000)
  --token-cache N       TOKEN_CACHE_SIZE (default: the gateway's, 10000; 0 = every request pays for RSA)
  --duration SECONDS    length of the measured run (default 10)
  --warmup SECONDS      unmeasured run first, fills the verified-token cache (default 2; 0 = none)
  --connections N       wrk connections (default 64)
  --threads N           wrk threads (default 1: wrk shares the cores with the gateway; see BENCHMARKS.md)
  --method M            request method (default GET)
  --path P              request path (default /v1/me)
  --body FILE           send FILE as a JSON body (with POST)
  --provider P          offline (default: the built-in offline provider) or mock (storygate mock-openai over
                        HTTP, so the real libcurl path runs)
  --mock-latency-ms N   mock-openai's added latency per answer (default 0)
  --config FILE         pass --config FILE to storygate serve (needs a binary that has it)
  --no-access-log       ACCESS_LOG=false and LOG_LEVEL=warning (default: the access log is on, as in production;
                        its lines are discarded after the first 4 MB)
  --port N              the gateway's port (default 18080; mock-openai uses N+1)
  --keep                keep the temporary directory (tokens, logs, wrk output)
EOF
}

mode=release binary="" tokens=1000 token_cache="" duration=10 warmup=2 connections=64 threads=1
method=GET path=/v1/me body="" provider=offline mock_latency=0 config="" access_log=1 port=18080
while (($#)); do
  case $1 in
    --binary) mode=path binary=$2; shift ;;
    --debug) mode=debug ;;
    --tokens) tokens=$2; shift ;;
    --token-cache) token_cache=$2; shift ;;
    --duration) duration=${2%s}; shift ;;
    --warmup) warmup=${2%s}; shift ;;
    --connections) connections=$2; shift ;;
    --threads) threads=$2; shift ;;
    --method) method=$2; shift ;;
    --path) path=$2; shift ;;
    --body) body=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
    --provider) provider=$2; shift ;;
    --mock-latency-ms) mock_latency=$2; shift ;;
    --config) config=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
    --no-access-log) access_log=0 ;;
    --port) port=$2; shift ;;
    --keep) BENCH_KEEP=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; bench_die "unknown option $1" ;;
  esac
  shift
done
case $provider in offline | mock) ;; *) bench_die "--provider is offline or mock, not $provider" ;; esac
[ -z "$body" ] || [ -f "$body" ] || bench_die "--body $body: no such file"

bench_install wrk curl
bench_init load
binary=$(bench_storygate_binary "$mode" "$binary")
bench_require_ports "$port"

bench_log "minting $tokens tokens with the dev key"
bench_mint "$binary" "$tokens" "$BENCH_TMP/tokens.txt"

environment=()
mapfile -t environment < <(bench_storygate_env)
if ((access_log)); then
  environment+=(ACCESS_LOG=true LOG_LEVEL=info)
else
  environment+=(ACCESS_LOG=false LOG_LEVEL=warning)
fi
[ -n "$token_cache" ] && environment+=("TOKEN_CACHE_SIZE=$token_cache")
if [ "$provider" = mock ]; then
  mock_port=$((port + 1))
  bench_require_ports "$mock_port"
  bench_spawn mock-openai "$BENCH_TMP/mock-openai.log" "$binary" mock-openai --port "$mock_port" --latency-ms "$mock_latency"
  mock_pid=$BENCH_LAST_PID
  for _ in $(seq 100); do bench_port_free "$mock_port" || break; sleep 0.1; done
  bench_port_free "$mock_port" && { cat "$BENCH_TMP/mock-openai.log" >&2; bench_die "mock-openai did not start"; }
  environment+=("OPENAI_BASE_URL=http://127.0.0.1:$mock_port/v1" OPENAI_API_KEY=sk-local)
fi
serve_arguments=(serve --host 127.0.0.1 --port "$port")
[ -n "$config" ] && serve_arguments+=(--config "$config")

bench_bounded_log "$BENCH_TMP/storygate.log"
bench_spawn storygate "$BENCH_FIFO" env -u OPENAI_API_KEY -u OPENAI_API_KEY_FILE -u OPENAI_BASE_URL -u STORYGATE_CONFIG \
  "${environment[@]}" "$binary" "${serve_arguments[@]}"
gateway_pid=$BENCH_LAST_PID
bench_wait_http "http://127.0.0.1:$port/readyz" "$gateway_pid" 60 ||
  { sleep 0.5; cat "$BENCH_TMP/storygate.log" >&2; bench_die "the gateway did not become ready"; }

url="http://127.0.0.1:$port"
first_token=$(head -1 "$BENCH_TMP/tokens.txt")
curl_arguments=(-s -o "$BENCH_TMP/check.json" -w '%{http_code}' -X "$method" -H "Authorization: Bearer $first_token")
[ -n "$body" ] && curl_arguments+=(-H 'Content-Type: application/json' --data-binary "@$body")
status=$(curl "${curl_arguments[@]}" "$url$path")
[[ $status == 2* ]] || { cat "$BENCH_TMP/check.json" >&2; echo >&2; bench_die "$method $path answered $status, not 2xx: fix the request before measuring"; }
bench_log "check: $method $path with a valid token -> $status"

wrk_variables=("WRK_METHOD=$method" "WRK_PATH=$path")
[ -n "$body" ] && wrk_variables+=("WRK_BODY_FILE=$body")
if ((warmup > 0)); then
  bench_log "warm-up ${warmup}s"
  bench_wrk "$url" "$warmup" "$connections" "$threads" "$BENCH_TMP/tokens.txt" "${wrk_variables[@]}" >/dev/null
fi

ticks_before=$(bench_cpu_ticks "$gateway_pid")
mock_before=0
[ "$provider" = mock ] && mock_before=$(bench_cpu_ticks "$mock_pid")
bench_log "measuring ${duration}s: $method $path, $tokens users' tokens rotating, $connections connections, wrk -t$threads"
result=$(bench_wrk "$url" "$duration" "$connections" "$threads" "$BENCH_TMP/tokens.txt" "${wrk_variables[@]}")
ticks_after=$(bench_cpu_ticks "$gateway_pid")
kill -0 "$gateway_pid" 2>/dev/null || bench_die "the gateway exited during the run (see $BENCH_TMP/storygate.log)"

requests=$(bench_field "$result" requests)
cpu_seconds=$(awk -v t=$((ticks_after - ticks_before)) -v hz="$BENCH_CLK_TCK" 'BEGIN { printf "%.2f", t / hz }')
per_cpu=$(awk -v r="$requests" -v c="$cpu_seconds" 'BEGIN { if (c > 0) printf "%.0f", r / c; else print "n/a" }')
errors=$(($(bench_field "$result" non2xx) + $(bench_field "$result" connect) + $(bench_field "$result" read) +
  $(bench_field "$result" write) + $(bench_field "$result" timeout)))
build=$(bench_build_label "$mode" "$binary")

printf '\n'
bench_machine
printf 'gateway: %s; provider %s; access log %s; token cache %s\n' "$build" "$provider" \
  "$([ "$access_log" = 1 ] && echo on || echo off)" "${token_cache:-default}"
printf 'run: %s %s, %s tokens rotating, %s connections, wrk -t%s, %ss\n\n' "$method" "$path" "$tokens" "$connections" "$threads" "$duration"
printf '%-28s %s\n' "requests" "$requests"
printf '%-28s %s\n' "requests/s" "$(bench_field "$result" rps)"
printf '%-28s %s ms\n' "latency p50" "$(bench_ms "$(bench_field "$result" p50_us)")"
printf '%-28s %s ms\n' "latency p90" "$(bench_ms "$(bench_field "$result" p90_us)")"
printf '%-28s %s ms\n' "latency p99" "$(bench_ms "$(bench_field "$result" p99_us)")"
printf '%-28s %s ms\n' "latency max" "$(bench_ms "$(bench_field "$result" max_us)")"
printf '%-28s %s (status >= 400: %s; connect %s, read %s, write %s, timeout %s)\n' "errors" "$errors" \
  "$(bench_field "$result" non2xx)" "$(bench_field "$result" connect)" "$(bench_field "$result" read)" \
  "$(bench_field "$result" write)" "$(bench_field "$result" timeout)"
printf '%-28s %s s\n' "gateway CPU" "$cpu_seconds"
printf '%-28s %s\n' "requests per CPU-second" "$per_cpu"
if [ "$provider" = mock ]; then
  mock_after=$(bench_cpu_ticks "$mock_pid")
  printf '%-28s %s s (not counted above)\n' "mock-openai CPU" \
    "$(awk -v t=$((mock_after - mock_before)) -v hz="$BENCH_CLK_TCK" 'BEGIN { printf "%.2f", t / hz }')"
fi
printf '%-28s %s MiB\n' "gateway RSS after" "$(($(bench_rss_kib "$gateway_pid") / 1024))"
((errors == 0)) || { bench_log "the run had $errors errors (see $BENCH_TMP)"; BENCH_KEEP=1; exit 1; }
