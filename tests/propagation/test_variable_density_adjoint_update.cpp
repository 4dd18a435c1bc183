// The variable-density backward step's cell update with the buoyancy imaging
// (acoustic_vd::AdjointUpdate<.., Image = true>) on the host row path (lines(): blocks of rows
// cut into chunks of AdjointUpdate::chunk columns, the imaging terms of each half point computed
// once into line and row buffers, a vectorised cell loop) against cell by cell (the GPU path,
// operator()): G^n and the shot's buoyancy image hold the same bits (in -O3 builds; to rounding
// otherwise: support/kernel_compare.hpp paths_bitwise). Rows wider than a chunk,
// so that the later chunks' first and last cells (the x term before a chunk, the last cell's
// whole share) are checked; a free surface (the mirrored taps of rows 0 < i < R) and without;
// 2D and 3D. One update from arbitrary G, gbar, u^n and image, the real w and buoyancies of a
// heterogeneous model.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "backends/launch.hpp"
#include "pwave/physics/acoustic_vd/adjoint_kernels.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "support/kernel_compare.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

namespace vd = physics::acoustic_vd;
using test::Cellwise;
using test::copy_of;
using test::expect_paths_agree;
using test::fill;
using test::fill_grid;

/// A heterogeneous variable-density problem of nz x ny x nx model cells (ny = 0: 2D), CPML
/// `width` on every side, or a free surface on top.
ForwardProblem problem(int order, int nz, int ny, int nx, int width, bool free_surface) {
  ForwardProblem p =
      ny > 0 ? test::homogeneous_problem_3d(nz, ny, nx, 10.0, 2000.0, 0.001, 10, 10.0, order, width)
             : test::homogeneous_problem(nz, nx, 10.0, 2000.0, 0.001, 10, 10.0, order, width);
  p.equation = physics::Equation::acoustic_variable_density;
  p.boundary.free_surface = free_surface;
  if (free_surface) p.boundary.width[int(Side::top)] = 0;
  p.model.rho.assign(p.model.vp.size(), 0.0);
  for (std::size_t i = 0; i < p.model.vp.size(); ++i) {
    p.model.vp[i] = 2000.0 + 300.0 * std::sin(0.3 * double(i % 97) + 0.011 * double(i));
    p.model.rho[i] = 1800.0 + 500.0 * std::cos(0.17 * double(i % 89) - 0.023 * double(i));
  }
  ShotGeometry shot;
  shot.source = Position{50.0, 20.0, ny > 0 ? 5.0 : 0.0};  // x, z, y
  shot.receivers = {shot.source};
  p.shots = {shot};
  return p;
}

template <class T, int Order, int Dim, bool FreeSurface>
void expect_rows_equal_cells(const ForwardProblem& p) {
  AcousticPropagator<T> prop(p, 1);
  vd::AdjointState<T> a;
  a.v = prop.vd_state();
  const auto& st = a.v.st;
  using Update = vd::AdjointUpdate<T, Order, Dim, FreeSurface, true>;
  ASSERT_GT(st.nx, Update::chunk);
  const auto field = [&](const char* name, double seed) {
    Field<T> f(std::string(name), 1, int(st.u_cur.extent(1)), int(st.u_cur.extent(2)));
    fill_grid(f, st, seed);  // the halo zero, as in a run
    return f;
  };
  a.v.st.u_cur = field("u", 0.1);
  a.g_cur = field("g_cur", 0.2), a.g_prev = field("g_prev", 0.3);
  a.gbar_x = field("gbar_x", 0.4), a.gbar_z = field("gbar_z", 0.5);
  if (Dim == 3) a.gbar_y = field("gbar_y", 0.6);
  a.img_b = Field<T>(std::string("img_b"), 1, st.nz, st.ny * st.nx);
  fill(a.img_b, 0.7);
  vd::AdjointState<T> b = a;
  b.g_prev = copy_of(a.g_prev), b.img_b = copy_of(a.img_b);
  const vd::Coefficients<T, Order> coef(p.model.grid.dz, p.model.grid.dx, p.model.grid.dy);
  const backend::Box grid{0, st.nz, 0, st.ny, 0, st.nx};
  backend::for_each_cell_3d("pwave::test::adjoint_update_rows", ExecSpace(), 1, grid,
                            Update{a, coef});
  backend::for_each_cell_3d("pwave::test::adjoint_update_cells", ExecSpace(), 1, grid,
                            Cellwise<Update>{Update{b, coef}});
  Kokkos::fence();

  const std::string what = "order " + std::to_string(Order) + ", " + std::to_string(Dim) +
                           "D, padded " + std::to_string(st.nz) + " x " + std::to_string(st.ny) +
                           " x " + std::to_string(st.nx) + (FreeSurface ? ", free surface" : "");
  expect_paths_agree("G^n", a.g_prev, b.g_prev, what);
  expect_paths_agree("the buoyancy image", a.img_b, b.img_b, what);
}

TEST(VariableDensityAdjointUpdate, RowsWiderThanAChunkEqualTheCellWiseLaunchBitwise) {
  static_assert(vd::AdjointUpdate<float, 8, 2, false, true>::chunk < 4300 / 2);
  expect_rows_equal_cells<float, 8, 2, false>(problem(8, 12, 0, 4300, 10, false));
  expect_rows_equal_cells<double, 8, 2, true>(problem(8, 12, 0, 1100, 10, true));
  expect_rows_equal_cells<float, 4, 3, true>(problem(4, 6, 3, 1100, 4, true));
  expect_rows_equal_cells<double, 8, 3, false>(problem(8, 5, 2, 1030, 4, false));
}

}  // namespace
}  // namespace pwave
