#pragma once
// What the tests that hold a host path against the cell-wise kernel (the GPU path) share:
// the cell-wise launch wrapper, copies and arbitrary fills of device arrays, and a value-by-value
// comparison (bitwise: expect_same_bits).

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>

#include "pwave/physics/acoustic/kernels.hpp"

namespace pwave::test {

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

/// Expects `a` and `b` to hold the same bits, value by value; a failure names the array, the
/// largest difference and the case (`what`).
template <class V>
void expect_same_bits(const char* name, const V& a, const V& b, const std::string& what) {
  const auto [n, worst] = differences(a, b);
  EXPECT_EQ(n, 0) << name << " differs (largest by " << worst << "): " << what;
}

}  // namespace pwave::test
