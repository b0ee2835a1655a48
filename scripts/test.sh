#!/usr/bin/env bash
# Sets up and runs the whole test suite:
#  1. the Swift Testing suites (in parallel; they start their own local servers: x509 cert server, fake OpenAI,
#     redis-server, moto_server from .build/moto-venv, ...);
#  2. the cross-check of token verification against the reference verifiers (firebase-admin, google-auth);
#  3. the fleet: two gateway processes sharing one redis-server (one per-user limit across both, Redis killed and
#     restarted), then sharing a three-primary Redis Cluster and an S3 bucket (moto_server): media made through one
#     gateway served byte-identical by both;
#  4. the generations: two gateway processes sharing a redis-server, then a Redis Cluster: an Idempotency-Key replayed
#     across both (one OpenAI call), concurrent requests joining one run, jobs waited for on the other replica, a
#     SIGKILLed replica's job reclaimed, 1,000 jobs over both;
#  5. the real binary on a real SIGTERM: in-flight calls complete, new connections are refused, exit 0;
#  6. OpenAI conformance: the gateway against `storygate mock-openai`, every request body it sent validated
#     against the official OpenAI API description (../shared/openai/openapi.yaml).
#  7. schemathesis: a live dev-mode gateway fuzzed against openapi.yaml (no 5xx, no answer the document forbids);
#  8. the release build, as users run it: the five functions ten times over, conformance-checked again, and
#     schemathesis again.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/moto/install.sh
swift build --build-tests
# At most 8 tests at once: each starts real servers (redis-server, Redis Clusters, moto_server, gateways), and on a
# 2-core machine several hundred at once starve each other past their deadlines.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=8 swift test --skip-build --skip 'ProxyStreamingTests|S3MediaStreamingTests'
# The suites that bound the process's peak memory while 50 MB stream through a gateway run apart: the other suites'
# servers and fuzzers share the process, and their allocations would count in the figure.
swift test --skip-build --filter 'ProxyStreamingTests|S3MediaStreamingTests'
./scripts/crosscheck/run.sh .build/debug/storygate
./scripts/fleet/run.sh .build/debug/storygate
./scripts/generations/run.sh .build/debug/storygate
./scripts/lifecycle/run.sh .build/debug/storygate
./scripts/openai-conformance/run.sh --self-test
./scripts/openai-conformance/run.sh .build/debug/storygate
./scripts/schemathesis/run.sh .build/debug/storygate
swift build -c release --product storygate
ROUNDS=10 ./scripts/openai-conformance/run.sh .build/release/storygate
./scripts/schemathesis/run.sh .build/release/storygate
