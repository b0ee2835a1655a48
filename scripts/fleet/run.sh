#!/usr/bin/env bash
# Fleet tests of the real binary, in two stages.
#  1. Two `storygate serve` processes sharing one redis-server enforce one per-user limit; Redis killed mid-run, the
#     gateways fail open (never a 5xx), and after a restart checks reach Redis again.
#  2. Two gateways sharing one three-primary Redis Cluster (REDIS_CLUSTER=on) and one S3 server (moto_server with
#     signature checking on, MEDIA_STORE=s3), the functions served by `storygate mock-openai`: an avatar made through
#     gateway A, a scene illustration through gateway B with that hero_generation_id (the reference image read from
#     the bucket), both media URLs fetched from both gateways byte-identical, one user's limit exact across A and B.
#
#   scripts/fleet/run.sh [path/to/storygate]   (default .build/debug/storygate)
#
# Needs redis-server, redis-cli, curl, jq, python3 (scripts/setup.sh) and moto_server (scripts/moto/install.sh, or
# $MOTO_SERVER, or on PATH).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/redis-cluster.sh
. scripts/lib/redis-cluster.sh
binary="${1:-.build/debug/storygate}"
# Several gateways on one machine: each admin listener takes a free port, none the default 9901.
export ADMIN_PORT=0
[ -x "$binary" ] || { echo "no storygate binary at $binary" >&2; exit 2; }
moto_server="${MOTO_SERVER:-.build/moto-venv/bin/moto_server}"
[ -x "$moto_server" ] || moto_server="$(command -v moto_server || true)"
[ -n "$moto_server" ] || { echo "moto_server not found: run scripts/moto/install.sh (or set MOTO_SERVER)" >&2; exit 2; }
for tool in redis-server redis-cli curl jq python3 sha256sum; do
  command -v "$tool" >/dev/null || { echo "$tool not found: run scripts/setup.sh" >&2; exit 2; }
done

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
fail_start() { echo "FAILED: $1" >&2; for log in "$work"/*.log; do echo "== $log" >&2; tail -20 "$log" >&2; done; exit 1; }
start_redis() {
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && return 0; sleep 0.05; done
  fail_start "redis-server did not start"
}
wait_ready() {
  for _ in $(seq 1 200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/readyz")" = 200 ] && return 0
    sleep 0.05
  done
  fail_start "gateway on $1 did not become ready"
}
# call PORT UID: prints the status of one extract-scenes call (limit: 30 per hour per user)
call() {
  curl -s -o /dev/null -w '%{http_code}\n' -X POST -H "X-User-Id: $2" -H 'Content-Type: application/json' \
    --data '{"story_content": "Mia found a map. She followed it. The map led home.", "target_scene_count": 2}' \
    "http://127.0.0.1:$1/functions/v1/extract-scenes"
}

failures=0
passed=0
check() {
  if [ "$2" = "$3" ]; then echo "ok: $1 ($3)"; passed=$((passed + 1))
  else echo "FAILED: $1: expected $2, got $3"; failures=$((failures + 1)); fi
}

# ---- Stage 1: one redis-server ----------------------------------------------------------------------------------
echo "== stage 1: two gateways, one redis-server"
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
  # The restarted server is empty: any bucket of the limit in it is back-kid's.
  if [ -n "$(redis-cli -p "$redis_port" --scan --pattern 'storygate:rl:extract-scenes:*')" ]; then recovered=yes; break; fi
  sleep 0.05
done
check "checks reach Redis again after its restart" yes "$recovered"

for pid in "${pids[@]}" $redis_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
pids=()
redis_pid=""

# ---- Stage 2: Redis Cluster, S3 store, mock OpenAI --------------------------------------------------------------
echo "== stage 2: two gateways, a three-primary Redis Cluster, moto_server (S3, signatures checked), mock-openai"

start_redis_cluster

# moto_server: the first four actions pass unsigned (the IAM user, its key, its policy, the bucket); every later
# request must be signed with that key.
moto_port="$(free_port)"
moto="http://127.0.0.1:$moto_port"
bucket=storygate-media
INITIAL_NO_AUTH_ACTION_COUNT=4 MOTO_ALLOW_NONEXISTENT_REGION=true "$moto_server" -H 127.0.0.1 -p "$moto_port" \
  >"$work/moto.log" 2>&1 &
moto_pid=$!
pids+=("$moto_pid")
for attempt in $(seq 1 601); do
  curl -s -o /dev/null "$moto/moto-api/" && break
  kill -0 "$moto_pid" 2>/dev/null || fail_start "moto_server exited"
  [ "$attempt" -le 600 ] || fail_start "moto_server did not answer within 60 s"
  sleep 0.1
done
# The credential scope's service ("iam") routes these to IAM; the signature is not checked yet.
iam() {
  curl -s -f -X POST --data "$1&Version=2010-05-08" "$moto/" \
    -H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=00' ||
    fail_start "moto bootstrap failed: ${1%%&*}"
}
iam "Action=CreateUser&UserName=storygate" >/dev/null
created="$(iam "Action=CreateAccessKey&UserName=storygate")"
policy="$(jq -rn '{Version: "2012-10-17", Statement: [{Effect: "Allow", Action: "*", Resource: "*"}]} | tojson | @uri')"
iam "Action=PutUserPolicy&UserName=storygate&PolicyName=all&PolicyDocument=$policy" >/dev/null
key_id="$(grep -o '<AccessKeyId>[^<]*' <<<"$created" | cut -d'>' -f2)"
secret="$(grep -o '<SecretAccessKey>[^<]*' <<<"$created" | cut -d'>' -f2)"
[ -n "$key_id" ] && [ -n "$secret" ] || fail_start "moto returned no access key"
curl -s -f -X PUT "$moto/$bucket" >/dev/null || fail_start "moto did not create the bucket"

# s3 SECRET PATH [curl options]: a request to the bucket signed with SigV4 by curl (payload: none).
s3() {
  local with_secret=$1 path=$2
  shift 2
  curl -s --aws-sigv4 "aws:amz:us-east-1:s3" --user "$key_id:$with_secret" \
    -H "x-amz-content-sha256: $(printf '' | sha256sum | cut -d' ' -f1)" "$@" "$moto/$bucket$path"
}
# (moto answers an unsigned request with a 500, a wrongly signed one with a 403.)
unsigned="$(curl -s -o /dev/null -w '%{http_code}' "$moto/$bucket?list-type=2")"
check "moto: an unsigned request is refused" refused "$([ "$unsigned" -ge 400 ] && echo refused || echo "served ($unsigned)")"
check "moto: a request signed with a wrong secret is refused" 403 \
  "$(s3 "wrong$secret" '?list-type=2' -o /dev/null -w '%{http_code}')"
check "moto: a request signed with the key is accepted" 200 "$(s3 "$secret" '?list-type=2' -o /dev/null -w '%{http_code}')"

# The functions through `storygate mock-openai` (libcurl, OpenAI's API shape); it records every request body.
mock_port="$(free_port)"
mkdir -p "$work/openai-requests"
"$binary" mock-openai --port "$mock_port" --record-dir "$work/openai-requests" >"$work/mock-openai.log" 2>&1 &
pids+=($!)
for attempt in $(seq 1 201); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mock_port/v1/models")" != 000 ] && break
  [ "$attempt" -le 200 ] || fail_start "mock-openai did not answer within 10 s"
  sleep 0.05
done

# Each gateway has a MEDIA_DIR of its own, which must stay empty: media goes to the bucket.
ports=("$(free_port)" "$(free_port)")
for index in 0 1; do
  ENV=dev REDIS_URL="$cluster_url" REDIS_CLUSTER=on REDIS_TIMEOUT_MS=2000 RATE_LIMIT_FAILURE_POLICY=closed \
    MEDIA_STORE=s3 S3_ENDPOINT="$moto" S3_BUCKET="$bucket" S3_REGION=us-east-1 S3_ADDRESSING=path S3_PREFIX=fleet/ \
    AWS_ACCESS_KEY_ID="$key_id" AWS_SECRET_ACCESS_KEY="$secret" MEDIA_DIR="$work/media-$index" \
    OPENAI_BASE_URL="http://127.0.0.1:$mock_port/v1" OPENAI_API_KEY=sk-local LOG_LEVEL=warning ACCESS_LOG=false \
    "$binary" serve --port "${ports[$index]}" >"$work/gateway-$index.log" 2>&1 &
  pids+=($!)
done
wait_ready "${ports[0]}"
wait_ready "${ports[1]}"
a="http://127.0.0.1:${ports[0]}"
b="http://127.0.0.1:${ports[1]}"

# post URL UID BODY OUT: POSTs a function call; prints the status, the answer body in OUT.
post() {
  curl -s -o "$4" -w '%{http_code}' -X POST -H "X-User-Id: $2" -H 'Content-Type: application/json' --data "$3" "$1"
}

# The avatar through A.
status="$(post "$a/functions/v1/avatar-generation" fleet-hero '{"hero_id": "hero-1", "prompt": "A brave little fox in a red scarf"}' "$work/avatar.json")"
check "avatar through A" 200 "$status"
avatar_id="$(jq -r '.generation_id // empty' "$work/avatar.json" 2>/dev/null || true)"
[ -n "$avatar_id" ] || { cat "$work/avatar.json" >&2; echo >&2; fail_start "no avatar: cannot go on"; }

# The illustration through B, with the avatar (made on A) as its reference image.
scene='{"story_id": "fleet-story", "scene_number": 1, "prompt": "The fox waves from a hilltop", "hero_generation_id": "'"$avatar_id"'"}'
status="$(post "$b/functions/v1/scene-illustration" fleet-hero "$scene" "$work/scene.json")"
check "scene illustration through B with A's avatar as hero_generation_id" 200 "$status"
scene_id="$(jq -r '.generation_id // empty' "$work/scene.json" 2>/dev/null || true)"
[ -n "$scene_id" ] || { cat "$work/scene.json" >&2; echo >&2; fail_start "no illustration: cannot go on"; }
check "the same hero_generation_id for another user through B" 404 \
  "$(post "$b/functions/v1/scene-illustration" fleet-other "$scene" /dev/null)"

# Both media URLs from both gateways: the same bytes everywhere.
for id in "$avatar_id" "$scene_id"; do
  check "GET /media/$id through A" 200 "$(curl -s -o "$work/$id-a" -w '%{http_code}' "$a/media/$id")"
  check "GET /media/$id through B" 200 "$(curl -s -o "$work/$id-b" -w '%{http_code}' "$b/media/$id")"
  check "/media/$id byte-identical from A and B" "$(sha256sum <"$work/$id-a")" "$(sha256sum <"$work/$id-b")"
done
check "the avatar is a PNG" '89504e470d0a1a0a' "$(head -c 8 "$work/$avatar_id-a" | od -An -tx1 | tr -d ' \n')"
check "the avatar and the illustration differ" yes "$(cmp -s "$work/$avatar_id-a" "$work/$scene_id-a" && echo no || echo yes)"
check "a range of the avatar through B" "206 $(head -c 100 "$work/$avatar_id-a" | sha256sum)" \
  "$(curl -s -o "$work/range" -w '%{http_code}' -r 0-99 "$b/media/$avatar_id") $(sha256sum <"$work/range")"

# B read the reference image from the bucket: the image sent to images/edits has the avatar's size (the recorder
# notes binary parts by size), and the bucket holds the avatar under the app's layout with the bytes A served.
edits="$(cat "$work"/openai-requests/*images.edits.json 2>/dev/null || true)"
check "images/edits got the avatar as its image" "<binary $(wc -c <"$work/$avatar_id-a") bytes>" \
  "$(jq -r '.image' <<<"$edits" 2>/dev/null | head -1)"
listing="$(s3 "$secret" '?list-type=2&prefix=fleet/')"
avatar_name="$(grep -o "<Key>fleet/hero-avatars/[0-9a-f]*/$avatar_id.png</Key>" <<<"$listing" | sed 's/<[^>]*>//g' || true)"
scene_name="$(grep -o "<Key>fleet/story-illustrations/[0-9a-f]*/$scene_id.png</Key>" <<<"$listing" | sed 's/<[^>]*>//g' || true)"
check "the bucket holds the avatar under hero-avatars/<uid hash>/" yes "$([ -n "$avatar_name" ] && echo yes || echo no)"
check "the bucket holds the illustration under story-illustrations/<uid hash>/" yes "$([ -n "$scene_name" ] && echo yes || echo no)"
check "the bucket has index entries keys/<key>" 2 \
  "$(grep -o "<Key>fleet/keys/\($avatar_id\|$scene_id\)</Key>" <<<"$listing" | wc -l)"
if [ -n "$avatar_name" ]; then
  check "the avatar in the bucket is the bytes the gateways serve" "$(sha256sum <"$work/$avatar_id-a")" \
    "$(s3 "$secret" "/$avatar_name" | sha256sum)"
fi
check "no media on either gateway's disk" 0 "$(find "$work/media-0" "$work/media-1" -type f 2>/dev/null | wc -l)"

# One user's limit across A and B, kept in the cluster: 80 calls alternating, 30 allowed (the failure policy is
# closed here, so a gateway that could not reach the cluster would answer 503, not fall back to its own bucket).
statuses="$(for i in $(seq 1 80); do call "${ports[$((i % 2))]}" fleet-kid & done; wait)"
check "cluster: allowed across both gateways" 30 "$(grep -c '^200$' <<<"$statuses" || true)"
check "cluster: refused across both gateways" 50 "$(grep -c '^429$' <<<"$statuses" || true)"
# Users spread over the slots: 60 users' buckets land on every primary.
(for i in $(seq 1 60); do call "${ports[$((i % 2))]}" "spread-$i" >/dev/null & done; wait)
spread=""
for port in "${cluster_ports[@]}"; do
  count="$(redis-cli -p "$port" --scan --pattern 'storygate:rl:extract-scenes:*' | wc -l)"
  spread+="$([ "$count" -gt 0 ] && echo y || echo n)"
done
check "60 users' buckets on all three primaries" yyy "$spread"

echo "$passed passed, $failures failed"
[ "$failures" = 0 ]
