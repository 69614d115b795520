#!/usr/bin/env bash
# Install what the test suite needs on a fresh Debian/Ubuntu machine: Chromium and Java for the
# browser and HTML-validator tests, the npm packages (lunr.js, axe-core, the Nu validator) and
# confsite with its test extra. Safe to re-run: it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=()
command -v chromium >/dev/null 2>&1 || apt_packages+=(chromium)
command -v java >/dev/null 2>&1 || apt_packages+=(default-jre-headless)
command -v npm >/dev/null 2>&1 || apt_packages+=(nodejs npm)
if ((${#apt_packages[@]})); then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${apt_packages[@]}"
fi

npm ci --no-audit --no-fund --loglevel=error
python3 -m pip install --quiet -e '.[test]'
