#!/usr/bin/env bash
# Installs the Debian 12 packages StoryGate builds, runs and tests with, when they are missing.
#   ./scripts/setup.sh dev   what building and running dev mode needs (scripts/dev.sh)
#   ./scripts/setup.sh       that, and what the test suite needs (scripts/test.sh)
# Needs root or sudo the first time; a no-op once everything is installed.
set -euo pipefail

# Building (pkg-config, the OpenSSL and libcurl headers), reaching Google and OpenAI (ca-certificates), and the
# README's commands (curl, jq).
packages=(pkg-config libssl-dev libcurl4-openssl-dev ca-certificates curl jq)
case "${1:-test}" in
  dev) ;;
  # redis-server for the shared stores' tests; python3-venv for schemathesis and moto; mpg123 decodes the offline
  # provider's MP3 in a test; docker-compose (1.29) checks deploy/docker-compose.yml.
  test) packages+=(redis-server python3 python3-venv mpg123 docker-compose) ;;
  *) echo "usage: $0 [dev|test]" >&2; exit 64 ;;
esac
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
