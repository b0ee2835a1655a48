#!/usr/bin/env bash
# Installs the Debian 12 packages StoryGate builds, runs and tests with, when they are missing.
# Needs root or sudo the first time; a no-op once everything is installed.
set -euo pipefail

# mpg123 decodes the offline provider's MP3 in a test; docker-compose (1.29) checks deploy/docker-compose.yml.
packages=(pkg-config libssl-dev libcurl4-openssl-dev ca-certificates curl jq redis-server python3 python3-venv mpg123 docker-compose)
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
