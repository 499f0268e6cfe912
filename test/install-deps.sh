#!/bin/bash
# Install the Debian 12 packages tablescan_fdw needs to build, test and run
# its demo.  Idempotent; needs root (or sudo).
set -euo pipefail

PKGS=(build-essential pkg-config postgresql-15 postgresql-server-dev-15 postgresql-common
      libavro-dev libcjson-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libbz2-dev
      libroaring-dev libcurl4-openssl-dev libssl-dev libxml2-dev libcmocka-dev python3 clang-14 libclang-rt-14-dev)

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm (DuckDB differential tests) may come from another packaging
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
