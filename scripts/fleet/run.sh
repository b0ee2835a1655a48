#!/usr/bin/env bash
# Two `storygate serve` processes sharing one redis-server enforce one per-user limit; Redis killed mid-run, the
# gateways fail open (never a 5xx), and after a restart checks reach Redis again.
#
#   scripts/fleet/run.sh [path/to/storygate]   (default .build/debug/storygate)
set -euo pipefail
cd "$(dirname "$0")/../.."
binary="${1:-.build/debug/storygate}"
[ -x "$binary" ] || { echo "no storygate binary at $binary" >&2; exit 2; }

work="$(mktemp -d)"
pids=()
redis_pid=""
cleanup() {
  for pid in "${pids[@]}" $redis_pid; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}" $redis_pid; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
start_redis() {
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && return 0; sleep 0.05; done
  echo "redis-server did not start" >&2; exit 1
}
wait_ready() {
  for _ in $(seq 1 200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/readyz")" = 200 ] && return 0
    sleep 0.05
  done
  echo "gateway on $1 did not become ready" >&2; cat "$work"/gateway-*.log >&2; exit 1
}
# call PORT UID: prints the status of one extract-scenes call (limit: 30 per hour per user)
call() {
  curl -s -o /dev/null -w '%{http_code}\n' -X POST -H "X-User-Id: $2" -H 'Content-Type: application/json' \
    --data '{"story_content": "Mia found a map. She followed it. The map led home.", "target_scene_count": 2}' \
    "http://127.0.0.1:$1/functions/v1/extract-scenes"
}

redis_port="$(free_port)"
start_redis
ports=("$(free_port)" "$(free_port)")
for index in 0 1; do
  ENV=dev REDIS_URL="redis://127.0.0.1:$redis_port" REDIS_TIMEOUT_MS=2000 MEDIA_DIR="$work/media" LOG_LEVEL=error \
    "$binary" serve --port "${ports[$index]}" >"$work/gateway-$index.log" 2>&1 &
  pids+=($!)
done
wait_ready "${ports[0]}"
wait_ready "${ports[1]}"

failures=0
check() { if [ "$2" = "$3" ]; then echo "ok: $1 ($3)"; else echo "FAILED: $1: expected $2, got $3"; failures=$((failures + 1)); fi; }

# 80 calls for one user, alternating between the two gateways: one limit of 30, not 30 per gateway.
statuses="$(for i in $(seq 1 80); do call "${ports[$((i % 2))]}" fleet-kid & done; wait)"
check "allowed across both gateways" 30 "$(grep -c '^200$' <<<"$statuses" || true)"
check "refused across both gateways" 50 "$(grep -c '^429$' <<<"$statuses" || true)"

# Redis dies: each gateway falls back to its own buckets (fail open): limited, never a 5xx.
kill -9 "$redis_pid"; wait "$redis_pid" 2>/dev/null || true; redis_pid=""
statuses="$(for i in $(seq 1 40); do call "${ports[0]}" outage-kid; done)"
check "5xx answers while Redis is down" 0 "$(grep -c '^5' <<<"$statuses" || true)"
check "allowed by the local bucket while Redis is down" 30 "$(grep -c '^200$' <<<"$statuses" || true)"

# Redis comes back: checks reach it again within 2 s (the user's bucket appears in Redis).
start_redis
recovered=no
for _ in $(seq 1 40); do
  call "${ports[1]}" back-kid >/dev/null
  if [ "$(redis-cli -p "$redis_port" exists 'storygate:rl:{extract-scenes}:back-kid')" = 1 ]; then recovered=yes; break; fi
  sleep 0.05
done
check "checks reach Redis again after its restart" yes "$recovered"

echo "$((5 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
