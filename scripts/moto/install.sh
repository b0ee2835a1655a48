#!/usr/bin/env bash
# Installs moto_server (PyPI moto[server], pinned in requirements.txt) into .build/moto-venv for the S3 media store
# tests, which start it themselves (Sources/TestSupport/MotoServer.swift). A no-op when the pinned version is there.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=.build/moto-venv
pinned="$(sed -n 's/^moto\[server\]==//p' scripts/moto/requirements.txt)"
if [ ! -x "$venv/bin/moto_server" ] || [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("moto"))' 2>/dev/null)" != "$pinned" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/moto/requirements.txt
fi
