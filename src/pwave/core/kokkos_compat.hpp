#pragma once
// One place for what differs between Kokkos 3.4 (Debian), 4.x and 5.x.
// See ../shared/docs/KOKKOS.md for the rules this header encodes.

#include <Kokkos_Core.hpp>
#include <cmath>

#ifndef KOKKOS_CLASS_LAMBDA
#define KOKKOS_CLASS_LAMBDA [ =, *this ] KOKKOS_FUNCTION
#endif

/// Fully unrolls the next loop (stencil radii are compile-time constants). Without it GCC keeps
/// the tap loop, which stops it vectorising the enclosing loop over x. nvcc's host pass gets
/// none: its front end warns about `GCC unroll` and the host compiler about `unroll`.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__clang__)
#define PWAVE_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define PWAVE_UNROLL
#elif defined(__GNUC__)
#define PWAVE_UNROLL _Pragma("GCC unroll 16")
#else
#define PWAVE_UNROLL
#endif

/// Restrict-qualified pointers and a vectorisation hint for host row loops.
#if defined(__GNUC__) || defined(__clang__) || defined(__CUDACC__)
#define PWAVE_RESTRICT __restrict__
#else
#define PWAVE_RESTRICT
#endif
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define PWAVE_SIMD _Pragma("GCC ivdep")
#elif defined(__clang__)
#define PWAVE_SIMD _Pragma("clang loop vectorize(enable)")
#else
#define PWAVE_SIMD
#endif

namespace pwave {

/// pi, defined here because Kokkos 3.4 has no Kokkos::numbers.
constexpr double pi = 3.14159265358979323846;

namespace math {
#if KOKKOS_VERSION >= 30700
using Kokkos::abs;
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::fma;
using Kokkos::isfinite;
using Kokkos::log;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::isfinite;
using Kokkos::Experimental::log;
using Kokkos::Experimental::sqrt;
template <class T>
KOKKOS_INLINE_FUNCTION T abs(T x) { return x < T(0) ? -x : x; }
/// x y + z rounded once (3.4 has no Kokkos fma; its Debian build is host-only).
template <class T>
KOKKOS_INLINE_FUNCTION T fma(T x, T y, T z) { return std::fma(x, y, z); }
#endif
}  // namespace math

/// Fences an execution-space instance (labels are 4.x only, so none is passed).
template <class Exec>
inline void fence(const Exec& exec) {
  exec.fence();
}

/// Fences everything (before MPI calls and host reads of device data).
inline void fence_all() { Kokkos::fence(); }

}  // namespace pwave
