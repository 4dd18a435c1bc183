#!/usr/bin/env bash
# `mpirun -np N pwave run` end to end: the FWI deck gives the same final model, bit for bit, on
# 1, 2 and 3 ranks, and after a stop on 2 ranks resumed on 3, and from the observed data file
# with one shot per launch; a deck that only one rank cannot use ends every rank with exit code
# 2; task gradient gives the same gradient on 1 and 3 ranks and with shot_batch 1; a non-finite
# observed value seen by one rank ends every rank with exit code 2.
#   cli_ranks.sh MPIEXEC PWAVE SOURCE_DIR [mpiexec flags...]
set -u
mpiexec=$1 pwave=$2 src=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
deck="$src/inputs/fwi_small.yaml"
common=(--no-plots --quiet --set inversion.iterations=3 --set inversion.batch_size=4)
for n in 1 2 3; do
  "$mpiexec" -n "$n" "$@" "$pwave" run "$deck" "${common[@]}" --set output.directory=out$n \
    || { echo "FAIL: $n ranks exited $?"; exit 1; }
done
for n in 2 3; do
  cmp -s out1/model_final.npy out$n/model_final.npy \
    || { echo "FAIL: $n ranks give another final model than 1 rank"; exit 1; }
  cmp -s <(cut -d, -f1-3 out1/history.csv) <(cut -d, -f1-3 out$n/history.csv) \
    || { echo "FAIL: $n ranks give another misfit history than 1 rank"; exit 1; }
done
# The same data read from out1's observed.npy (memory-mapped, each rank staging only its shots)
# on 2 ranks, one shot per launch: the same final model.
awk '/^true_model:/{skip=1} skip && /^$/{skip=0} !skip' "$deck" > fromfile.yaml
echo "observed: {file: $work/out1/observed.npy}" >> fromfile.yaml
"$mpiexec" -n 2 "$@" "$pwave" run fromfile.yaml "${common[@]}" --set output.directory=outo \
  --set execution.shot_batch=1 || { echo "FAIL: fwi from the observed file exited $?"; exit 1; }
cmp -s out1/model_final.npy outo/model_final.npy \
  || { echo "FAIL: fwi from the observed file gives another final model"; exit 1; }
cmp -s <(cut -d, -f1-3 out1/history.csv) <(cut -d, -f1-3 outo/history.csv) \
  || { echo "FAIL: fwi from the observed file gives another misfit history"; exit 1; }
# Shots with their own receivers (a spread moving with the source, cut at the model's edges:
# different receiver counts per shot): the same final model on 1 and 3 ranks.
ragged=(--set acquisition.receivers.relative_to_source=true --set acquisition.receivers.outside=drop)
for n in 1 3; do
  "$mpiexec" -n "$n" "$@" "$pwave" run "$deck" "${common[@]}" "${ragged[@]}" \
    --set output.directory=outs$n || { echo "FAIL: ragged shots on $n ranks exited $?"; exit 1; }
done
cmp -s outs1/model_final.npy outs3/model_final.npy \
  || { echo "FAIL: 3 ranks give another final model than 1 rank for ragged shots"; exit 1; }
cmp -s out1/model_final.npy outs1/model_final.npy \
  && { echo "FAIL: the ragged geometry did not change the inversion"; exit 1; }
# Interrupted on 2 ranks, resumed on 3: the same final model as the uninterrupted run.
"$mpiexec" -n 2 "$@" "$pwave" run "$deck" "${common[@]}" --set output.directory=outr --stop-after 1 \
  || { echo "FAIL: the interrupted run exited $?"; exit 1; }
[ ! -e outr/model_final.npy ] || { echo "FAIL: an interrupted run wrote model_final.npy"; exit 1; }
"$mpiexec" -n 3 "$@" "$pwave" run "$deck" "${common[@]}" --set output.directory=outr --resume \
  || { echo "FAIL: the resumed run exited $?"; exit 1; }
cmp -s out1/model_final.npy outr/model_final.npy \
  || { echo "FAIL: resuming on another rank count changed the final model"; exit 1; }
# task: gradient split over ranks: the same gradient, bit for bit, as one rank.
"$pwave" run "$src/inputs/forward_small.yaml" --no-plots --quiet --set output.directory=outf \
  || { echo "FAIL: forward_small exited $?"; exit 1; }
for n in 1 3; do
  "$mpiexec" -n "$n" "$@" "$pwave" run "$src/inputs/gradient_small.yaml" --no-plots --quiet \
    --set observed.file="$work/outf/receivers.npy" --set output.directory=outg$n \
    || { echo "FAIL: gradient on $n ranks exited $?"; exit 1; }
done
cmp -s outg1/gradient.npy outg3/gradient.npy \
  || { echo "FAIL: 3 ranks give another gradient than 1 rank"; exit 1; }
cmp -s outg1/synthetic.npy outg3/synthetic.npy \
  || { echo "FAIL: 3 ranks give other synthetic traces than 1 rank"; exit 1; }
"$mpiexec" -n 2 "$@" "$pwave" run "$src/inputs/gradient_small.yaml" --no-plots --quiet \
  --set observed.file="$work/outf/receivers.npy" --set output.directory=outgb \
  --set execution.shot_batch=1 || { echo "FAIL: gradient with shot_batch 1 exited $?"; exit 1; }
cmp -s outg1/gradient.npy outgb/gradient.npy \
  || { echo "FAIL: shot_batch 1 on 2 ranks gives another gradient"; exit 1; }
# A value that is not finite in the last shot: by default its trace is left out and counted
# over the ranks (the last rank stages that shot); with dead_traces: keep (checked by the last
# rank only) exit 2 on every rank, one message naming the key.
cp outf/receivers.npy inf.npy  # float32, little-endian: +inf is 00 00 80 7f, 100th value from the end
printf '\000\000\200\177' | dd of=inf.npy bs=1 seek=$(( $(stat -c %s inf.npy) - 400 )) conv=notrunc 2>/dev/null
"$mpiexec" -n 2 "$@" "$pwave" run "$src/inputs/gradient_small.yaml" --no-plots \
  --set observed.file="$work/inf.npy" --set output.directory=outdead 2> errdead.txt \
  || { echo "FAIL: an infinite observed value with dead_traces: exclude failed"; cat errdead.txt; exit 1; }
grep -q "warning: observed: 1 dead traces" errdead.txt \
  || { echo "FAIL: no warning counting the dead trace:"; cat errdead.txt; exit 1; }
"$mpiexec" -n 2 "$@" "$pwave" run "$src/inputs/gradient_small.yaml" --no-plots --quiet \
  --set observed.file="$work/inf.npy" --set output.directory=outinf \
  --set gradient.selection.dead_traces=keep 2> errinf.txt
code=$?
[ "$code" = 2 ] || { echo "FAIL: an infinite observed value gave exit $code, not 2"; cat errinf.txt; exit 1; }
grep -q "'observed.file': .*inf.npy: value .* is not finite" errinf.txt \
  || { echo "FAIL: no error naming observed.file:"; cat errinf.txt; exit 1; }
[ "$(grep -c "pwave: error:" errinf.txt)" = 1 ] || { echo "FAIL: the error was not printed once:"; cat errinf.txt; exit 1; }
sed 's/order: 4/order: 5/' "$deck" > bad.yaml
cp "$deck" good.yaml
start=$(date +%s)
"$mpiexec" -n 2 "$@" sh -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}};
  if [ "$r" = 1 ]; then exec "$0" run bad.yaml --no-plots; else exec "$0" run good.yaml --no-plots --set output.directory=outx; fi' \
  "$pwave" 2> err.txt
code=$?
elapsed=$(( $(date +%s) - start ))
[ "$code" -ne 0 ] || { echo "FAIL: a bad deck on rank 1 did not fail the job"; exit 1; }
[ "$elapsed" -lt 30 ] || { echo "FAIL: the failing job took ${elapsed}s"; exit 1; }
grep -q "physics.order" err.txt || { echo "FAIL: no error naming physics.order:"; cat err.txt; exit 1; }
[ "$(grep -c "pwave: error:" err.txt)" = 1 ] || { echo "FAIL: the error was not printed once:"; cat err.txt; exit 1; }
echo "1 passed, 0 failed"
