// The constant-density adjoint step's frame (physics::AdjointFrameStep: the CPML strips and a
// stencil radius around them) on the host line path (line(): line buffers along x, per-line
// profiles along z and y, a vectorised cell loop; in 3D z strips lines(): row buffers along z
// for a block of depths) against cell by cell (the GPU path, operator()): zeta and psi_y hold
// the same bits (in -O3 builds: support/kernel_compare.hpp paths_bitwise), G^n, psi_x and (3D)
// psi_z agree to rounding (see below), and the row buffers' bits do not depend on the blocks of
// depths (at any level: one code). In 3D the x strips beside the interior run over
// blocks of depths (physics::AdjointXStripLines), as AcousticPropagator::adjoint_step_3d launches
// them: the bits of the line path. One backward step of every box, 2D and 3D, from arbitrary
// fields, memory variables and profiles, so that every term is far from zero, compared value by
// value.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>

#include "backends/launch.hpp"
#include "pwave/physics/acoustic/adjoint_boxes_3d.hpp"
#include "support/kernel_compare.hpp"

namespace pwave {
namespace {

using test::Cellwise;
using test::copy_of;
using test::differences;
using test::expect_paths_agree;
using test::expect_same_bits;
using test::fill;

/// An adjoint state of nz x ny x nx padded cells (ny = 1: 2D) with strips `strip` wide on every
/// side (none on top with `no_top`; `strip_x` wide on the left and right when given), every
/// field, memory variable (on the rows, y lines or columns of x lines they store), profile and
/// indicator arbitrary.
template <class T>
physics::AcousticAdjointState<T> arbitrary_state(int order, int nz, int ny, int nx, int strip,
                                                 bool no_top, int strip_x = -1) {
  physics::AcousticAdjointState<T> a;
  const int R = order / 2;
  const bool is3d = ny > 1;
  a.nz = nz, a.nx = nx, a.ny = ny, a.halo = R;
  a.strip_top = no_top ? 0 : strip, a.strip_bottom = strip;
  a.strip_left = a.strip_right = strip_x < 0 ? strip : strip_x;
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
  // The memory variables on the rows, y lines and columns of x lines the frame's stencils
  // reach, as AcousticPropagator stores them (physics::StripLines).
  const backend::BoxCuts cuts = physics::adjoint_box_cuts(a);
  a.xcols = physics::StripLines::of(nx, R, cuts.x[1], cuts.x[2]);
  a.xs = nx + 2 * R - a.xcols.gap;
  const auto x_field = [&](const char* name) {
    Field<T> f(std::string(name), 1, rows, (ny + 2 * a.hy) * a.xs);
    fill(f, seed += 0.1);
    return f;
  };
  a.psi_x = x_field("psi_x"), a.psi_x_next = x_field("psi_x_next");
  a.zeta_x = x_field("zeta_x"), a.zeta_x_next = x_field("zeta_x_next");
  a.zrows = physics::StripLines::of(nz, R, cuts.z[1], cuts.z[2]);
  const auto z_field = [&](const char* name) {
    Field<T> f(std::string(name), 1, rows - a.zrows.gap, cols);
    fill(f, seed += 0.1);
    return f;
  };
  a.psi_z = z_field("psi_z"), a.psi_z_next = z_field("psi_z_next");
  a.zeta_z = z_field("zeta_z"), a.zeta_z_next = z_field("zeta_z_next");
  if (is3d) {
    a.cy = axis(ny), a.chiy = chi(ny);
    a.ylines = physics::StripLines::of(ny, R, cuts.y[1], cuts.y[2]);
    const auto y_field = [&](const char* name) {
      Field<T> f(std::string(name), 1, rows, cols - a.ylines.gap * a.ys);
      fill(f, seed += 0.1);
      return f;
    };
    a.psi_y = y_field("psi_y"), a.psi_y_next = y_field("psi_y_next");
    a.zeta_y = y_field("zeta_y"), a.zeta_y_next = y_field("zeta_y_next");
  }
  return a;
}

/// State a's copy with outputs of its own (G^n and the next memory variables).
template <class T>
physics::AcousticAdjointState<T> with_own_outputs(const physics::AcousticAdjointState<T>& a) {
  physics::AcousticAdjointState<T> b = a;
  b.g_prev = copy_of(a.g_prev);
  b.psi_x_next = copy_of(a.psi_x_next), b.zeta_x_next = copy_of(a.zeta_x_next);
  b.psi_z_next = copy_of(a.psi_z_next), b.zeta_z_next = copy_of(a.zeta_z_next);
  if (a.ny > 1) b.psi_y_next = copy_of(a.psi_y_next), b.zeta_y_next = copy_of(a.zeta_y_next);
  return b;
}

/// The 3D x strips beside the interior: AdjointXStripLines's blocks of depths, or (`blocks`
/// false) AdjointFrameStep::line one depth at a time, behind one type.
template <class T, int Order>
struct XStrips {
  using Lines = physics::AdjointXStripLines<T, Order>;
  static constexpr bool host_lines = true;
  static constexpr int block_lines = Lines::block_lines;
  Lines strips;
  bool blocks;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    strips(s, iz, iy, ix);
  }
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    if (blocks) {
      strips.lines(s, iz, n, iy, x0, x1);
    } else {
      for (int r = 0; r < n; ++r) strips.k.line(s, iz + r, iy, x0, x1);
    }
  }
};

/// The kernel of each box, as wrap(kernel): the adjoint_step_3d choice (AdjointXStripLines for
/// the 3D x strips beside the interior) when `blocks`, else AdjointFrameStep everywhere.
template <class T, int Order, int Dim, class Wrap>
auto box_kernels(const physics::AcousticAdjointState<T>& s,
                 const physics::ScaledStencil<T, Order>& coef, bool blocks, Wrap wrap) {
  return [&s, &coef, blocks, wrap](auto in_x, auto in_y, auto in_z) {
    constexpr bool ax = decltype(in_x)::value, ay = Dim == 3 && decltype(in_y)::value;
    constexpr bool az = decltype(in_z)::value;
    if constexpr (!ax && !ay && !az) {
      return wrap(physics::InteriorStep<T, Order, Dim>(s.as_forward(), coef));
    } else if constexpr (Dim == 3 && ax && !ay && !az) {
      return wrap(XStrips<T, Order>{physics::AdjointXStripLines<T, Order>(s, coef), blocks});
    } else {
      return wrap(physics::AdjointFrameStep<T, Order, ax, az, Dim, ay>(s, coef));
    }
  };
}

std::string describe(int dim, int order, int nz, int ny, int nx, int strip, int strip_x,
                     bool no_top) {
  return std::to_string(dim) + "D order " + std::to_string(order) + ", " + std::to_string(nz) +
         " x " + std::to_string(ny) + " x " + std::to_string(nx) + ", strips " +
         std::to_string(strip) + (strip_x >= 0 ? ", x strips " + std::to_string(strip_x) : "") +
         (no_top ? ", none on top" : "");
}

template <class T, int Order, int Dim>
void expect_host_lines_equal_cellwise(int nz, int ny, int nx, int strip, bool no_top,
                                      int strip_x = -1) {
  physics::AcousticAdjointState<T> a =
      arbitrary_state<T>(Order, nz, ny, nx, strip, no_top, strip_x);
  physics::AcousticAdjointState<T> b = with_own_outputs(a);
  const physics::ScaledStencil<T, Order> coef(10.0, 12.0, Dim == 3 ? 9.0 : 0.0);
  const backend::BoxCuts cuts = physics::adjoint_box_cuts(a);
  backend::for_each_box_3d(
      "pwave::test::adjoint_lines", ExecSpace(), 1, cuts,
      box_kernels<T, Order, Dim>(a, coef, true, [](const auto& k) { return k; }));
  backend::for_each_box_3d("pwave::test::adjoint_cellwise", ExecSpace(), 1, cuts,
                           box_kernels<T, Order, Dim>(b, coef, true, [](const auto& k) {
                             return Cellwise<std::decay_t<decltype(k)>>{k};
                           }));
  Kokkos::fence();
  const std::string what = describe(Dim, Order, nz, ny, nx, strip, strip_x, no_top);
  // Along x (and in 3D along z: lines()' row buffers) the line path sums products it rounded
  // into buffers, which the cell formula may fuse into its sums (FMA): G^n, psi_x and in 3D
  // psi_z agree to rounding (measured: 1.2e-7 in float, 1.1e-16 in double, values of order
  // 1), everything else to the bit.
  const double rounding = std::is_same_v<T, float> ? 1e-6 : 1e-15;
  const auto near = [&](const char* name, const auto& p, const auto& q) {
    EXPECT_LE(differences(p, q).second, rounding) << name << ": " << what;
  };
  near("G^n", a.g_prev, b.g_prev);
  near("psi_x", a.psi_x_next, b.psi_x_next);
  expect_paths_agree("zeta_x", a.zeta_x_next, b.zeta_x_next, what);
  if (Dim == 3) {
    near("psi_z", a.psi_z_next, b.psi_z_next);
  } else {
    expect_paths_agree("psi_z", a.psi_z_next, b.psi_z_next, what);
  }
  expect_paths_agree("zeta_z", a.zeta_z_next, b.zeta_z_next, what);
  if (Dim == 3) {
    expect_paths_agree("psi_y", a.psi_y_next, b.psi_y_next, what);
    expect_paths_agree("zeta_y", a.zeta_y_next, b.zeta_y_next, what);
  }
}

/// The outputs of two 3D backward steps (G^n and every next memory variable), compared by
/// `expect` (expect_paths_agree for two code shapes, expect_same_bits for one).
template <class T, class Expect>
void expect_same_outputs_3d(const physics::AcousticAdjointState<T>& a,
                            const physics::AcousticAdjointState<T>& b, const std::string& what,
                            const Expect& expect) {
  expect("G^n", a.g_prev, b.g_prev, what);
  expect("psi_x", a.psi_x_next, b.psi_x_next, what);
  expect("zeta_x", a.zeta_x_next, b.zeta_x_next, what);
  expect("psi_z", a.psi_z_next, b.psi_z_next, what);
  expect("zeta_z", a.zeta_z_next, b.zeta_z_next, what);
  expect("psi_y", a.psi_y_next, b.psi_y_next, what);
  expect("zeta_y", a.zeta_y_next, b.zeta_y_next, what);
}

/// The 3D x strips' blocks of depths (AdjointXStripLines) against their line path
/// (AdjointFrameStep::line), every other box the same kernel in both: the same bits.
template <class T, int Order>
void expect_x_strip_blocks_equal_lines(int nz, int ny, int nx, int strip, int strip_x) {
  physics::AcousticAdjointState<T> a = arbitrary_state<T>(Order, nz, ny, nx, strip, false, strip_x);
  physics::AcousticAdjointState<T> b = with_own_outputs(a);
  const physics::ScaledStencil<T, Order> coef(10.0, 12.0, 9.0);
  const backend::BoxCuts cuts = physics::adjoint_box_cuts(a);
  const auto same = [](const auto& k) { return k; };
  backend::for_each_box_3d("pwave::test::adjoint_blocks", ExecSpace(), 1, cuts,
                           box_kernels<T, Order, 3>(a, coef, true, same));
  backend::for_each_box_3d("pwave::test::adjoint_lines", ExecSpace(), 1, cuts,
                           box_kernels<T, Order, 3>(b, coef, false, same));
  Kokkos::fence();
  const std::string what = describe(3, Order, nz, ny, nx, strip, strip_x, false);
  expect_same_outputs_3d(a, b, what, [](auto&&... e) { expect_paths_agree(e...); });
}

/// The 3D boxes at depths [0, nz) in groups of `group` (host_boxes_3d_depths, as the backward
/// sweeps run them: blocks of depths from each group's first, so the z strips' row buffers
/// (AdjointFrameStep::lines) cover other depths) against one group of every depth (blocks from
/// each slab's first, as for_each_box_3d's): the same bits.
template <class T, int Order>
void expect_depth_groups_hold_the_bits(int nz, int ny, int nx, int strip, int group) {
  physics::AcousticAdjointState<T> a = arbitrary_state<T>(Order, nz, ny, nx, strip, false);
  physics::AcousticAdjointState<T> b = with_own_outputs(a);
  const physics::ScaledStencil<T, Order> coef(10.0, 12.0, 9.0);
  const backend::BoxCuts cuts = physics::adjoint_box_cuts(a);
  const auto same = [](const auto& k) { return k; };
  backend::host_boxes_3d_depths(cuts, box_kernels<T, Order, 3>(a, coef, true, same), 0, 0, nz);
  const auto groups = box_kernels<T, Order, 3>(b, coef, true, same);
  for (int z0 = 0; z0 < nz; z0 += group) {
    backend::host_boxes_3d_depths(cuts, groups, 0, z0, std::min(nz, z0 + group));
  }
  const std::string what = describe(3, Order, nz, ny, nx, strip, -1, false) + ", groups of " +
                           std::to_string(group) + " depths";
  expect_same_outputs_3d(a, b, what, [](auto&&... e) { expect_same_bits(e...); });
}

/// The 2D x strips' blocks of rows (AdjointXStripLines<T, Order, 2>::rows(), as
/// for_each_frame_cell runs them beside the interior's blocks) against their line path
/// (AdjointFrameStep::row, one row at a time): the same bits.
template <class T, int Order>
void expect_x_strip_rows_equal_lines(int nz, int nx, int strip, int strip_x) {
  physics::AcousticAdjointState<T> a = arbitrary_state<T>(Order, nz, 1, nx, strip, false, strip_x);
  physics::AcousticAdjointState<T> b = with_own_outputs(a);
  const physics::ScaledStencil<T, Order> coef(10.0, 12.0, 0.0);
  const backend::BoxCuts cuts = physics::adjoint_box_cuts(a);
  const physics::AdjointXStripLines<T, Order, 2> blocks(a, coef);
  const physics::AdjointFrameStep<T, Order, true, false> lines(b, coef);
  const int block = blocks.block_rows;
  for (int iz = cuts.z[1]; iz < cuts.z[2]; iz += block) {
    const int n = std::min(block, cuts.z[2] - iz);
    for (const auto& [x0, x1] :
         {std::pair(cuts.x[0], cuts.x[1]), std::pair(cuts.x[2], cuts.x[3])}) {
      blocks.rows(0, iz, n, x0, x1);
      for (int r = 0; r < n; ++r) lines.row(0, iz + r, x0, x1);
    }
  }
  Kokkos::fence();
  const std::string what = describe(2, Order, nz, 1, nx, strip, strip_x, false);
  expect_paths_agree("G^n", a.g_prev, b.g_prev, what);
  expect_paths_agree("psi_x", a.psi_x_next, b.psi_x_next, what);
  expect_paths_agree("zeta_x", a.zeta_x_next, b.zeta_x_next, what);
}

// The z and y memory variables store every row and y line where the strips and their reach
// meet (30 x 28 x 40, strips 9), the bottom rows only without a top strip (20 x 18 x 26), both
// sides' rows and y lines with a gap between (34 x 32 x 44: 8 rows, 6 y lines not stored).
TEST(AdjointFrameLines, HostLinesMatchTheCellWiseKernel3D) {
  expect_host_lines_equal_cellwise<float, 8, 3>(30, 28, 40, 9, false);
  expect_host_lines_equal_cellwise<float, 8, 3>(34, 32, 44, 5, false);
  expect_host_lines_equal_cellwise<double, 4, 3>(20, 18, 26, 6, true);
  expect_host_lines_equal_cellwise<float, 8, 3>(25, 20, 70, 5, false, 20);
}

// x strips of 24 cells (a vector and an overlapping remainder with AVX-512 floats) and 19 (two
// double vectors and a remainder), depths in blocks of 4 and a remainder of 3 or none.
TEST(AdjointFrameLines, XStripBlocksHoldTheLinePathsBits) {
  expect_x_strip_blocks_equal_lines<float, 8>(25, 20, 70, 5, 20);
  expect_x_strip_blocks_equal_lines<double, 4>(20, 14, 50, 4, 17);
}

// z strips of 9 + R depths (blocks of 8 and remainders), lines of 300 columns (row buffers in
// chunks of 128 and a remainder), groups of 3 and 5 depths (host paths only: a GPU build's
// fields are not host memory).
TEST(AdjointFrameLines, ZStripRowBuffersHoldTheirBitsInAnyGroupOfDepths) {
  if (!backend::runs_on_host<ExecSpace>()) GTEST_SKIP() << "host paths only";
  expect_depth_groups_hold_the_bits<float, 8>(40, 20, 300, 9, 3);
  expect_depth_groups_hold_the_bits<double, 4>(31, 18, 40, 6, 5);
}

// The same in 2D: rows in blocks of 8 and a remainder of 4 or 1.
TEST(AdjointFrameLines, XStripRowBlocksHoldTheLinePathsBits) {
  expect_x_strip_rows_equal_lines<float, 8>(30, 80, 5, 20);
  expect_x_strip_rows_equal_lines<double, 4>(25, 60, 4, 17);
}

TEST(AdjointFrameLines, HostLinesMatchTheCellWiseKernel2D) {
  expect_host_lines_equal_cellwise<float, 8, 2>(40, 1, 300, 12, false);
  expect_host_lines_equal_cellwise<float, 8, 2>(60, 1, 100, 8, false);  // 28 rows not stored
  expect_host_lines_equal_cellwise<double, 2, 2>(25, 1, 35, 5, true);
}

}  // namespace
}  // namespace pwave
