#!/usr/bin/env bash
# The test command: builds pwave if needed and runs the whole suite with ctest, in parallel;
# then runs the propagation tests again with the GPU code paths (PWAVE_HOST_CELLWISE: host
# backends launch the cell-wise kernels GPUs use) so that code is tested without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"

generator=()
command -v ninja >/dev/null && [ ! -f build-cellwise/CMakeCache.txt ] && generator=(-G Ninja)
cmake -S . -B build-cellwise "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DPWAVE_HOST_CELLWISE=ON -DPWAVE_ENABLE_BENCH=OFF >/dev/null
cmake --build build-cellwise -j "$(nproc)" --target test_propagation
build-cellwise/tests/test_propagation
