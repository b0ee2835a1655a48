#!/usr/bin/env bash
# What a replayed answer costs: one StoryGate with REDIS_URL (its own redis-server), 1,000 users' tokens rotating,
# rounds taking turns between GET /v1/me and POST /functions/v1/extract-scenes under one Idempotency-Key per user
# (each user's first call runs in the warm-up and is kept in Redis; every measured call is a replay). Prints the
# gateway's CPU per request for each, the median over the rounds, and their ratio (the goal: at most 2).
#
#   bench/replay.sh                        # release build, 5 rounds of 5 s each
#   bench/replay.sh --debug --rounds 1     # a smoke run
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'USAGE'
usage: bench/replay.sh [--binary PATH | --debug] [--rounds N] [--duration SECONDS] [--connections N] [--port N]
USAGE
}

mode=release binary="" rounds=5 duration=5 connections=64 port=18080 tokens=1000
while (($#)); do
  case $1 in
    --binary) mode=path binary=$2; shift ;;
    --debug) mode=debug ;;
    --rounds) rounds=$2; shift ;;
    --duration) duration=${2%s}; shift ;;
    --connections) connections=$2; shift ;;
    --port) port=$2; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; bench_die "unknown option $1" ;;
  esac
  shift
done

bench_install wrk curl redis-server
bench_init replay
binary=$(bench_storygate_binary "$mode" "$binary")
redis_port=$((port + 6))
bench_require_ports "$port" "$redis_port"
bench_mint "$binary" "$tokens" "$BENCH_TMP/tokens.txt"
body="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bodies/extract-scenes.json"

bench_spawn redis "$BENCH_TMP/redis.out" redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no
environment=()
mapfile -t environment < <(bench_storygate_env)
# The access log on, as in production (the limits are shadowed by bench_storygate_env).
environment+=(ACCESS_LOG=true LOG_LEVEL=info "REDIS_URL=redis://127.0.0.1:$redis_port")
bench_bounded_log "$BENCH_TMP/storygate.log"
bench_spawn storygate "$BENCH_FIFO" env -u OPENAI_API_KEY -u OPENAI_API_KEY_FILE -u OPENAI_BASE_URL -u STORYGATE_CONFIG \
  "${environment[@]}" "$binary" serve --host 127.0.0.1 --port "$port"
gateway_pid=$BENCH_LAST_PID
bench_wait_http "http://127.0.0.1:$port/readyz" "$gateway_pid" 60 || { cat "$BENCH_TMP/storygate.log" >&2; bench_die "the gateway did not become ready"; }
url="http://127.0.0.1:$port"
key='Idempotency-Key: "bench-replay-1"'

# Every user's first call runs (offline provider) and is kept; then every call is a replay.
bench_log "warm-up: each user's keyed call runs once"
bench_wrk "$url" 3 "$connections" 1 "$BENCH_TMP/tokens.txt" WRK_METHOD=POST WRK_PATH=/functions/v1/extract-scenes \
  "WRK_BODY_FILE=$body" "WRK_HEADER=$key" >/dev/null
replayed=$(curl -s -o /dev/null -D - -X POST -H "Authorization: Bearer $(head -1 "$BENCH_TMP/tokens.txt")" -H "$key" \
  -H 'Content-Type: application/json' --data-binary "@$body" "$url/functions/v1/extract-scenes" | tr -d '\r' | grep -ci '^idempotent-replayed: true' || true)
[ "$replayed" = 1 ] || bench_die "the keyed call is not replayed: fix the request before measuring"
bench_wrk "$url" 2 "$connections" 1 "$BENCH_TMP/tokens.txt" >/dev/null

measure() { # measure NAME wrk-variables...: prints microseconds of gateway CPU per request
  local before after result requests
  before=$(bench_cpu_ticks "$gateway_pid")
  result=$(bench_wrk "$url" "$duration" "$connections" 1 "$BENCH_TMP/tokens.txt" "${@:2}")
  after=$(bench_cpu_ticks "$gateway_pid")
  requests=$(bench_field "$result" requests)
  [ "$(bench_field "$result" non2xx)" = 0 ] || bench_die "$1: some answers were errors"
  awk -v t=$((after - before)) -v hz="$BENCH_CLK_TCK" -v r="$requests" 'BEGIN { printf "%.1f", t / hz * 1e6 / r }'
}

me=() replay=()
for round in $(seq "$rounds"); do
  me+=("$(measure me)")
  replay+=("$(measure replay WRK_METHOD=POST WRK_PATH=/functions/v1/extract-scenes "WRK_BODY_FILE=$body" "WRK_HEADER=$key")")
  bench_log "round $round: GET /v1/me ${me[-1]} µs, replay ${replay[-1]} µs of gateway CPU per request"
done
me_median=$(bench_median "${me[@]}")
replay_median=$(bench_median "${replay[@]}")
printf '\n'
bench_machine
printf 'gateway: %s; REDIS_URL; access log on; %s tokens rotating; %s connections; %s rounds of %ss\n\n' \
  "$(bench_build_label "$mode" "$binary")" "$tokens" "$connections" "$rounds" "$duration"
printf '%-44s %s µs (rounds: %s)\n' "GET /v1/me, gateway CPU per request" "$me_median" "${me[*]}"
printf '%-44s %s µs (rounds: %s)\n' "replayed extract-scenes, CPU per request" "$replay_median" "${replay[*]}"
printf '%-44s %s (goal: at most 2)\n' "replay ÷ /v1/me" "$(awk -v a="$replay_median" -v b="$me_median" 'BEGIN { printf "%.2f", a / b }')"
