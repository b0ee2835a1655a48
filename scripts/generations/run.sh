#!/usr/bin/env bash
# Idempotency keys and jobs across two gateway processes (the real binary), the functions served by
# `storygate mock-openai`, whose `GET /__mock/calls` counts what reached "OpenAI". Two stages:
#  1. One redis-server: the same key twice on each function through A then B (one OpenAI call, the same body,
#     `Idempotent-Replayed: true`); 20 concurrent requests with one key over both (one call, 20 identical answers);
#     another body under a key (422), a malformed key (400), another user's key (its own call); a client that leaves
#     a keyed generation and retries (the answer, no second call); a job (202, polled with `Prefer: wait` on the other
#     replica, how soon after its end the wait returns, 404 for another user); the replica running a job killed with
#     SIGKILL (another reclaims it once its lease lapses); 1,000 jobs over both replicas (all succeed, the queue
#     drains).
#  2. A three-primary Redis Cluster (REDIS_CLUSTER=on): a replay across A and B, the 20 concurrent requests, a job.
#
#   scripts/generations/run.sh [path/to/storygate]   (default .build/debug/storygate)
#
# Needs redis-server, redis-cli, curl, jq and python3 (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/redis-cluster.sh
. scripts/lib/redis-cluster.sh
binary="${1:-.build/debug/storygate}"
[ -x "$binary" ] || { echo "no storygate binary at $binary" >&2; exit 2; }
for tool in redis-server redis-cli curl jq python3 sha256sum; do
  command -v "$tool" >/dev/null || { echo "$tool not found: run scripts/setup.sh" >&2; exit 2; }
done

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
started_at=$SECONDS

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
fail_start() { echo "FAILED: $1" >&2; for log in "$work"/*.log; do echo "== $log" >&2; tail -20 "$log" >&2; done; exit 1; }

failures=0
passed=0
check() {
  if [ "$2" = "$3" ]; then echo "ok: $1 ($3)"; passed=$((passed + 1))
  else echo "FAILED: $1: expected $2, got $3"; failures=$((failures + 1)); fi
}

# ---- Processes ---------------------------------------------------------------------------------------------------

# start_redis NAME [redis-server options]: a redis-server on a free port, its port in redis_port.
start_redis() {
  local name=$1
  shift
  redis_port="$(free_port)"
  mkdir -p "$work/$name"
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work/$name" "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && return 0; sleep 0.05; done
  fail_start "redis-server $name did not start"
}

# start_mock LATENCY_MS: (re)starts mock-openai on $mock_port with that latency; its counts start at zero.
mock_port="$(free_port)"
mock="http://127.0.0.1:$mock_port"
mock_pid=""
start_mock() {
  if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; fi
  "$binary" mock-openai --port "$mock_port" --latency-ms "$1" >>"$work/mock-openai.log" 2>&1 &
  mock_pid=$!
  pids+=("$mock_pid")
  for _ in $(seq 1 200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$mock/__mock/calls")" = 200 ] && return 0
    kill -0 "$mock_pid" 2>/dev/null || break
    sleep 0.05
  done
  fail_start "mock-openai did not answer /__mock/calls"
}
# calls ENDPOINT: how many requests the mock received at ENDPOINT (e.g. chat.completions, or total).
calls() { curl -s "$mock/__mock/calls" | jq -r --arg endpoint "$1" '.[$endpoint]'; }

# start_gateway NAME [VAR=value ...]: a gateway on free ports (main and admin) with the shared settings ($redis_url,
# $redis_cluster) and the given variables; its URL in url[NAME], its admin URL in admin[NAME], its pid in
# gateway_pid[NAME].
declare -A url admin gateway_pid
start_gateway() {
  local name=$1 port admin_port
  shift
  port="$(free_port)"
  admin_port="$(free_port)"
  env ENV=dev ADMIN_PORT="$admin_port" REDIS_URL="$redis_url" REDIS_CLUSTER="$redis_cluster" REDIS_TIMEOUT_MS=2000 \
    OPENAI_API_KEY=sk-local OPENAI_BASE_URL="$mock/v1" MEDIA_DIR="$work/media" LOG_LEVEL=warning ACCESS_LOG=false "$@" \
    "$binary" serve --port "$port" >>"$work/gateway-$name.log" 2>&1 &
  gateway_pid[$name]=$!
  pids+=("${gateway_pid[$name]}")
  url[$name]="http://127.0.0.1:$port"
  admin[$name]="http://127.0.0.1:$admin_port"
  for _ in $(seq 1 200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "${url[$name]}/readyz")" = 200 ] && return 0
    kill -0 "${gateway_pid[$name]}" 2>/dev/null || break
    sleep 0.05
  done
  fail_start "gateway $name did not become ready"
}
# stop_gateway NAME [SIGNAL]: SIGTERM (or SIGNAL) and wait for the process.
stop_gateway() {
  kill "-${2:-TERM}" "${gateway_pid[$1]}" 2>/dev/null || true
  wait "${gateway_pid[$1]}" 2>/dev/null || true
}
# metric NAME SERIES: the value of SERIES (e.g. storygate_jobs_total{event="reclaimed"}) in NAME's /metrics (0 if
# absent).
metric() {
  curl -s "${admin[$1]}/metrics" | awk -v series="$2" '$1 == series { value = $2 } END { printf "%d\n", value + 0 }'
}

# ---- Requests ----------------------------------------------------------------------------------------------------

# One request body per function (those of Tests/GatewayTests/IdempotencyEndToEndTests.swift).
functions=(story-generation extract-scenes audio-synthesis avatar-generation scene-illustration)
declare -A paid_endpoint=(
  [story-generation]=chat.completions [extract-scenes]=chat.completions [audio-synthesis]=audio.speech
  [avatar-generation]=images.generations [scene-illustration]=images.generations
)
mkdir -p "$work/bodies" "$work/answers"
cat >"$work/bodies/story-generation.json" <<'EOF'
{"hero": {"name": "Mila", "primary_trait": "brave", "secondary_trait": "curious",
          "appearance": "curly red hair and a green raincoat", "special_ability": "talks to birds", "age": 7},
 "event": {"type": "custom", "data": {"title": "The lost kite", "description": "A kite is stuck in the old oak tree."}},
 "target_duration": 120, "language": "en"}
EOF
cat >"$work/bodies/extract-scenes.json" <<'EOF'
{"story_content": "Mila found a kite. She climbed the oak. The kite flew again. Everyone cheered.", "target_scene_count": 2}
EOF
cat >"$work/bodies/audio-synthesis.json" <<'EOF'
{"text": "Once upon a time, a kite flew away. It was found.", "language": "en"}
EOF
cat >"$work/bodies/avatar-generation.json" <<'EOF'
{"hero_id": "hero-1", "prompt": "a brave girl with curly red hair", "style": "vivid"}
EOF
cat >"$work/bodies/scene-illustration.json" <<'EOF'
{"story_id": "s1", "scene_number": 1, "prompt": "Mila under the oak", "style": "natural"}
EOF

# call GATEWAY UID FUNCTION OUT [curl options]: POSTs the function's body; prints the status, writes the answer to
# OUT and its head to OUT.head.
call() {
  local gateway=$1 uid=$2 function=$3 out=$4
  shift 4
  curl -s -o "$out" -D "$out.head" -w '%{http_code}' -X POST -H "X-User-Id: $uid" -H 'Content-Type: application/json' \
    --data-binary "@$work/bodies/$function.json" "$@" "${url[$gateway]}/functions/v1/$function" || true
}
# header OUT NAME: the value of NAME in the head written for OUT (empty if absent).
header() { tr -d '\r' <"$1.head" | awk -v name="${2,,}" -F': ' 'tolower($1) == name { print $2 }'; }
# replayed OUT: the answer's Idempotent-Replayed, or "absent".
replayed() { header "$1" Idempotent-Replayed | grep . || echo absent; }
# digest FILE: its SHA-256, in hex.
digest() { sha256sum <"$1" | cut -d' ' -f1; }
# error_code FILE: the error envelope's code.
error_code() { jq -r '.error.code // .code // empty' "$1" 2>/dev/null || true; }
# get_job GATEWAY UID PATH OUT [curl options]: GETs a job; prints the status, the JSON in OUT.
get_job() {
  local gateway=$1 uid=$2 path=$3 out=$4
  shift 4
  curl -s -o "$out" -w '%{http_code}' -H "X-User-Id: $uid" "$@" "${url[$gateway]}$path" || true
}
# seconds RFC3339: seconds since 1970 with milliseconds (the gateway writes 2026-01-01T00:00:00.123Z).
seconds() { jq -rn --arg time "$1" '($time[0:19] + "Z" | fromdate) + ($time[20:23] | tonumber) / 1000'; }

# ---- Scenarios, shared by both stages ----------------------------------------------------------------------------

# same_key_twice STAGE FUNCTION: the same key twice, through A then B: one OpenAI call, the same body, the second replayed.
same_key_twice() {
  local stage=$1 function=$2 endpoint="${paid_endpoint[$2]}" out="$work/answers/$1-replay-$2"
  local key="\"$stage-replay-$function\"" before after_first
  before="$(calls "$endpoint")"
  check "$stage: $function with a key through A" 200 "$(call A replay-kid "$function" "$out-1" -H "Idempotency-Key: $key")"
  after_first="$(calls "$endpoint")"
  check "$stage: $function: the first call reached $endpoint once" 1 "$((after_first - before))"
  check "$stage: $function: the same key again through B" 200 \
    "$(call B replay-kid "$function" "$out-2" -H "Idempotency-Key: $key")"
  check "$stage: $function: the first answer is not marked replayed" absent "$(replayed "$out-1")"
  check "$stage: $function: the second answer is marked replayed" true "$(replayed "$out-2")"
  check "$stage: $function: the second body is the first (sha256)" "$(digest "$out-1")" "$(digest "$out-2")"
  check "$stage: $function: no second OpenAI call" "$after_first" "$(calls "$endpoint")"
}

# concurrent_same_key STAGE: 20 concurrent requests with one key, alternating A and B: one chat call, 20 identical
# answers, 19 of them joined (replayed).
concurrent_same_key() {
  local stage=$1 before index
  before="$(calls chat.completions)"
  (
    for index in $(seq 1 20); do
      call "$([ $((index % 2)) = 0 ] && echo A || echo B)" join-kid extract-scenes "$work/answers/$stage-join-$index" \
        -H "Idempotency-Key: \"$stage-join\"" >"$work/answers/$stage-join-$index.status" &
    done
    wait
  )
  check "$stage: 20 concurrent requests with one key over A and B: all 200" 20 \
    "$(cat "$work/answers/$stage-join-"*.status | grep -o 200 | wc -l)"
  check "$stage: 20 concurrent requests: one chat call" 1 "$(($(calls chat.completions) - before))"
  check "$stage: 20 concurrent requests: one body" 1 \
    "$(for index in $(seq 1 20); do digest "$work/answers/$stage-join-$index"; done | sort -u | wc -l)"
  check "$stage: 20 concurrent requests: 19 marked replayed" 19 \
    "$(for index in $(seq 1 20); do replayed "$work/answers/$stage-join-$index"; done | grep -c '^true$' || true)"
}

# job_waited_for STAGE: a job created on A, waited for on B (Prefer: wait=30): succeeded with the function's answer,
# and how soon after its finished_at the wait returned; another user gets 404.
job_waited_for() {
  local stage=$1 out="$work/answers/$1-job" location status returned finished delay
  check "$stage: Prefer: respond-async through A" 202 \
    "$(call A job-kid extract-scenes "$out" -H 'Prefer: respond-async')"
  location="$(header "$out" Location)"
  check "$stage: the 202 names the job in Location" yes \
    "$([[ "$location" =~ ^/v1/jobs/[^/]+$ ]] && echo yes || echo "no ($location)")"
  check "$stage: the 202's job_id is the Location's" "$location" "/v1/jobs/$(jq -r '.job_id' "$out" 2>/dev/null)"
  status="$(get_job B job-kid "$location" "$out.job" -H 'Prefer: wait=30')"
  returned="$(date +%s.%N)"
  check "$stage: GET the job through B with Prefer: wait=30" 200 "$status"
  check "$stage: the wait ends with the job succeeded" succeeded "$(jq -r '.status' "$out.job" 2>/dev/null)"
  check "$stage: the job's result is the function's answer (2 scenes)" 2 \
    "$(jq -r '.result.scenes | length' "$out.job" 2>/dev/null)"
  finished="$(jq -r '.finished_at // empty' "$out.job" 2>/dev/null)"
  if [ -n "$finished" ]; then
    delay="$(jq -rn --argjson returned "$returned" --argjson finished "$(seconds "$finished")" \
      '$returned - $finished | . * 1000 | round / 1000')"
    echo "   the wait on B returned ${delay} s after the job's finished_at (on A)"
    check "$stage: the wait returned within 0.5 s of the job's end" yes \
      "$(jq -rn --argjson delay "$delay" 'if $delay <= 0.5 then "yes" else "no (\($delay) s)" end')"
  else
    check "$stage: the job has a finished_at" yes no
  fi
  check "$stage: another user's GET of the job" 404 "$(get_job B job-other "$location" /dev/null)"
  check "$stage: another user's GET of the job through A" 404 "$(get_job A job-other "$location" /dev/null)"
}

# ---- Stage 1: one redis-server -----------------------------------------------------------------------------------
echo "== stage 1: two gateways, one redis-server"
start_redis redis
redis_url="redis://127.0.0.1:$redis_port"
redis_cluster=off
start_mock 0
# B runs no jobs: a job created anywhere runs on A, and B's waits learn of its end through Redis.
start_gateway A JOB_LEASE_SECONDS=5
start_gateway B JOB_LEASE_SECONDS=5 JOB_WORKERS=0

# (a) The same key twice on each function.
for function in "${functions[@]}"; do same_key_twice stage-1 "$function"; done

# (c) The key's errors.
before="$(calls chat.completions)"
# The key (a) used for extract-scenes, with one more word in the story.
sed 's/Everyone cheered\./Everyone cheered loudly./' "$work/bodies/extract-scenes.json" >"$work/bodies/extract-scenes-other.json"
check "stage-1: another body under a used key" 422 \
  "$(curl -s -o "$work/answers/reused" -w '%{http_code}' -X POST -H 'X-User-Id: replay-kid' \
    -H 'Content-Type: application/json' -H 'Idempotency-Key: "stage-1-replay-extract-scenes"' \
    --data-binary "@$work/bodies/extract-scenes-other.json" "${url[B]}/functions/v1/extract-scenes")"
check "stage-1: the 422's code" IDEMPOTENCY_KEY_REUSED "$(error_code "$work/answers/reused")"
check "stage-1: an unquoted key (Idempotency-Key: abc)" 400 \
  "$(call A replay-kid extract-scenes "$work/answers/bad-key" -H 'Idempotency-Key: abc')"
check "stage-1: the 400's code" INVALID_IDEMPOTENCY_KEY "$(error_code "$work/answers/bad-key")"
check "stage-1: neither reached OpenAI" "$before" "$(calls chat.completions)"
check "stage-1: another user's identical key and body" 200 \
  "$(call B other-kid extract-scenes "$work/answers/other-user" -H 'Idempotency-Key: "stage-1-replay-extract-scenes"')"
check "stage-1: another user's answer is not a replay" absent "$(replayed "$work/answers/other-user")"
check "stage-1: another user's key made its own chat call" 1 "$(($(calls chat.completions) - before))"

# (b) and (e) with a model that takes a second per call.
start_mock 1000
concurrent_same_key stage-1
job_waited_for stage-1

# (d) and (f) with a generation of about 5 s (moderation and the model, 2.5 s each), side by side.
start_mock 2500
# (d) A client gives up 1 s into a keyed generation on B and retries 6 s later: the answer, no second call.
(
  before="$(calls chat.completions)"
  code=0
  curl -s -o /dev/null --max-time 1 -X POST -H 'X-User-Id: leaving-kid' -H 'Content-Type: application/json' \
    -H 'Idempotency-Key: "stage-1-leaving"' --data-binary "@$work/bodies/extract-scenes.json" \
    "${url[B]}/functions/v1/extract-scenes" || code=$?
  echo "$code" >"$work/answers/leaving.curl"
  sleep 6
  call B leaving-kid extract-scenes "$work/answers/leaving" -H 'Idempotency-Key: "stage-1-leaving"' \
    >"$work/answers/leaving.status"
  echo "$(($(calls chat.completions) - before))" >"$work/answers/leaving.calls"
) &
leaving=$!

# (f) The replica running a job is killed: another takes it once its lease (5 s) lapses.
out="$work/answers/killed"
check "stage-1: a job through A (lease 5 s)" 202 "$(call A killed-kid audio-synthesis "$out" -H 'Prefer: respond-async')"
location="$(header "$out" Location)"
job_status=""
for _ in $(seq 1 100); do
  get_job B killed-kid "$location" "$out.job" >/dev/null
  job_status="$(jq -r '.status' "$out.job" 2>/dev/null || true)"
  case "$job_status" in running | succeeded | failed | cancelled) break ;; esac
  sleep 0.1
done
check "stage-1: A took the job" running "$job_status"
stop_gateway A KILL
start_gateway C JOB_LEASE_SECONDS=5
check "stage-1: GET the killed replica's job through B with Prefer: wait=30" 200 \
  "$(get_job B killed-kid "$location" "$out.job" -H 'Prefer: wait=30')"
check "stage-1: the killed replica's job ends" succeeded "$(jq -r '.status' "$out.job" 2>/dev/null)"
check "stage-1: its result is the function's answer (an audio_url)" yes \
  "$(jq -r 'if (.result.audio_url | type) == "string" then "yes" else "no" end' "$out.job" 2>/dev/null || echo no)"
check "stage-1: C reclaimed it" 1 "$(metric C 'storygate_jobs_total{event="reclaimed"}')"

wait "$leaving" || true
check "stage-1: the leaving client's first request timed out (curl exit 28)" 28 "$(cat "$work/answers/leaving.curl")"
check "stage-1: its retry 6 s later" 200 "$(cat "$work/answers/leaving.status")"
check "stage-1: the retry gets the kept answer" true "$(replayed "$work/answers/leaving")"
check "stage-1: the retry's answer has the scenes" 2 "$(jq -r '.scenes | length' "$work/answers/leaving" 2>/dev/null)"
check "stage-1: one chat call for the two" 1 "$(cat "$work/answers/leaving.calls")"
stop_gateway B
stop_gateway C

# (g) 1,000 jobs over two replicas with eight workers each, the model answering at once.
start_mock 0
start_gateway A JOB_WORKERS=8 RATE_LIMIT_EXTRACT_SCENES=100000/3600
start_gateway B JOB_WORKERS=8 RATE_LIMIT_EXTRACT_SCENES=100000/3600
# Five hundred POSTs through each, 32 at a time per curl; each prints "<status> <Location>".
(
  for gateway in A B; do
    for _ in $(seq 1 500); do
      printf 'url = "%s/functions/v1/extract-scenes"\noutput = /dev/null\n' "${url[$gateway]}"
    done >"$work/many-$gateway.curl"
    curl -s -Z --parallel-max 32 -X POST -H 'X-User-Id: many-kid' -H 'Content-Type: application/json' \
      -H 'Prefer: respond-async' --data-binary "@$work/bodies/extract-scenes.json" \
      -w '%{http_code} %header{location}\n' -K "$work/many-$gateway.curl" \
      >"$work/many-$gateway.out" 2>"$work/many-$gateway.err" &
  done
  wait
)
cat "$work/many-A.out" "$work/many-B.out" >"$work/many.out"
check "stage-1: 1,000 jobs created over A and B" 1000 "$(grep -c '^202 /v1/jobs/' "$work/many.out" || true)"
# many_statuses: every job of many-kid by status from the list (100 a page), e.g. "300 queued, 700 succeeded".
many_statuses() {
  local cursor="" page="$work/many.page"
  for _ in $(seq 1 20); do
    get_job A many-kid "/v1/jobs?limit=100${cursor:+&cursor=$cursor}" "$page" >/dev/null
    jq -r '.jobs[].status' "$page" 2>/dev/null || break
    cursor="$(jq -r '.next_cursor // empty' "$page" 2>/dev/null || true)"
    [ -n "$cursor" ] || break
  done | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 } END { print "" }'
}
statuses=""
for _ in $(seq 1 120); do
  statuses="$(many_statuses)"
  [ "$statuses" = "1000 succeeded" ] && break
  sleep 0.5
done
check "stage-1: the 1,000 jobs succeeded" "1000 succeeded" "$statuses"
reclaimed=$(($(metric A 'storygate_jobs_total{event="reclaimed"}') + $(metric B 'storygate_jobs_total{event="reclaimed"}')))
echo "   reclaimed: $reclaimed; jobs run by A: $(metric A 'storygate_jobs_total{event="succeeded"}')," \
  "by B: $(metric B 'storygate_jobs_total{event="succeeded"}')"
chat="$(calls chat.completions)"
check "stage-1: one chat call per job (1000 + reclaimed $reclaimed at most)" yes \
  "$([ "$chat" -ge 1000 ] && [ "$chat" -le $((1000 + reclaimed)) ] && echo yes || echo "no ($chat)")"
# The depth gauge is sampled every 5 s.
depth=""
for _ in $(seq 1 150); do
  depth="$(metric A storygate_jobs_queue_depth) $(metric B storygate_jobs_queue_depth)"
  [ "$depth" = "0 0" ] && break
  sleep 0.1
done
check "stage-1: storygate_jobs_queue_depth on A and B" "0 0" "$depth"
for name in "${!gateway_pid[@]}"; do stop_gateway "$name"; done
for process in "${pids[@]}"; do kill "$process" 2>/dev/null || true; wait "$process" 2>/dev/null || true; done
pids=()
mock_pid=""
unset url admin gateway_pid
declare -A url admin gateway_pid

# ---- Stage 2: Redis Cluster --------------------------------------------------------------------------------------
echo "== stage 2: two gateways, a three-primary Redis Cluster"
start_redis_cluster
redis_url="$cluster_url"
redis_cluster=on
start_mock 1000
start_gateway A
start_gateway B JOB_WORKERS=0
same_key_twice stage-2 extract-scenes
concurrent_same_key stage-2
job_waited_for stage-2

echo "$passed passed, $failures failed in $((SECONDS - started_at)) s"
[ "$failures" = 0 ]
