#pragma once
// What the tests that hold a host path against the cell-wise kernel (the GPU path) share:
// the cell-wise launch wrapper, copies and arbitrary fills of device arrays, and a value-by-value
// comparison of the two paths' results (expect_paths_agree: bitwise in -O3 builds, to rounding
// otherwise; see PWAVE_TEST_BITWISE_PATHS in tests/CMakeLists.txt).

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "pwave/physics/acoustic/kernels.hpp"

#ifndef PWAVE_TEST_BITWISE_PATHS
#define PWAVE_TEST_BITWISE_PATHS 0
#endif

namespace pwave::test {

/// Whether two paths of one formula (a host line path and the cell-wise kernel, fused and
/// separate launches) must hold the same bits. GCC contracts a product and the sum it feeds
/// into one FMA wherever both sit in one function once inlined, so the bits of two code shapes
/// agree only where it inlines both fully: in this project's -O3 builds. At -O2 (RelWithDebInfo)
/// some products are fused in one path and rounded in the other (1-2 units in the last place,
/// measured 2026-12-07), so there the paths are held to path_ulps instead.
inline constexpr bool paths_bitwise = PWAVE_TEST_BITWISE_PATHS != 0;

/// Where the paths need not hold the same bits: the largest difference allowed, in units of the
/// last place (machine epsilon) of the array's largest magnitude.
inline constexpr double path_ulps = 4;

/// Kernel K launched cell by cell on every backend: no host row or line path to take.
template <class K>
struct Cellwise {
  K k;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const { k(s, iz, iy, ix); }
};

/// A copy of `a` in arrays of its own.
template <class V>
V copy_of(const V& a) {
  V c(Kokkos::view_alloc(std::string(a.label()) + "_copy", Kokkos::WithoutInitializing),
      a.layout());
  Kokkos::deep_copy(c, a);
  return c;
}

/// The arbitrary value number i of a fill with `seed`: of order 1, far from zero mostly.
inline double arbitrary(double seed, std::size_t i) {
  return std::sin(seed + 0.731 * double(i));
}

/// Arbitrary values in every element of `a`.
template <class V>
void fill(const V& a, double seed) {
  auto h = Kokkos::create_mirror_view(a);
  for (std::size_t i = 0; i < h.size(); ++i) h.data()[i] = arbitrary(seed, i);
  Kokkos::deep_copy(a, h);
}

/// Arbitrary values in the grid cells of a wavefield in the halo layout of `st` (2D or 3D),
/// its halo zero as in a run.
template <class T>
void fill_grid(const Field<T>& a, const physics::AcousticState<T>& st, double seed) {
  auto h = Kokkos::create_mirror_view(a);
  Kokkos::deep_copy(h, T(0));
  for (int z = 0; z < st.nz; ++z)
    for (int y = 0; y < st.ny; ++y)
      for (int x = 0; x < st.nx; ++x)
        h(0, z + st.halo, st.column(y, x)) = arbitrary(seed, (long(z) * st.ny + y) * st.nx + x);
  Kokkos::deep_copy(a, h);
}

/// The values of `a` and `b` that differ, and the largest difference.
template <class V>
std::pair<long, double> differences(const V& a, const V& b) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  long n = 0;
  double worst = 0;
  for (std::size_t i = 0; i < ha.size(); ++i) {
    if (ha.data()[i] != hb.data()[i]) ++n;
    worst = std::max(worst, std::abs(double(ha.data()[i]) - double(hb.data()[i])));
  }
  return {n, worst};
}

/// Expects `a` and `b` to hold the same bits, value by value, at any optimisation level: for two
/// runs of one code (other blocks, groups or orders of the same kernels), not two code shapes
/// (expect_paths_agree). A failure names the array, the largest difference and the case.
template <class V>
void expect_same_bits(const char* name, const V& a, const V& b, const std::string& what) {
  const auto [n, worst] = differences(a, b);
  EXPECT_EQ(n, 0) << name << " differs (largest by " << worst << "): " << what;
}

/// Expects the values `a` of one path to be the values `b` of another: bitwise where
/// paths_bitwise, else within path_ulps of b's largest magnitude. A failure names the array,
/// how many values differ, the largest difference and the case (`what`).
template <class T>
void expect_paths_agree(const char* name, const std::vector<T>& a, const std::vector<T>& b,
                        const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << name << ": " << what;
  long n = 0;
  double worst = 0, largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(double(a[i]) - double(b[i]));
    if (!(a[i] == b[i])) ++n;  // NaN included
    worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worst, d);
    largest = std::max(largest, std::abs(double(b[i])));
  }
  const double allowed = path_ulps * double(std::numeric_limits<T>::epsilon()) * largest;
  if (paths_bitwise) {
    EXPECT_EQ(n, 0) << name << ": " << n << " values differ (largest by " << worst << "): " << what;
  } else {
    EXPECT_TRUE(worst <= allowed) << name << ": " << n << " values differ, the largest by " << worst
                                  << " > " << allowed << " (" << path_ulps << " ulp of " << largest
                                  << "): " << what;
  }
}

/// The same for two device arrays.
template <class V>
void expect_paths_agree(const char* name, const V& a, const V& b, const std::string& what) {
  using T = typename V::non_const_value_type;
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  expect_paths_agree(name, std::vector<T>(ha.data(), ha.data() + ha.size()),
                     std::vector<T>(hb.data(), hb.data() + hb.size()), what);
}

}  // namespace pwave::test
