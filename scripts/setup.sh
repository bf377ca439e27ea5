#!/usr/bin/env bash
# Installs the Debian packages gridops needs, if any are missing. Idempotent; needs root
# (or sudo) only when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake git pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libhwy-dev libdnnl-dev
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libcli11-dev libstb-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
