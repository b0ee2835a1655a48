#!/usr/bin/env bash
# Sets up, builds and runs the gateway in dev mode with embedded defaults: no Firebase project, no OpenAI key, no
# Redis. The binary stays at .build/debug/storygate, so `.build/debug/storygate mint-token --uid alice` from another
# shell answers at once (`swift run` would check the whole build each time).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh dev
swift build --product storygate
ENV=dev exec .build/debug/storygate serve "$@"
