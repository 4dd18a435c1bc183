// Sources and receivers between grid points (Hicks interpolation, acquisition/hicks.hpp): the
// traces match the analytic Green's functions at the exact positions, in shape and absolute
// amplitude, where grid-snapped positions do not; a receiver swept across a cell records a trace
// that changes smoothly; on grid points nothing changes; injection and recording stay exact
// adjoints (dot product) and the gradient exact (finite differences), next to a CPML and a free
// surface, in 2D and 3D.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "pwave/propagation/forward.hpp"
#include "support/adjoint_checks.hpp"
#include "support/analytic.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

constexpr double v = 2000.0, f = 15.0, dt = 0.0005;

Position snapped(const Position& p, double h) {
  return Position{std::round(p.x / h) * h, std::round(p.z / h) * h, std::round(p.y / h) * h};
}

double distance(const Position& a, const Position& b) {
  return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
                   (a.z - b.z) * (a.z - b.z));
}

// Worst relative L2 error and worst peak ratio error of the traces of `shot` against the
// analytic solution at the exact positions, 2D (green2d) or 3D (green3d).
struct Errors {
  double l2 = 0, peak = 0;
};
Errors against_green(ForwardProblem p, const ShotGeometry& exact, bool snap) {
  const bool is3d = p.model.grid.is_3d();
  const double h = p.model.grid.dx;
  ShotGeometry run = exact;
  if (snap) {
    run.source = snapped(exact.source, h);
    for (Position& r : run.receivers) r = snapped(r, h);
  }
  p.shots = {run};
  const auto traces = forward_model<double>(p);
  const auto s = test::ricker_fn(f, 1.5 / f);
  Errors e;
  for (std::size_t r = 0; r < exact.receivers.size(); ++r) {
    const double dist = distance(exact.receivers[r], exact.source);
    std::vector<double> ana(std::size_t(p.nt));
    for (int n = 0; n < p.nt; ++n) {
      ana[n] = is3d ? test::green3d_response(s, v, dist, n * dt)
                    : test::green2d_response(s, v, dist, n * dt);
    }
    const auto num = test::trace(traces, 0, int(r));
    double pn = 0, pa = 0;
    for (int n = 0; n < p.nt; ++n)
      pn = std::max(pn, std::abs(num[n])), pa = std::max(pa, std::abs(ana[n]));
    e.l2 = std::max(e.l2, test::relative_l2(num, ana));
    e.peak = std::max(e.peak, std::abs(pn / pa - 1));
  }
  return e;
}

// The traces of `shot` (off the grid) against the analytic solution, with Hicks interpolation
// and with the positions snapped to the nearest grid point: Hicks within `l2` and `peak`,
// snapping at least 50 times worse.
void expect_hicks_beats_snapping(const ForwardProblem& p, const ShotGeometry& shot, double l2,
                                 double peak, const char* label) {
  const Errors hicks = against_green(p, shot, false);
  const Errors snap = against_green(p, shot, true);
  std::printf("%s off grid: Hicks L2 %.2e peak %.2e; snapped L2 %.2e peak %.2e\n", label, hicks.l2,
              hicks.peak, snap.l2, snap.peak);
  EXPECT_LT(hicks.l2, l2);
  EXPECT_LT(hicks.peak, peak);
  EXPECT_GT(snap.l2, 50 * hicks.l2);
}

TEST(OffGrid, MatchesGreensFunction2DWhereSnappingDoesNot) {
  // 10 m grid, order 8; source and receivers up to half a cell off the grid in x and z.
  ForwardProblem p = test::homogeneous_problem(121, 121, 10.0, v, dt, 700, f, 8, 30);
  ShotGeometry shot;
  shot.source = {604.6, 596.3};
  shot.receivers = {{707.3, 601.8}, {803.5, 594.4}, {598.2, 805.5}, {742.7, 738.6}};
  // Measured: Hicks 1.6e-3 (L2), 4.0e-4 (peak); snapped 0.33, 3.3e-2.
  expect_hicks_beats_snapping(p, shot, 0.003, 0.001, "2D");
}

TEST(OffGrid, MatchesGreensFunction3DWhereSnappingDoesNot) {
  ForwardProblem p = test::homogeneous_problem_3d(61, 61, 61, 10.0, v, dt, 600, f, 8, 10);
  ShotGeometry shot;
  shot.source = test::at(304.4, 296.7, 302.5);
  shot.receivers = {test::at(406.5, 303.2, 297.3), test::at(297.8, 405.6, 304.1),
                    test::at(383.3, 375.5, 386.4)};
  // Measured: Hicks 1.9e-3 (L2), 7.0e-4 (peak); snapped 0.39, 6.8e-2.
  expect_hicks_beats_snapping(p, shot, 0.003, 0.0015, "3D");
}

TEST(OffGrid, ReceiverSweptAcrossACellChangesSmoothlyAndGridPointsAreUnchanged) {
  ForwardProblem p = test::homogeneous_problem(81, 81, 10.0, v, dt, 500, f, 8, 20);
  ShotGeometry shot;
  shot.source = {400.0, 400.0};
  const int steps = 10;
  for (int k = 0; k <= steps; ++k) shot.receivers.push_back({550.0 + 10.0 * k / steps, 430.0});
  p.shots = {shot};
  const auto sweep = forward_model<double>(p);
  // The two ends lie on grid points: the same traces, bit for bit, as a run with only them.
  ForwardProblem ends = p;
  ends.shots[0].receivers = {shot.receivers.front(), shot.receivers.back()};
  const auto on_grid = forward_model<double>(ends);
  for (int n = 0; n < p.nt; ++n) {
    ASSERT_EQ(sweep(0, 0, n), on_grid(0, 0, n)) << n;
    ASSERT_EQ(sweep(0, steps, n), on_grid(0, 1, n)) << n;
  }
  // First differences between neighbouring positions are all alike; second differences are a
  // small fraction of them (a snapped receiver jumps once: ratio 1).
  double first_min = 1e300, first_max = 0, second_max = 0;
  for (int k = 0; k < steps; ++k) {
    double d1 = 0, d2 = 0;
    for (int n = 0; n < p.nt; ++n) {
      d1 += std::pow(sweep(0, k + 1, n) - sweep(0, k, n), 2);
      if (k > 0) d2 += std::pow(sweep(0, k + 1, n) - 2 * sweep(0, k, n) + sweep(0, k - 1, n), 2);
    }
    first_min = std::min(first_min, std::sqrt(d1));
    first_max = std::max(first_max, std::sqrt(d1));
    second_max = std::max(second_max, std::sqrt(d2));
  }
  std::printf("sweep: first differences %.3e .. %.3e, largest second difference %.3e\n", first_min,
              first_max, second_max);
  // Measured: first differences 0.974 of the largest, second differences 0.059 of it.
  EXPECT_GT(first_min, 0.9 * first_max);
  EXPECT_LT(second_max, 0.09 * first_max);
}

// A heterogeneous model, CPML of 12 cells; positions off the grid next to the CPML (their
// windows reach into it), next to the free surface (taps mirrored), and inside the box the
// boundary storage rebuilds.
ForwardProblem off_grid_problem(bool free_surface, bool three_d) {
  const int nz = 41, nx = 57, ny = three_d ? 19 : 1;
  ForwardProblem p =
      three_d ? test::homogeneous_problem_3d(nz, ny, nx, 10.0, 2000.0, 0.001, 240, 15.0, 8, 10)
              : test::homogeneous_problem(nz, nx, 10.0, 2000.0, 0.001, 300, 15.0, 8, 12);
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < ny; ++iy)
      for (int ix = 0; ix < nx; ++ix) {
        const double r2 = std::pow(ix - 30.0, 2) + std::pow(iz - 22.0, 2) + std::pow(iy - 9.0, 2);
        p.model.vp[(std::size_t(iz) * ny + iy) * nx + ix] =
            1800.0 + 15.0 * iz + 600.0 * std::exp(-r2 / 40.0);
      }
  if (free_surface) p.boundary.width[top] = 0, p.boundary.free_surface = true;
  p.boundary.pml_velocity = 3000.0;
  const double y = three_d ? 93.7 : 0.0;
  const auto pos = [&](double x, double z) { return test::at(x, y, z); };
  const std::vector<Position> recs = {pos(13.4, 31.2),   pos(303.3, 4.6), pos(551.7, 200.0),
                                      pos(100.0, 386.1), pos(280.0, 0.0), pos(303.3, 4.6)};
  p.shots = {ShotGeometry{pos(46.3, 62.8), recs}, ShotGeometry{pos(287.5, 215.5), recs}};
  return p;
}

TEST(OffGridAdjoint, DotProductBoundaryStorage) {
  test::expect_dot_product(off_grid_problem(false, false), Storage::boundary);
}
TEST(OffGridAdjoint, DotProductFreeSurfaceCheckpoint) {
  test::expect_dot_product(off_grid_problem(true, false), Storage::checkpoint);
}
TEST(OffGridAdjoint, DotProductFreeSurfaceBoundary3D) {
  test::expect_dot_product(off_grid_problem(true, true), Storage::boundary);
}

std::vector<std::vector<double>> bumps(const Grid& g) {
  std::vector<double> dv(std::size_t(g.cells()));
  const int plane = g.ny * g.nx;
  for (int iz = 0; iz < g.nz; ++iz)
    for (int q = 0; q < plane; ++q) {
      const int ix = q % g.nx, iy = q / g.nx;
      dv[std::size_t(iz) * plane + q] =
          std::exp(-(std::pow(ix - 28.0, 2) + std::pow(iz - 4.0, 2) + std::pow(iy - 9.0, 2)) /
                   20.0) -
          std::exp(-(std::pow(ix - 29.0, 2) + std::pow(iz - 21.0, 2) + std::pow(iy - 9.0, 2)) /
                   30.0);
    }
  return {dv};
}

TEST(OffGridAdjoint, GradientMatchesFiniteDifferencesFreeSurfaceBoundary) {
  const ForwardProblem p = off_grid_problem(true, false);
  test::expect_gradient_matches_finite_differences(p, Storage::boundary, bumps(p.model.grid));
}

}  // namespace
}  // namespace pwave
