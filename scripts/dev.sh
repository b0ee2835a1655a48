#!/usr/bin/env bash
# Sets up and runs the gateway in dev mode with embedded defaults: no Firebase project, no OpenAI key, no Redis.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
ENV=dev exec swift run storygate serve "$@"
