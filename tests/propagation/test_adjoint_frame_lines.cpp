// The constant-density adjoint step's frame (physics::AdjointFrameStep: the CPML strips and a
// stencil radius around them) on the host line path (line(): line buffers along x, per-line
// profiles along z and y, a vectorised cell loop) against cell by cell (the GPU path,
// operator()): the z and y memory variables hold the same bits, G^n and psi_x agree to rounding
// (see below). One backward step of every box, 2D and 3D, from arbitrary fields, memory
// variables and profiles, so that every term is far from zero, compared value by value.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "backends/launch.hpp"
#include "pwave/physics/acoustic/adjoint_kernels.hpp"
#include "support/kernel_compare.hpp"

namespace pwave {
namespace {

using test::Cellwise;
using test::copy_of;
using test::differences;
using test::expect_same_bits;
using test::fill;

/// An adjoint state of nz x ny x nx padded cells (ny = 1: 2D) with strips `strip` wide on every
/// side (none on top with `no_top`), every field, memory variable, profile and indicator
/// arbitrary.
template <class T>
physics::AcousticAdjointState<T> arbitrary_state(int order, int nz, int ny, int nx, int strip,
                                                 bool no_top) {
  physics::AcousticAdjointState<T> a;
  const int R = order / 2;
  const bool is3d = ny > 1;
  a.nz = nz, a.nx = nx, a.ny = ny, a.halo = R;
  a.strip_top = no_top ? 0 : strip, a.strip_bottom = strip;
  a.strip_left = a.strip_right = strip;
  a.strip_front = a.strip_back = is3d ? strip : 0;
  a.hy = is3d ? R : 0;
  a.ys = is3d ? nx + 2 * R : 0;
  const int rows = nz + 2 * R, cols = is3d ? (ny + 2 * R) * a.ys : nx + 2 * R;
  double seed = 0.1;
  const auto field = [&](const char* name) {
    Field<T> f(std::string(name), 1, rows, cols);
    fill(f, seed += 0.1);
    return f;
  };
  const auto axis = [&](int n) {
    physics::CpmlAxis<T> p{
        Kokkos::View<T*, MemSpace>("a", n + 2 * R), Kokkos::View<T*, MemSpace>("b", n + 2 * R),
        Kokkos::View<T*, MemSpace>("ab", n + 2 * R), Kokkos::View<T*, MemSpace>("db", n + 2 * R)};
    fill(p.a, seed += 0.1), fill(p.b, seed += 0.1), fill(p.ab, seed += 0.1);
    fill(p.db, seed += 0.1);
    return p;
  };
  const auto chi = [&](int n) {
    Kokkos::View<T*, MemSpace> c("chi", n + 2 * R);
    fill(c, seed += 0.1);
    return c;
  };
  a.g_prev = field("g_prev"), a.g_cur = field("g_cur");
  a.v2dt2 = GridView<T>("w", nz, ny * nx);
  fill(a.v2dt2, seed += 0.1);
  a.cx = axis(nx), a.cz = axis(nz), a.chix = chi(nx), a.chiz = chi(nz);
  a.psi_x = field("psi_x"), a.psi_x_next = field("psi_x_next");
  a.zeta_x = field("zeta_x"), a.zeta_x_next = field("zeta_x_next");
  a.psi_z = field("psi_z"), a.psi_z_next = field("psi_z_next");
  a.zeta_z = field("zeta_z"), a.zeta_z_next = field("zeta_z_next");
  if (is3d) {
    a.cy = axis(ny), a.chiy = chi(ny);
    a.psi_y = field("psi_y"), a.psi_y_next = field("psi_y_next");
    a.zeta_y = field("zeta_y"), a.zeta_y_next = field("zeta_y_next");
  }
  return a;
}

template <class T, int Order, int Dim>
void expect_host_lines_equal_cellwise(int nz, int ny, int nx, int strip, bool no_top) {
  physics::AcousticAdjointState<T> a = arbitrary_state<T>(Order, nz, ny, nx, strip, no_top);
  physics::AcousticAdjointState<T> b = a;
  b.g_prev = copy_of(a.g_prev);
  b.psi_x_next = copy_of(a.psi_x_next), b.zeta_x_next = copy_of(a.zeta_x_next);
  b.psi_z_next = copy_of(a.psi_z_next), b.zeta_z_next = copy_of(a.zeta_z_next);
  if (Dim == 3) b.psi_y_next = copy_of(a.psi_y_next), b.zeta_y_next = copy_of(a.zeta_y_next);
  const physics::ScaledStencil<T, Order> coef(10.0, 12.0, Dim == 3 ? 9.0 : 0.0);
  // Cut a stencil radius inside the strips, as AcousticPropagator::adjoint_step_3d does.
  const int R = Order / 2;
  const auto cut = [R](int lo, int n, int hi) {
    const int c1 = std::min(lo > 0 ? lo + R : 0, n);
    return std::array<int, 4>{0, c1, std::max(hi > 0 ? n - hi - R : n, c1), n};
  };
  const auto z = cut(a.strip_top, nz, a.strip_bottom), x = cut(a.strip_left, nx, a.strip_right);
  const auto y = Dim == 3 ? cut(a.strip_front, ny, a.strip_back) : std::array<int, 4>{0, 0, 1, 1};
  const backend::BoxCuts cuts{
      {z[0], z[1], z[2], z[3]}, {y[0], y[1], y[2], y[3]}, {x[0], x[1], x[2], x[3]}};
  const auto make = [&](const physics::AcousticAdjointState<T>& s, auto wrap) {
    return [&s, &coef, wrap](auto in_x, auto in_y, auto in_z) {
      constexpr bool ax = decltype(in_x)::value, ay = decltype(in_y)::value;
      constexpr bool az = decltype(in_z)::value;
      if constexpr (!ax && !ay && !az) {
        return wrap(physics::InteriorStep<T, Order, Dim>(s.as_forward(), coef));
      } else {
        return wrap(physics::AdjointFrameStep < T, Order, ax, az, Dim, Dim == 3 && ay > (s, coef));
      }
    };
  };
  backend::for_each_box_3d("pwave::test::adjoint_lines", ExecSpace(), 1, cuts,
                           make(a, [](const auto& k) { return k; }));
  backend::for_each_box_3d(
      "pwave::test::adjoint_cellwise", ExecSpace(), 1, cuts,
      make(b, [](const auto& k) { return Cellwise<std::decay_t<decltype(k)>>{k}; }));
  Kokkos::fence();
  const std::string what = std::to_string(Dim) + "D order " + std::to_string(Order) + ", " +
                           std::to_string(nz) + " x " + std::to_string(ny) + " x " +
                           std::to_string(nx) + ", strips " + std::to_string(strip) +
                           (no_top ? ", none on top" : "");
  // Along x the line path sums products it rounded into line buffers, which the cell formula
  // may fuse into its sums (FMA): G^n and psi_x agree to rounding (measured: 1.2e-7 in float,
  // 1.1e-16 in double, values of order 1), everything else to the bit.
  const double rounding = std::is_same_v<T, float> ? 1e-6 : 1e-15;
  const auto near = [&](const char* name, const auto& p, const auto& q) {
    EXPECT_LE(differences(p, q).second, rounding) << name << ": " << what;
  };
  near("G^n", a.g_prev, b.g_prev);
  near("psi_x", a.psi_x_next, b.psi_x_next);
  expect_same_bits("zeta_x", a.zeta_x_next, b.zeta_x_next, what);
  expect_same_bits("psi_z", a.psi_z_next, b.psi_z_next, what);
  expect_same_bits("zeta_z", a.zeta_z_next, b.zeta_z_next, what);
  if (Dim == 3) {
    expect_same_bits("psi_y", a.psi_y_next, b.psi_y_next, what);
    expect_same_bits("zeta_y", a.zeta_y_next, b.zeta_y_next, what);
  }
}

TEST(AdjointFrameLines, HostLinesMatchTheCellWiseKernel3D) {
  expect_host_lines_equal_cellwise<float, 8, 3>(30, 28, 40, 9, false);
  expect_host_lines_equal_cellwise<double, 4, 3>(20, 18, 26, 6, true);
}

TEST(AdjointFrameLines, HostLinesMatchTheCellWiseKernel2D) {
  expect_host_lines_equal_cellwise<float, 8, 2>(40, 1, 300, 12, false);
  expect_host_lines_equal_cellwise<double, 2, 2>(25, 1, 35, 5, true);
}

}  // namespace
}  // namespace pwave
