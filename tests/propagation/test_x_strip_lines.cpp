// The 3D constant-density step's x strips beside the interior (physics::XStripLines) and the
// x lines of its z and y slabs (physics::SlabLines) hold the bits of the cell-wise CPML kernel
// (in -O3 builds; to rounding otherwise: support/kernel_compare.hpp paths_bitwise):
// on host backends the strips run over blocks of depths in the interior's work items and the
// slabs' lines whole, edges and middle in one call (backends/launch.hpp for_each_box_3d), with
// vectors, one overlapping remainder vector that stores only its new lanes, and a zero-guarded
// copy of psi_x; cell by cell (the GPU path) CpmlStep::operator() computes each cell alone. One
// step of all 27 boxes from arbitrary fields and memory variables, so that every term is far from
// zero, compared value by value: u^{n+1} and every memory variable.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "backends/launch.hpp"
#include "pwave/physics/acoustic/forward_boxes_3d.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "support/kernel_compare.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

using test::Cellwise;
using test::copy_of;
using test::expect_paths_agree;
using test::fill;
using test::fill_grid;

/// The state's outputs given fields of their own.
template <class T>
void own_outputs(physics::AcousticState<T>& st) {
  st.u_prev = copy_of(st.u_prev);
  st.psi_x_next = copy_of(st.psi_x_next), st.zeta_x = copy_of(st.zeta_x);
  st.psi_z_next = copy_of(st.psi_z_next), st.zeta_z = copy_of(st.zeta_z);
  st.psi_y_next = copy_of(st.psi_y_next), st.zeta_y = copy_of(st.zeta_y);
}

/// A heterogeneous 3D problem: nz x ny x nx cells, CPML `left` and `right` wide along x,
/// `other` elsewhere (none on top with a free surface).
ForwardProblem problem(int order, int nz, int ny, int nx, int left, int right, int other,
                       bool free_surface) {
  ForwardProblem p =
      test::homogeneous_problem_3d(nz, ny, nx, 10.0, 2000.0, 0.001, 10, 10.0, order, other);
  p.boundary.width[int(Side::left)] = left;
  p.boundary.width[int(Side::right)] = right;
  p.boundary.free_surface = free_surface;
  if (free_surface) p.boundary.width[int(Side::top)] = 0;
  for (std::size_t i = 0; i < p.model.vp.size(); ++i)
    p.model.vp[i] = 2000.0 + 300.0 * std::sin(0.37 * double(i));
  ShotGeometry shot;
  shot.source = {20.0, 20.0, 20.0};
  shot.receivers = {{30.0, 30.0, 20.0}};
  p.shots = {shot};
  return p;
}

template <class T, int Order>
void expect_host_step_equals_cellwise(const ForwardProblem& p) {
  AcousticPropagator<T> prop(p, 1);
  physics::AcousticState<T> a = prop.state();
  const int W = backend::host::vector_bytes / int(sizeof(T));
  ASSERT_EQ(a.ny, p.model.grid.ny + p.boundary.width[int(Side::front)] +
                      p.boundary.width[int(Side::back)]);
  a.u_cur = copy_of(a.u_cur), a.psi_x = copy_of(a.psi_x);
  a.psi_z = copy_of(a.psi_z), a.psi_y = copy_of(a.psi_y);
  own_outputs(a);
  fill_grid(a.u_cur, a, 0.1), fill_grid(a.u_prev, a, 0.2);
  fill(a.psi_x, 0.3), fill(a.zeta_x, 0.4), fill(a.psi_z, 0.5), fill(a.zeta_z, 0.6);
  fill(a.psi_y, 0.7), fill(a.zeta_y, 0.8);
  physics::AcousticState<T> b = a;
  own_outputs(b);
  const Grid& g = p.model.grid;
  const physics::ScaledStencil<T, Order> coef(g.dz, g.dx, g.dy);
  const backend::BoxCuts cuts = physics::forward_box_cuts(a);
  // As AcousticPropagator::step_3d launches them.
  backend::for_each_box_3d("pwave::test::host_step", ExecSpace(), 1, cuts,
                           physics::ForwardBoxes3D<T, Order>{a, coef});
  backend::for_each_box_3d("pwave::test::cellwise_step", ExecSpace(), 1, cuts,
                           [&](auto in_x, auto in_y, auto in_z) {
                             constexpr bool x = decltype(in_x)::value;
                             constexpr bool y = decltype(in_y)::value;
                             constexpr bool z = decltype(in_z)::value;
                             if constexpr (!x && !y && !z) {
                               using K = physics::InteriorStep<T, Order, 3>;
                               return Cellwise<K>{K(b, coef)};
                             } else {
                               using K = physics::CpmlStep<T, Order, x, z, 3, y>;
                               return Cellwise<K>{K(b, coef)};
                             }
                           });
  Kokkos::fence();
  const std::string what = "order " + std::to_string(Order) + ", padded " + std::to_string(a.nz) +
                           " x " + std::to_string(a.ny) + " x " + std::to_string(a.nx) +
                           ", x strips " + std::to_string(a.strip_left) + "/" +
                           std::to_string(a.strip_right) + ", vector width " + std::to_string(W) +
                           (p.boundary.free_surface ? ", free surface" : "");
  expect_paths_agree("u^{n+1}", a.u_prev, b.u_prev, what);
  expect_paths_agree("psi_x", a.psi_x_next, b.psi_x_next, what);
  expect_paths_agree("zeta_x", a.zeta_x, b.zeta_x, what);
  expect_paths_agree("psi_z", a.psi_z_next, b.psi_z_next, what);
  expect_paths_agree("zeta_z", a.zeta_z, b.zeta_z, what);
  expect_paths_agree("psi_y", a.psi_y_next, b.psi_y_next, what);
  expect_paths_agree("zeta_y", a.zeta_y, b.zeta_y, what);
}

// Strips of 24 cells (a vector and an overlapping remainder with AVX-512 floats), depths in
// blocks of 4 and a remainder of 2 or 3, strips narrower than a vector (the line path), and a
// free surface (no top strip). The z and y slabs' lines (SlabLines): edges of 22 and 24 cells,
// middles of 10 cells (the line path with AVX-512 floats), 29 (a vector and an overlapping
// one) and 8 (one double vector).
TEST(XStripLines, HostStepEqualsTheCellWiseKernelsBitwise) {
  expect_host_step_equals_cellwise<float, 8>(problem(8, 14, 12, 18, 20, 20, 6, false));
  expect_host_step_equals_cellwise<float, 8>(problem(8, 10, 9, 37, 20, 18, 5, false));
  expect_host_step_equals_cellwise<double, 8>(problem(8, 11, 9, 16, 20, 13, 5, false));
  expect_host_step_equals_cellwise<float, 4>(problem(4, 9, 10, 12, 3, 17, 4, true));
  expect_host_step_equals_cellwise<double, 2>(problem(2, 10, 8, 12, 7, 2, 3, false));
}

// A strip wider than XStripLines::max_cells takes CpmlStep::line().
TEST(XStripLines, WideStripsTakeTheLinePathAndEqualTheCellWiseKernelsBitwise) {
  static_assert(physics::XStripLines<float, 4>::max_cells < 262);
  expect_host_step_equals_cellwise<float, 4>(problem(4, 6, 5, 8, 260, 30, 2, false));
}

}  // namespace
}  // namespace pwave
