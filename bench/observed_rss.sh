#!/usr/bin/env bash
# Peak resident memory per rank of an fwi run that reads its observed data from a file:
# inputs/fwi_marmousi.yaml with 64 shots (step 144 m), whose data (141 MiB float32) are first
# modelled into out/observed_rss/obs64/receivers.npy; then the first two iterations of the
# inversion (3 Hz stage) run on 1..N ranks under /usr/bin/time -v.
#   bash bench/observed_rss.sh [max_ranks=2] [pwave run options, e.g. --set execution.shot_batch=1]
# (after bash ci/build.sh; PWAVE=path/to/pwave measures another build)
set -euo pipefail
cd "$(dirname "$0")/.."
max=${1:-2}
shift || true
pwave=${PWAVE:-build/bin/pwave}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
dir=out/observed_rss
mkdir -p "$dir"
# The decks live two folders below the repository, like inputs/ one: fix the model path.
sources='x: {start: 72.0, step: 144.0, count: 64}'
sed -e 's#\.\./\.\./shared/#../../../shared/#' -e "s#x: {start: 288.0, step: 576.0, count: 16}#$sources#" \
  inputs/fwi_marmousi.yaml > "$dir/base.yaml"
# Forward deck: the true model as model, no inversion sections.
awk '/^true_model:|^inversion:|^gradient:/{skip=1; next} skip && /^[a-z]/{skip=0} !skip' "$dir/base.yaml" |
  sed -e 's/^task: fwi/task: forward/' -e '/smooth: 300.0/d' -e "s#out/fwi_marmousi#$dir/obs64#" \
  > "$dir/forward64.yaml"
awk '/^true_model:/{skip=1; print "observed: {file: obs64/receivers.npy}"; next} skip && /^[a-z]/{skip=0} !skip' \
  "$dir/base.yaml" > "$dir/fwi64.yaml"
[ -f "$dir/obs64/receivers.npy" ] || "$pwave" run "$dir/forward64.yaml" --no-plots --quiet
for n in $(seq 1 "$max"); do
  rm -f "$dir"/time.*
  mpiexec -n "$n" --oversubscribe sh -c 'exec /usr/bin/time -v -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
    "$dir/time" "$pwave" run "$dir/fwi64.yaml" --no-plots --quiet --stop-after 2 \
    --set output.directory="$dir/fwi_np$n" "$@" 2>/dev/null
  for f in "$dir"/time.*; do
    echo "$n rank(s), rank ${f##*.}: peak RSS $(awk '/Maximum resident/{printf "%.0f MiB", $NF / 1024}' "$f")"
  done
done
