#!/usr/bin/env bash
# Runs crosscheck.py (ID tokens) and crosscheck_app_check.py (App Check) in their virtualenv (under .build/, which git ignores) against a built storygate.
set -euo pipefail
# The admin listener takes a free port: other gateways may run on this machine.
export ADMIN_PORT=0
cd "$(dirname "$0")/../.."
binary="${1:-.build/debug/storygate}"
venv=.build/crosscheck-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/crosscheck/requirements.txt
fi
"$venv/bin/python" scripts/crosscheck/crosscheck.py --binary "$binary" --mutations "${CROSSCHECK_MUTATIONS:-400}"
exec "$venv/bin/python" scripts/crosscheck/crosscheck_app_check.py --binary "$binary" --mutations "${CROSSCHECK_MUTATIONS:-200}"
