#!/usr/bin/env bash
# Installs the Debian packages ShardScope builds, tests and runs with (and validates its desktop files with);
# only what dpkg does not already have. python3 reads the CLI tests' JSON, CSV and trace output (its json and csv modules).
set -euo pipefail
packages=(
  cmake g++ make pkg-config
  libimgui-dev libglfw3-dev libepoxy-dev libstb-dev
  nlohmann-json3-dev libcli11-dev catch2 libbenchmark-dev
  xvfb xauth libgl1-mesa-dri fonts-dejavu-core
  clang libclang-rt-14-dev
  desktop-file-utils appstream
  python3
)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
