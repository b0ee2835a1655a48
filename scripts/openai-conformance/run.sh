#!/usr/bin/env bash
# End-to-end OpenAI conformance: runs the gateway against `storygate mock-openai`, calls the five functions, and
# validates every request body the gateway sent to OpenAI against the official openapi.yaml (validate.py).
#
#   scripts/openai-conformance/run.sh [path/to/storygate]   (default .build/debug/storygate)
#   ROUNDS=10 scripts/openai-conformance/run.sh .build/release/storygate   the five calls ten times, as ten users
#   scripts/openai-conformance/run.sh --self-test           validate.py's built-in examples only
#
# scripts/test.sh runs it on the debug build and, ten rounds, on the release build: the binary users run is
# compiled with optimisations the debug build does not have (a release-only miscompile once crashed the gateway on
# most audio-synthesis calls while every debug test passed).
# validate.py runs in its own virtualenv under .build/ (git ignores it). OPENAI_SPEC overrides the spec path.
set -euo pipefail
# The admin listener takes a free port: other gateways may run on this machine.
export ADMIN_PORT=0
cd "$(dirname "$0")/../.."

venv=.build/openai-conformance-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import yaml, jsonschema, referencing' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/openai-conformance/requirements.txt
fi
python="$venv/bin/python"

if [ "${1:-}" = "--self-test" ]; then
  exec "$python" scripts/openai-conformance/validate.py --self-test
fi

binary="${1:-.build/debug/storygate}"
[ -x "$binary" ] || { echo "no storygate binary at $binary" >&2; exit 2; }

work="$(mktemp -d)"
record="$work/record"
mkdir -p "$record" "$work/media"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${keep_work:-0}" = 1 ]; then echo "logs and recorded requests kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT INT TERM

free_port() {
  "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Any HTTP answer (even 404) means the server listens; bounded to about 60 s.
wait_ready() {
  local url="$1" name="$2" pid="$3"
  for _ in $(seq 1 240); do
    kill -0 "$pid" 2>/dev/null || { keep_work=1; echo "$name exited early; see $work" >&2; exit 1; }
    code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$url" || true)"
    [ "$code" != "000" ] && return 0
    sleep 0.25
  done
  keep_work=1
  echo "$name did not start listening; see $work" >&2
  exit 1
}

mock_port="$(free_port)"
gateway_port="$(free_port)"

"$binary" mock-openai --port "$mock_port" --record-dir "$record" >"$work/mock-openai.log" 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$mock_port/v1/models" mock-openai "${pids[0]}"

ENV=dev OPENAI_BASE_URL="http://127.0.0.1:$mock_port/v1" OPENAI_API_KEY=sk-test-conformance MEDIA_DIR="$work/media" \
  "$binary" serve --port "$gateway_port" >"$work/gateway.log" 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$gateway_port/" gateway "${pids[1]}"

# call FUNCTION JSON: prints the answer; fails unless 200 (or the gateway is gone).
call() {
  local answer status
  answer="$(curl -sS --max-time 120 -X POST -H 'Content-Type: application/json' -H "X-User-Id: conformance-user-$round" \
    --data "$2" -w '\n%{http_code}' "http://127.0.0.1:$gateway_port/functions/v1/$1")"
  status="${answer##*$'\n'}"
  answer="${answer%$'\n'*}"
  if [ "$status" != 200 ] || ! kill -0 "${pids[1]}" 2>/dev/null; then
    keep_work=1
    echo "$1 answered $status (round $round): $answer" >&2
    exit 1
  fi
  echo "$1: 200 (round $round)" >&2
  printf '%s' "$answer"
}

for round in $(seq 1 "${ROUNDS:-1}"); do
  story="$(call story-generation '{"hero": {"name": "Mia", "primary_trait": "brave", "secondary_trait": "curious",
    "appearance": "red hair and a green raincoat", "special_ability": "talks to birds", "age": 7},
    "event": {"type": "custom", "data": {"title": "The lost map", "description": "Mia finds an old map in the attic",
    "tone": "adventurous", "keywords": ["map", "attic"]}}, "target_duration": 120, "language": "en"}')"
  story_id="$(jq -r '.story_id' <<<"$story")"
  story_content="$(jq -c '.story.content' <<<"$story")"

  call extract-scenes "{\"story_content\": $story_content, \"target_scene_count\": 3}" >/dev/null

  call audio-synthesis '{"text": "Once upon a time, Mia found a map. It led to the old oak tree.", "language": "en",
    "voice": "coral", "speed": 1.0}' >/dev/null

  avatar="$(call avatar-generation '{"hero_id": "hero-mia", "prompt": "A brave girl with red hair in a green raincoat",
    "style": "vivid", "quality": "hd", "size": "1024x1024"}')"
  generation_id="$(jq -r '.generation_id' <<<"$avatar")"

  call scene-illustration "{\"story_id\": \"$story_id\", \"scene_number\": 1, \"prompt\": \"Mia unrolls the map under the old oak\",
    \"hero_generation_id\": \"$generation_id\", \"style\": \"vivid\"}" >/dev/null
done

# Stop both, so every recorded file is complete, then check that each endpoint was exercised.
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
pids=()
for endpoint in chat.completions audio.speech images.generations images.edits moderations; do
  if ! ls "$record"/*-"$endpoint".json >/dev/null 2>&1; then
    keep_work=1
    echo "no request to $endpoint was recorded" >&2
    exit 1
  fi
done

"$python" scripts/openai-conformance/validate.py "$record" || { keep_work=1; exit 1; }
