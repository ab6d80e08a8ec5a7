#!/usr/bin/env bash
# Installs what is missing, builds the app, and opens it (on SCENARIO.json if given).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target shardscope
exec build/shardscope "$@"
