#!/usr/bin/env bash
# Configures and builds pwave (default CPU preset) into ./build. Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
[ -f build/CMakeCache.txt ] && generator=()
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$(nproc)"
