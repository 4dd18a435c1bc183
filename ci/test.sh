#!/usr/bin/env bash
# The test command: builds pwave if needed and runs the whole suite with ctest, in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
