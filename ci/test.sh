#!/usr/bin/env bash
# The test command. Stages, each timed (summary at the end); build folders are reused:
#  1. default build (Debian Kokkos 3.4, Serial) into build/, the whole suite with ctest;
#  2. install it into build/install-prefix and build + run examples/forward_and_gradient
#     against the installed CMake package (build/example);
#  3. the propagation tests with the GPU code paths (PWAVE_HOST_CELLWISE: host backends launch
#     the cell-wise kernels GPUs use) in build-cellwise, so that code is tested without a GPU
#     (one GoogleTest shard per core); a test-only build, nothing in it benchmarked, so it is
#     compiled at -O2 (elastic_loops_order8 compiles in 121 s instead of -O3's 171 s);
#  4. upstream Kokkos 4.6.01 with OpenMP (ci/build_kokkos.sh openmp) into build-openmp and the
#     suite but test_physics (kernel arithmetic, backend-independent) on 2 OpenMP threads, a
#     test-only build at -O2 too;
#  5. the library and the pwave driver compiled by nvcc for Hopper against Kokkos 4.6.01 with
#     CUDA (ci/build_kokkos.sh cuda) into build-cuda-check: a change that breaks the GPU build
#     fails. Compile only, so the host code is compiled at -O0 (elastic_loops_order8 129 s
#     instead of -O1's 141 s and -O3's 222 s; nvcc's -O is the host compiler's, the device code is optimised as
#     always); its own folder, so that the cuda-hopper preset's build-cuda keeps -O3.
# Stages 4-5 need the archives of ../shared/deps (PWAVE_DEPS_DIR) and stage 5 needs nvcc; a
# stage that cannot run is skipped with a message, or fails when PWAVE_CI_STRICT=1 (.ci/run).
# Arguments go to the first ctest (e.g. -R Cli). PWAVE_CI_STAGES="default example" runs a subset.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
stages=${PWAVE_CI_STAGES:-default example cellwise openmp cuda}
deps=${PWAVE_DEPS_DIR:-$(pwd)/../shared/deps}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

timings=()
timed() {  # timed LABEL COMMAND...: runs it, records its wall time
  local label=$1 t0=$SECONDS
  shift
  echo "ci/test.sh: == $label"
  "$@"
  timings+=("$(printf '%-34s %5d s' "$label" $((SECONDS - t0)))")
}
summary() {
  echo "ci/test.sh: stage times (wall clock, $jobs cores)"
  printf '  %s\n' "${timings[@]}"
}
trap summary EXIT
wants() { [[ " $stages " == *" $1 "* ]]; }
skip() {  # skip STAGE REASON
  if [ "${PWAVE_CI_STRICT:-0}" = 1 ]; then
    echo "ci/test.sh: stage $1 cannot run: $2 (PWAVE_CI_STRICT=1)" >&2
    exit 1
  fi
  echo "ci/test.sh: stage $1 skipped: $2"
}
configure() {  # configure SOURCE BUILD CMAKE_ARGS...: the generator is chosen the first time only
  local src=$1 dir=$2
  shift 2
  local g=("${generator[@]}")
  [ -f "$dir/CMakeCache.txt" ] && g=()
  mkdir -p "$dir"
  cmake -S "$src" -B "$dir" "${g[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; return 1; }
  grep -E "pwave: Kokkos|Found pwave" "$dir/configure.log" || true
}
kokkos() {  # kokkos FLAVOUR: ci/build_kokkos.sh, its log in build-deps/ (shown on failure)
  mkdir -p build-deps
  bash ci/build_kokkos.sh "$1" >"build-deps/kokkos-$1.log" 2>&1 ||
    { tail -50 "build-deps/kokkos-$1.log"; return 1; }
  tail -2 "build-deps/kokkos-$1.log" | head -1
}

# 1. Default build and the whole suite.
if wants default; then
  timed "default: build" bash ci/build.sh
  timed "default: ctest -j$jobs" ctest --test-dir build --output-on-failure -j "$jobs" "$@"
fi

# 2. Install, then the example as a separate project using find_package(pwave).
if wants example; then
  install_prefix=$(pwd)/build/install-prefix
  example_stage() {
    rm -rf "$install_prefix"
    cmake --install build --prefix "$install_prefix" >/dev/null
    configure examples/forward_and_gradient build/example -DCMAKE_PREFIX_PATH="$install_prefix"
    cmake --build build/example -j "$jobs"
    build/example/forward_and_gradient
  }
  timed "install + example" example_stage
fi

# 3. The GPU (cell-wise) kernel paths on the host.
if wants cellwise; then
  cellwise_stage() {
    configure . build-cellwise -DPWAVE_HOST_CELLWISE=ON -DPWAVE_ENABLE_BENCH=OFF \
      -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG"
    cmake --build build-cellwise -j "$jobs" --target test_propagation
    # One GoogleTest shard per core (the suite takes ~5 minutes on one); each shard's log is
    # shown if it fails.
    local i pids=() failed=0
    for ((i = 0; i < jobs; i++)); do
      GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$i build-cellwise/tests/test_propagation \
        >"build-cellwise/test_propagation.shard$i.log" 2>&1 &
      pids+=($!)
    done
    for ((i = 0; i < jobs; i++)); do
      if wait "${pids[$i]}"; then
        tail -1 "build-cellwise/test_propagation.shard$i.log"
      else
        cat "build-cellwise/test_propagation.shard$i.log"
        failed=1
      fi
    done
    return $failed
  }
  timed "cellwise: build + test_propagation" cellwise_stage
fi

# 4. Upstream Kokkos with OpenMP: the suite but physics on 2 threads. ctest -j2 runs two tests of 2
#    threads each on 2 cores: passive waiting keeps idle threads from spinning.
if wants openmp; then
  if [ ! -f "$deps/kokkos-4.6.01.tar.gz" ]; then
    skip openmp "no Kokkos archives in $deps"
  else
    timed "openmp: Kokkos + Kernels" kokkos openmp
    kokkos_omp=$(pwd)/build-deps/kokkos-openmp
    # Every suite but physics (the kernels' arithmetic: the same on any host backend, tested in
    # stage 1; its two elastic files were a fifth of the build); no benchmarks (built in stage 1).
    # At -O2, as stage 3 (a test-only build): there the tests that hold the host lines against
    # the cell-wise kernels allow 4 ulp instead of the bits (PWAVE_TEST_BITWISE_PATHS off,
    # tests/CMakeLists.txt), so this stage also runs them as a RelWithDebInfo build would.
    openmp_suites="core;grid;acquisition;misfit;propagation;inversion;io;driver"
    openmp_build() {
      configure . build-openmp -DKokkos_ROOT="$kokkos_omp" -DKokkosKernels_ROOT="$kokkos_omp" \
        -DPWAVE_ENABLE_BENCH=OFF -DPWAVE_TEST_SUITES="$openmp_suites" \
        -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG"
      cmake --build build-openmp -j "$jobs"
    }
    timed "openmp: build" openmp_build
    timed "openmp: ctest -j$jobs, 2 threads" env OMP_NUM_THREADS=2 OMP_PROC_BIND=false \
      OMP_WAIT_POLICY=passive ctest --test-dir build-openmp --output-on-failure -j "$jobs"
  fi
fi

# 5. CUDA compile (no GPU needed): the library and the driver, not the tests.
if wants cuda; then
  command -v nvcc >/dev/null || [ ! -x /usr/local/cuda/bin/nvcc ] || export PATH=/usr/local/cuda/bin:$PATH
  if ! command -v nvcc >/dev/null; then
    skip cuda "no nvcc (CUDA toolkit) found"
  elif [ ! -f "$deps/kokkos-4.6.01-cuda13.patch" ]; then
    skip cuda "no Kokkos archives and CUDA 13 patch in $deps"
  else
    timed "cuda: Kokkos + Kernels" kokkos cuda
    kokkos_cuda=$(pwd)/build-deps/kokkos-cuda
    cuda_build() {
      configure . build-cuda-check -DKokkos_ROOT="$kokkos_cuda" -DKokkosKernels_ROOT="$kokkos_cuda" \
        -DCMAKE_CXX_COMPILER="$kokkos_cuda/bin/nvcc_wrapper" -DPWAVE_ENABLE_NATIVE=OFF \
        -DPWAVE_ENABLE_TESTS=OFF -DPWAVE_ENABLE_BENCH=OFF -DCMAKE_CXX_FLAGS_RELEASE="-O0 -DNDEBUG"
      cmake --build build-cuda-check -j "$jobs" --target pwave pwave_cli
    }
    timed "cuda: build pwave + driver (nvcc)" cuda_build
  fi
fi
