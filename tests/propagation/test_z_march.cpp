// The z-marching launch of the 3D interior (backends/z_march.hpp, execution.interior_3d:
// z_march): it visits every cell of its box once and nothing else, hands each cell exactly the
// taps of u^n a read from memory gives, and a forward run through it gives the traces of the
// cell-wise launch bit for bit (constant density, orders 4 and 8, float and double, CPML on every
// face or a free surface, tiles cut by the box's edges); so does the gradient, whose backward run
// marches the adjoint interior and, with boundary storage, the reversed step with its imaging.

#include <gtest/gtest.h>

#include <cmath>

#include "backends/z_march.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/gradient.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

// Records, for each cell the launch updates, how often it came and by how much its taps differ
// from the values read from u^n directly (0 when the taps are exactly those values).
template <class T, int R>
struct TapProbe {
  using value_type = T;
  static constexpr int radius = R;
  Field<T> u_cur;
  int halo, hy, ys;
  Kokkos::View<int****, MemSpace> hits;  // [shot][z][y][x] of the padded grid
  Kokkos::View<T****, MemSpace> error;

  template <class Taps>
  KOKKOS_INLINE_FUNCTION void update(int s, int iz, int iy, int ix, const Taps& t) const {
    const int z = iz + halo, x = (iy + hy) * ys + ix + halo;
    const auto distance = [](T a, T b) { return a > b ? a - b : b - a; };
    T e = distance(t.center(), u_cur(s, z, x));
    for (int j = 1; j <= R; ++j) {
      e += distance(t.z(j), u_cur(s, z + j, x) + u_cur(s, z - j, x));
      e += distance(t.x(j), u_cur(s, z, x + j) + u_cur(s, z, x - j));
      e += distance(t.y(j), u_cur(s, z, x + j * ys) + u_cur(s, z, x - j * ys));
    }
    hits(s, iz, iy, ix) += 1;
    error(s, iz, iy, ix) = e;
  }
};

template <int R>
void check_launch_covers_the_box_with_exact_taps() {
  using T = double;
  const int ns = 2, nz = 23, ny = 19, nx = 41;      // tiles cut by the box along x and y
  const int halo = R, hy = R, ys = nx + 2 * R + 3;  // a row longer than the grid, as padded rows
  Field<T> u("u", ns, nz + 2 * halo, (ny + 2 * hy) * ys);
  auto hu = Kokkos::create_mirror_view(u);
  for (std::size_t i = 0; i < hu.size(); ++i) hu.data()[i] = std::sin(0.37 * double(i)) + 1e-3 * i;
  Kokkos::deep_copy(u, hu);
  TapProbe<T, R> probe{u,
                       halo,
                       hy,
                       ys,
                       Kokkos::View<int****, MemSpace>("hits", ns, nz, ny, nx),
                       Kokkos::View<T****, MemSpace>("error", ns, nz, ny, nx)};
  const backend::Box box{3, nz - 4, 2, ny - 5, 5, nx - 1};
  backend::for_each_cell_z_march("pwave::test::z_march_probe", ExecSpace(), ns, box, probe);
  Kokkos::fence();
  auto hits = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), probe.hits);
  auto error = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), probe.error);
  long wrong = 0;
  for (int s = 0; s < ns; ++s)
    for (int iz = 0; iz < nz; ++iz)
      for (int iy = 0; iy < ny; ++iy)
        for (int ix = 0; ix < nx; ++ix) {
          const bool in = iz >= box.z0 && iz < box.z1 && iy >= box.y0 && iy < box.y1 &&
                          ix >= box.x0 && ix < box.x1;
          if (hits(s, iz, iy, ix) != (in ? 1 : 0) || error(s, iz, iy, ix) != 0.0) ++wrong;
        }
  EXPECT_EQ(wrong, 0) << "cells visited other than once each in the box, or with wrong taps";
}

TEST(ZMarch, VisitsEveryCellOfTheBoxOnceWithExactTaps) {
  check_launch_covers_the_box_with_exact_taps<2>();
  check_launch_covers_the_box_with_exact_taps<4>();
}

// A 3D model varying along every axis, so that a tap taken from the wrong line, plane or depth
// changes the traces.
ForwardProblem varied_problem_3d(int order, bool free_surface) {
  const int nz = 27, ny = 21, nx = 33;
  const double h = 10.0;
  ForwardProblem p =
      test::homogeneous_problem_3d(nz, ny, nx, h, 2000.0, 0.001, 160, 15.0, order, 7);
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < ny; ++iy)
      for (int ix = 0; ix < nx; ++ix)
        p.model.vp[(std::size_t(iz) * ny + iy) * nx + ix] =
            1800.0 + 14.0 * iz + 9.0 * iy + 5.0 * ix + 150.0 * std::sin(0.7 * ix + 0.3 * iy * iz);
  if (free_surface) {
    p.boundary.free_surface = true;
    p.boundary.width[top] = 0;
  }
  std::vector<Position> receivers;
  for (int k = 0; k < 12; ++k)
    receivers.push_back(test::at(15.0 + 25.0 * k, 40.0 + 13.0 * k, 30.0 + 19.0 * k));
  p.shots = {ShotGeometry{test::at(160.0, 100.0, 120.0), receivers},
             ShotGeometry{test::at(60.0, 150.0, 30.0), receivers}};
  return p;
}

template <class T>
void expect_same_traces(int order, bool free_surface) {
  ForwardProblem cells = varied_problem_3d(order, free_surface);
  ForwardProblem march = cells;
  march.interior_3d = Interior3D::z_march;
  const auto a = forward_model<T>(cells);
  const auto b = forward_model<T>(march);
  double peak = 0;
  long differ = 0;
  for (std::size_t s = 0; s < a.extent(0); ++s)
    for (std::size_t r = 0; r < a.extent(1); ++r)
      for (std::size_t n = 0; n < a.extent(2); ++n) {
        peak = std::max(peak, std::abs(double(a(s, r, n))));
        if (a(s, r, n) != b(s, r, n)) ++differ;
      }
  ASSERT_GT(peak, 0.0);
  EXPECT_EQ(differ, 0) << "order " << order << (free_surface ? ", free surface" : "");
}

TEST(ZMarch, ForwardTracesEqualTheCellWiseLaunchBitwise) {
  expect_same_traces<double>(8, false);
  expect_same_traces<float>(8, true);
  expect_same_traces<float>(4, false);
}

// The misfit gradient (its backward run through the same launch) against the cell-wise one.
template <class T>
void expect_same_gradient(int order, bool free_surface, Storage storage) {
  ForwardProblem truth = varied_problem_3d(order, free_surface);
  const auto observed = forward_model<T>(truth);
  ForwardProblem cells = truth;
  for (double& v : cells.model.vp) v = 0.98 * v + 30.0;
  ForwardProblem march = cells;
  march.interior_3d = Interior3D::z_march;
  const auto a = misfit_gradient<T>(cells, observed, storage);
  const auto b = misfit_gradient<T>(march, observed, storage);
  ASSERT_GT(a.misfit, 0.0);
  EXPECT_EQ(a.misfit, b.misfit);
  long differ = 0;
  double peak = 0;
  for (std::size_t i = 0; i < a.gradient.size(); ++i) {
    peak = std::max(peak, std::abs(double(a.gradient.data()[i])));
    if (a.gradient.data()[i] != b.gradient.data()[i]) ++differ;
  }
  ASSERT_GT(peak, 0.0);
  EXPECT_EQ(differ, 0) << "order " << order << ", storage " << to_string(storage);
}

TEST(ZMarch, GradientsEqualTheCellWiseLaunchBitwise) {
  expect_same_gradient<double>(8, false, Storage::boundary);
  expect_same_gradient<float>(4, true, Storage::boundary);
  expect_same_gradient<double>(8, true, Storage::checkpoint);
}

}  // namespace
}  // namespace pwave
