#!/usr/bin/env bash
# Builds upstream Kokkos 4.6.01 + Kokkos Kernels 4.6.02 (BLAS only, no default ETI) from the
# release archives in ../shared/deps into build-deps/kokkos-<flavour> (ignored by git):
#   openmp  Serial + OpenMP, the system C++ compiler
#   cuda    Serial + CUDA for Hopper (Kokkos_ARCH_HOPPER90), Kokkos patched for CUDA 13
#           (kokkos-4.6.01-cuda13.patch), compiled with Kokkos' nvcc_wrapper
# Usage: bash ci/build_kokkos.sh openmp|cuda [prefix]. Prints the prefix on its last line.
# Idempotent: does nothing when the prefix already holds an install of the same flavour,
# versions and patch. PWAVE_DEPS_DIR overrides the archive folder (default ../shared/deps
# next to the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
flavour=${1:?usage: ci/build_kokkos.sh openmp|cuda [prefix]}
prefix=${2:-$repo/build-deps/kokkos-$flavour}
deps=${PWAVE_DEPS_DIR:-$repo/../shared/deps}
kokkos=kokkos-4.6.01
kernels=kokkos-kernels-4.6.02
patch_file=$deps/kokkos-4.6.01-cuda13.patch
jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

case "$flavour" in
  openmp) backend=(-DKokkos_ENABLE_OPENMP=ON) ;;
  cuda) backend=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ARCH_HOPPER90=ON) ;;
  *) echo "ci/build_kokkos.sh: unknown flavour '$flavour' (openmp or cuda)" >&2; exit 2 ;;
esac
for f in "$deps/$kokkos.tar.gz" "$deps/$kernels.tar.gz"; do
  [ -f "$f" ] || { echo "ci/build_kokkos.sh: $f missing (set PWAVE_DEPS_DIR)" >&2; exit 2; }
done

# What the prefix must hold; written last, so an interrupted build is redone.
stamp="$flavour $kokkos $kernels"
[ "$flavour" = cuda ] && stamp="$stamp $(sha256sum "$patch_file" | cut -c1-16)"
stamp_file=$prefix/.pwave-kokkos-flavour
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ]; then
  echo "ci/build_kokkos.sh: $prefix already holds $stamp"
  echo "$prefix"
  exit 0
fi

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
work=$(mktemp -d "${TMPDIR:-/tmp}/pwave-kokkos-$flavour.XXXXXX")
trap 'rm -rf "$work"' EXIT
rm -rf "$prefix"
tar xzf "$deps/$kokkos.tar.gz" -C "$work"
tar xzf "$deps/$kernels.tar.gz" -C "$work"

compiler=()
if [ "$flavour" = cuda ]; then
  (cd "$work/$kokkos" && patch -p1 --quiet <"$patch_file")
  compiler=(-DCMAKE_CXX_COMPILER="$work/$kokkos/bin/nvcc_wrapper")
fi
cmake -S "$work/$kokkos" -B "$work/bk" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 "${compiler[@]}" \
  -DKokkos_ENABLE_SERIAL=ON "${backend[@]}" >"$work/kokkos-configure.log" ||
  { cat "$work/kokkos-configure.log"; exit 1; }
cmake --build "$work/bk" -j "$jobs"
cmake --install "$work/bk" >/dev/null

# Kokkos Kernels and pwave use the installed wrapper (it is the patched one for CUDA).
[ "$flavour" = cuda ] && compiler=(-DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper")
cmake -S "$work/$kernels" -B "$work/bkk" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 "${compiler[@]}" \
  -DKokkos_ROOT="$prefix" -DKokkosKernels_ENABLED_COMPONENTS=BLAS \
  -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_ENABLE_TESTS=OFF \
  >"$work/kernels-configure.log" || { cat "$work/kernels-configure.log"; exit 1; }
cmake --build "$work/bkk" -j "$jobs"
cmake --install "$work/bkk" >/dev/null

echo "$stamp" >"$stamp_file"
echo "ci/build_kokkos.sh: installed $stamp into $prefix"
echo "$prefix"
