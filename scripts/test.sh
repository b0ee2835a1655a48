#!/usr/bin/env bash
# Sets up and runs the whole test suite (Swift Testing, in parallel; the tests start their own local servers).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
swift build --build-tests
swift test --skip-build
