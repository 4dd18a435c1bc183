#!/usr/bin/env bash
# FWI scaling over MPI ranks on this machine: time per iteration on 1..N ranks, parallel
# efficiency T1 / (N TN), and the share of an iteration spent in the cross-rank sums.
#   bash bench/run_scaling.sh [max_ranks=2] [bench options...]   (after bash ci/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
max=${1:-2}
shift || true
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
for n in $(seq 1 "$max"); do
  mpiexec -n "$n" --oversubscribe build/bin/bench_fwi_scaling --csv "$out/$n.csv" "$@" >/dev/null 2>&1
done
python3 - "$out" "$max" <<'PY'
import csv, sys
out, nmax = sys.argv[1], int(sys.argv[2])
rows = {n: next(csv.DictReader(open(f"{out}/{n}.csv"))) for n in range(1, nmax + 1)}
t1 = float(rows[1]["seconds_per_iteration"])
print(f"{'ranks':>5} {'s/iteration':>12} {'efficiency':>11} {'reduce share':>13}")
for n, r in rows.items():
    t = float(r["seconds_per_iteration"])
    print(f"{n:>5} {t:>12.3f} {t1 / (n * t):>11.2f} {100 * float(r['reduce_share']):>12.2f}%")
PY
