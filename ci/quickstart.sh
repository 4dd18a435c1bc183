#!/usr/bin/env bash
# One command from a fresh machine: dependencies, build, and the default deck.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install_deps.sh
bash ci/build.sh
./build/bin/pwave run inputs/fwi_small.yaml
