// The variable-density step's two launches hold the same bits (in -O3 builds; to rounding
// otherwise: support/kernel_compare.hpp paths_bitwise): on host backends in 2D the rows
// between the z strips, x strips included, run fused (acoustic_vd::FusedStep: the flux kept in
// row buffers, psi and zeta of the x strips advanced in the row pass, grids wider than a chunk
// cut clear of the strips); the flux and update kernels run cell by cell (the GPU path) must give
// the same u^{n+1} and memory variables from the same state. One step from arbitrary fields and
// memory variables, so that every term (the CPML's among them) is far from zero.

#include <gtest/gtest.h>

#include <algorithm>
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

template <template <class, int, int, bool, bool, bool> class K, class T, int Order>
void launch_cellwise(const backend::BoxCuts& cuts, const vd::State<T>& v,
                     const vd::Coefficients<T, Order>& coef) {
  backend::for_each_box_3d(
      "pwave::test::vd_cellwise", ExecSpace(), 1, cuts, [&](auto in_x, auto in_y, auto in_z) {
        using Kernel =
            K<T, Order, 2, decltype(in_x)::value, decltype(in_z)::value, decltype(in_y)::value>;
        return Cellwise<Kernel>{Kernel{v, coef}};
      });
}

/// The fused kernels (only lines(): host row paths) over a box, called directly, so that the
/// cell-wise build, whose launches take operator(), runs them too. Host memory spaces only.
template <class F>
void run_lines(const backend::Box& b, const F& f) {
  if constexpr (backend::runs_on_host<ExecSpace>()) {
    for (int iz = b.z0; iz < b.z1; iz += F::block_lines)
      f.lines(0, iz, std::min(F::block_lines, b.z1 - iz), 0, b.x0, b.x1);
  }
}

/// A heterogeneous variable-density problem of nz x nx model cells, CPML widths `left`,
/// `right` and `other` (top and bottom), or a free surface on top.
ForwardProblem problem(int order, int nz, int nx, int left, int right, int other,
                       bool free_surface) {
  ForwardProblem p = test::homogeneous_problem(nz, nx, 10.0, 2000.0, 0.001, 10, 10.0, order, other);
  p.equation = physics::Equation::acoustic_variable_density;
  p.boundary.width[int(Side::left)] = left;
  p.boundary.width[int(Side::right)] = right;
  p.boundary.free_surface = free_surface;
  if (free_surface) p.boundary.width[int(Side::top)] = 0;
  p.model.rho.assign(p.model.vp.size(), 0.0);
  for (int iz = 0; iz < nz; ++iz) {
    for (int ix = 0; ix < nx; ++ix) {
      const std::size_t i = std::size_t(iz) * nx + ix;
      p.model.vp[i] = 2000.0 + 300.0 * std::sin(0.3 * iz + 0.11 * ix);
      p.model.rho[i] = 1800.0 + 500.0 * std::cos(0.17 * iz - 0.23 * ix);
    }
  }
  ShotGeometry shot;
  shot.source = {50.0, 50.0};
  shot.receivers = {{60.0, 80.0}};
  p.shots = {shot};
  return p;
}

template <class T, int Order>
void expect_fused_step_equals_cellwise(const ForwardProblem& p) {
  AcousticPropagator<T> prop(p, 1);
  // The state both launches start from: arbitrary fields and memory variables, the flux
  // arrays zero (their halo is, and the launches write the rest).
  vd::State<T> a = prop.vd_state();
  const Grid& g = p.model.grid;
  ASSERT_EQ(a.st.nx, g.nx + p.boundary.width[int(Side::left)] + p.boundary.width[int(Side::right)]);
  ASSERT_GE(a.st.strip_left, p.boundary.width[int(Side::left)]);
  ASSERT_TRUE((vd::FusedStep<T, Order>::fits(a.st)));
  a.st.u_cur = copy_of(a.st.u_cur);
  a.st.u_prev = copy_of(a.st.u_prev);
  a.st.psi_x = copy_of(a.st.psi_x), a.st.zeta_x = copy_of(a.st.zeta_x);
  a.st.psi_z = copy_of(a.st.psi_z), a.st.zeta_z = copy_of(a.st.zeta_z);
  a.flux_x = copy_of(a.flux_x), a.flux_z = copy_of(a.flux_z);
  fill_grid(a.st.u_cur, a.st, 0.1), fill_grid(a.st.u_prev, a.st, 0.2);
  fill(a.st.psi_x, 0.3), fill(a.st.zeta_x, 0.4), fill(a.st.psi_z, 0.5), fill(a.st.zeta_z, 0.6);
  Kokkos::deep_copy(a.flux_x, T(0)), Kokkos::deep_copy(a.flux_z, T(0));
  vd::State<T> b = a;
  b.st.u_prev = copy_of(a.st.u_prev);
  b.st.psi_x = copy_of(a.st.psi_x), b.st.zeta_x = copy_of(a.st.zeta_x);
  b.st.psi_z = copy_of(a.st.psi_z), b.st.zeta_z = copy_of(a.st.zeta_z);
  b.flux_x = copy_of(a.flux_x), b.flux_z = copy_of(a.flux_z);
  const vd::Coefficients<T, Order> coef(g.dz, g.dx);

  prop.template step_vd<Order, 2>(ExecSpace(), 1, a, coef);

  const auto& st = b.st;
  const backend::BoxCuts cuts{{0, st.strip_top, st.nz - st.strip_bottom, st.nz},
                              {0, 0, 1, 1},
                              {0, st.strip_left, st.nx - st.strip_right, st.nx}};
  launch_cellwise<vd::Flux, T, Order>(cuts, b, coef);
  if (p.boundary.free_surface) {
    Kokkos::parallel_for(
        "pwave::test::vd_mirror",
        Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {1, int(b.flux_z.extent(2))}),
        vd::MirrorFlux<T>{b.flux_z, st.halo});
  }
  launch_cellwise<vd::Update, T, Order>(cuts, b, coef);
  Kokkos::fence();

  const std::string what = "order " + std::to_string(Order) + ", padded " + std::to_string(st.nz) +
                           " x " + std::to_string(st.nx) + ", strips " +
                           std::to_string(st.strip_left) + "/" + std::to_string(st.strip_right) +
                           (p.boundary.free_surface ? ", free surface" : "");
  expect_paths_agree("u^{n+1}", a.st.u_prev, b.st.u_prev, what);
  expect_paths_agree("psi_x", a.st.psi_x, b.st.psi_x, what);
  expect_paths_agree("zeta_x", a.st.zeta_x, b.st.zeta_x, what);
  expect_paths_agree("psi_z", a.st.psi_z, b.st.psi_z, what);
  expect_paths_agree("zeta_z", a.st.zeta_z, b.st.zeta_z, what);
}

/// The reversed step of boundary storage in the box inside the frame (rows and columns a stencil
/// radius clear of the strips): FusedStep with its imaging against the cell-wise flux launch
/// over the box and a radius around it, then ReverseUpdate: u^{n-1} and the dJ/dw image.
template <class T, int Order>
void expect_fused_reversal_equals_cellwise(const ForwardProblem& p) {
  AcousticPropagator<T> prop(p, 1);
  vd::State<T> a = prop.vd_state();
  ASSERT_TRUE((vd::FusedStep<T, Order, true>::fits(a.st)));
  const auto& st = a.st;
  const int R = st.halo;
  const auto lo = [&](int strip) { return strip > 0 ? strip + R : 0; };
  const backend::Box box{lo(st.strip_top),  st.nz - lo(st.strip_bottom), 0, 1,
                         lo(st.strip_left), st.nx - lo(st.strip_right)};
  const backend::Box flux_box{std::max(box.z0 - R, 0), std::min(box.z1 + R, st.nz), 0, 1,
                              std::max(box.x0 - R, 0), std::min(box.x1 + R, st.nx)};
  a.st.u_cur = copy_of(a.st.u_cur);
  a.st.u_prev = copy_of(a.st.u_prev);
  a.flux_x = copy_of(a.flux_x), a.flux_z = copy_of(a.flux_z);
  fill_grid(a.st.u_cur, st, 0.1), fill_grid(a.st.u_prev, st, 0.2);
  Kokkos::deep_copy(a.flux_x, T(0)), Kokkos::deep_copy(a.flux_z, T(0));
  const Field<T> g = copy_of(a.st.u_cur);
  fill_grid(g, st, 0.7);
  const Field<T> acc_a("acc", 1, st.nz, st.nx);
  fill(acc_a, 0.8);
  const Field<T> acc_b = copy_of(acc_a);
  vd::State<T> b = a;
  b.st.u_prev = copy_of(a.st.u_prev);
  const Grid& grid = p.model.grid;
  const vd::Coefficients<T, Order> coef(grid.dz, grid.dx);

  run_lines(box, vd::FusedStep<T, Order, true>{a, coef, p.boundary.free_surface, box.z0, box.z1, g,
                                               acc_a});

  backend::for_each_cell_3d("pwave::test::vd_reverse_flux", ExecSpace(), 1, flux_box,
                            Cellwise<vd::InteriorFlux<T, Order, 2>>{{b, coef}});
  if (p.boundary.free_surface) {
    Kokkos::parallel_for(
        "pwave::test::vd_mirror",
        Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {1, int(b.flux_z.extent(2))}),
        vd::MirrorFlux<T>{b.flux_z, st.halo});
  }
  backend::for_each_cell_3d("pwave::test::vd_reverse_update", ExecSpace(), 1, box,
                            Cellwise<vd::ReverseUpdate<T, Order, 2>>{{b, coef, g, acc_b}});
  Kokkos::fence();

  const std::string what = "reversed step, order " + std::to_string(Order) + ", padded " +
                           std::to_string(st.nz) + " x " + std::to_string(st.nx) + ", box " +
                           std::to_string(box.z0) + ".." + std::to_string(box.z1) + " x " +
                           std::to_string(box.x0) + ".." + std::to_string(box.x1) +
                           (p.boundary.free_surface ? ", free surface" : "");
  expect_paths_agree("u^{n-1}", a.st.u_prev, b.st.u_prev, what);
  expect_paths_agree("dJ/dw image", acc_a, acc_b, what);
}

/// The backward step of boundary storage in the box two radii inside the strips (and below a
/// free surface): ReverseAndAdjointRows against the cell-wise kernels it fuses, the reversed
/// step (InteriorFlux over the box and a radius around it, ReverseUpdate) and the adjoint step
/// (HBar and GBar over two and one radii around it, AdjointUpdate with the buoyancy imaging):
/// u^{n-1}, G^n and both images.
template <class T, int Order>
void expect_reverse_and_adjoint_equal_cellwise(const ForwardProblem& p) {
  AcousticPropagator<T> prop(p, 1);
  vd::AdjointState<T> a;
  a.v = prop.vd_state();
  const auto& st = a.v.st;
  const int R = st.halo, nz = st.nz, nx = st.nx;
  const auto lo = [&](int strip) { return strip > 0 ? strip + 2 * R : 0; };
  const backend::Box box{st.strip_top > 0          ? lo(st.strip_top)
                         : p.boundary.free_surface ? 2 * R
                                                   : 0,
                         nz - lo(st.strip_bottom),
                         0,
                         1,
                         lo(st.strip_left),
                         nx - lo(st.strip_right)};
  ASSERT_FALSE(box.empty());
  const auto around = [&](int m) {
    return backend::Box{std::max(box.z0 - m, 0), std::min(box.z1 + m, nz), 0, 1,
                        std::max(box.x0 - m, 0), std::min(box.x1 + m, nx)};
  };
  const auto field = [&](const char* name, double seed) {
    Field<T> f(std::string(name), 1, int(st.u_cur.extent(1)), int(st.u_cur.extent(2)));
    fill_grid(f, st, seed);  // the halo zero, as in a run
    return f;
  };
  const auto zero_field = [&](const char* name) {
    return Field<T>(std::string(name), 1, int(st.u_cur.extent(1)), int(st.u_cur.extent(2)));
  };
  a.v.st.u_cur = field("u", 0.1);
  const Field<T> u_next = field("u_next", 0.2);
  a.g_cur = field("g_cur", 0.3), a.g_prev = field("g_prev", 0.4);
  a.img_b = Field<T>(std::string("img_b"), 1, nz, nx);
  fill(a.img_b, 0.5);
  const Field<T> acc("acc", 1, nz, nx);
  fill(acc, 0.6);
  vd::AdjointState<T> b = a;
  b.g_prev = copy_of(a.g_prev), b.img_b = copy_of(a.img_b);
  b.hbar_x = zero_field("hbar_x"), b.hbar_z = zero_field("hbar_z");
  b.gbar_x = zero_field("gbar_x"), b.gbar_z = zero_field("gbar_z");
  b.v.flux_x = zero_field("flux_x"), b.v.flux_z = zero_field("flux_z");
  b.v.st.u_prev = copy_of(u_next);
  const Field<T> acc_b = copy_of(acc);
  const Grid& grid = p.model.grid;
  const vd::Coefficients<T, Order> coef(grid.dz, grid.dx);

  run_lines(box, vd::ReverseAndAdjointRows<T, Order>{a, coef, u_next, acc});

  const auto cellwise = [&](const char* name, const backend::Box& on, const auto& kernel) {
    backend::for_each_cell_3d(name, ExecSpace(), 1, on,
                              Cellwise<std::decay_t<decltype(kernel)>>{kernel});
  };
  cellwise("pwave::test::vd_flux", around(R), vd::InteriorFlux<T, Order, 2>{b.v, coef});
  cellwise("pwave::test::vd_reverse", box,
           vd::ReverseUpdate<T, Order, 2>{b.v, coef, b.g_cur, acc_b});
  cellwise("pwave::test::vd_hbar", around(2 * R), vd::HBar<T, Order, 2, false, false, false>{b});
  if (p.boundary.free_surface) {
    cellwise("pwave::test::vd_gbar", around(R),
             vd::GBar<T, Order, 2, false, false, false, true>{b, coef});
    cellwise("pwave::test::vd_update", box, vd::AdjointUpdate<T, Order, 2, true, true>{b, coef});
  } else {
    cellwise("pwave::test::vd_gbar", around(R),
             vd::GBar<T, Order, 2, false, false, false, false>{b, coef});
    cellwise("pwave::test::vd_update", box, vd::AdjointUpdate<T, Order, 2, false, true>{b, coef});
  }
  Kokkos::fence();

  const std::string what = "reversed and adjoint step, order " + std::to_string(Order) +
                           ", padded " + std::to_string(nz) + " x " + std::to_string(nx) +
                           ", box " + std::to_string(box.z0) + ".." + std::to_string(box.z1) +
                           " x " + std::to_string(box.x0) + ".." + std::to_string(box.x1) +
                           (p.boundary.free_surface ? ", free surface" : "");
  expect_paths_agree("u^{n-1}", u_next, b.v.st.u_prev, what);
  expect_paths_agree("dJ/dw image", acc, acc_b, what);
  expect_paths_agree("G^n", a.g_prev, b.g_prev, what);
  expect_paths_agree("the buoyancy image", a.img_b, b.img_b, what);
}

TEST(VariableDensityFusedStep, EqualsTheCellWiseLaunchesBitwise) {
  expect_fused_step_equals_cellwise<double, 8>(problem(8, 40, 60, 12, 12, 12, false));
  expect_fused_step_equals_cellwise<float, 4>(problem(4, 30, 50, 10, 14, 10, true));
  expect_fused_step_equals_cellwise<float, 2>(problem(2, 20, 30, 6, 6, 6, false));
}

// Rows wider than a chunk (FusedStep::chunk): cut into several, and with a wide left strip the
// cut moved clear of it.
TEST(VariableDensityFusedStep, WideRowsCutIntoChunksEqualTheCellWiseLaunchesBitwise) {
  static_assert(vd::FusedStep<float, 8>::chunk < 4320 && vd::FusedStep<double, 8>::chunk < 2270);
  expect_fused_step_equals_cellwise<float, 8>(problem(8, 12, 4300, 10, 10, 10, false));
  expect_fused_step_equals_cellwise<double, 8>(problem(8, 12, 1100, 1150, 20, 10, true));
}

// The reversed step with its imaging (boundary storage's backward run): narrow rows, rows cut
// into chunks, a free surface (no frame on top: the z flux above row 0 mirrored), a side
// without CPML (the box reaching the grid's edge).
TEST(VariableDensityFusedStep, ReversedStepEqualsTheCellWiseLaunchesBitwise) {
  if (!backend::runs_on_host<ExecSpace>()) GTEST_SKIP() << "the fused kernels run on host backends";
  expect_fused_reversal_equals_cellwise<double, 8>(problem(8, 40, 60, 12, 12, 12, false));
  expect_fused_reversal_equals_cellwise<float, 4>(problem(4, 30, 50, 10, 14, 10, true));
  expect_fused_reversal_equals_cellwise<float, 2>(problem(2, 20, 30, 6, 0, 6, false));
  expect_fused_reversal_equals_cellwise<float, 8>(problem(8, 24, 4300, 10, 10, 10, false));
  expect_fused_reversal_equals_cellwise<double, 8>(problem(8, 24, 1100, 1150, 20, 10, true));
}

// The reversed and adjoint steps in one pass (ReverseAndAdjointRows): CPML on every side, a free
// surface, sides without CPML (the box at the grid's edges: half points off the grid, the last
// cell's whole buoyancy term), rows wider than a chunk.
TEST(VariableDensityFusedStep, ReverseAndAdjointRowsEqualTheCellWiseKernelsBitwise) {
  if (!backend::runs_on_host<ExecSpace>()) GTEST_SKIP() << "the fused kernels run on host backends";
  static_assert(vd::ReverseAndAdjointRows<float, 8>::chunk < 2500 / 2);
  expect_reverse_and_adjoint_equal_cellwise<double, 8>(problem(8, 40, 60, 12, 12, 12, false));
  expect_reverse_and_adjoint_equal_cellwise<float, 4>(problem(4, 30, 50, 10, 14, 10, true));
  expect_reverse_and_adjoint_equal_cellwise<float, 2>(problem(2, 20, 30, 6, 0, 6, false));
  expect_reverse_and_adjoint_equal_cellwise<float, 8>(problem(8, 30, 40, 0, 10, 0, false));
  expect_reverse_and_adjoint_equal_cellwise<float, 8>(problem(8, 40, 2500, 10, 10, 10, false));
  expect_reverse_and_adjoint_equal_cellwise<double, 6>(problem(6, 40, 2100, 0, 0, 10, true));
}

}  // namespace
}  // namespace pwave
