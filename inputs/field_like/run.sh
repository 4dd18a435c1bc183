#!/usr/bin/env bash
# The field-like example, end to end (inputs/field_like/README.md). From the repository root:
#   bash inputs/field_like/run.sh [PWAVE]      # PWAVE defaults to build/bin/pwave
# Makes the data (make_data.py), inverts them (fwi.yaml), and prints the model error before
# and after against the true model (report.py). Needs python3 with numpy, and
# ../shared/data/marmousi_vp.bin beside the repository.
set -euo pipefail
cd "$(dirname "$0")/../.."
pwave=${1:-build/bin/pwave}
python=${PYTHON:-python3}
t0=$SECONDS
"$python" inputs/field_like/make_data.py "$pwave"
t1=$SECONDS
"$pwave" run inputs/field_like/fwi.yaml
t2=$SECONDS
"$python" inputs/field_like/report.py
echo "run.sh: data $((t1 - t0)) s, inversion $((t2 - t1)) s (wall clock)"
