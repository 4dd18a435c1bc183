// The 3D propagator (the same kernels as 2D with Dim = 3) against the analytic Green's function
// of u_tt = v^2 lap(u) + v^2 s(t) delta(x - x_s) in 3D, u = s(t - r/v) / (4 pi r): shape AND
// absolute amplitude; the y axis against x and z; the free surface against an image source;
// the six CPML faces against a larger domain.

#include <gtest/gtest.h>

#include <cstdio>

#include "pwave/propagation/forward.hpp"
#include "support/analytic.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

constexpr double v = 2000.0, f = 15.0, h = 10.0, dt = 0.0005;
constexpr int nt = 600;

// Source at (x, y, z) = (300, 300, zs) m in a 61^3 grid at 10 m; receivers 100 and 200 m away
// along +x, +y, +z and one 3D diagonal.
struct Shot3D {
  std::vector<Position> receivers;
  Position source;
  HostArray3<double> traces;
};

Shot3D run(int order, bool free_surface, int n = 61, int width = 10, double c = 300.0,
           double reflection = BoundaryConfig().reflection) {
  ForwardProblem p = test::homogeneous_problem_3d(n, n, n, h, v, dt, nt, f, order, width);
  p.boundary.reflection = reflection;
  const double zs = free_surface ? 100.0 : c;
  if (free_surface) p.boundary.width[top] = 0, p.boundary.free_surface = true;
  ShotGeometry shot;
  shot.source = test::at(c, c, zs);
  shot.receivers = {test::at(c + 100, c, zs),
                    test::at(c + 200, c, zs),
                    test::at(c, c + 100, zs),
                    test::at(c, c + 200, zs),
                    test::at(c, c, zs + 100),
                    test::at(c, c, zs + 200),
                    test::at(c + 100, c + 100, zs + 100)};
  p.shots = {shot};
  return {shot.receivers, shot.source, forward_model<double>(p)};
}

double distance(const Position& a, const Position& b) {
  return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
                   (a.z - b.z) * (a.z - b.z));
}

std::vector<double> analytic(const Shot3D& r, std::size_t k, bool free_surface) {
  const auto s = test::ricker_fn(f, 1.5 / f);
  const Position& rec = r.receivers[k];
  Position image = r.source;
  image.z = -r.source.z;
  std::vector<double> a(nt);
  for (int n = 0; n < nt; ++n) {
    a[n] = test::green3d_response(s, v, distance(rec, r.source), n * dt);
    if (free_surface) a[n] -= test::green3d_response(s, v, distance(rec, image), n * dt);
  }
  return a;
}

double peak(const std::vector<double>& t) {
  double m = 0;
  for (double x : t) m = std::max(m, std::abs(x));
  return m;
}

TEST(Analytic3D, Order8MatchesGreensFunctionInShapeAndAmplitude) {
  const Shot3D r = run(8, false);
  for (std::size_t k = 0; k < r.receivers.size(); ++k) {
    const auto ana = analytic(r, k, false);
    const auto num = test::trace(r.traces, 0, int(k));
    // Measured: 0.09-0.19% relative L2, peaks within 0.005%.
    EXPECT_LT(test::relative_l2(num, ana), 0.005) << "receiver " << k;
    EXPECT_NEAR(peak(num) / peak(ana), 1.0, 0.002) << "receiver " << k;
  }
}

TEST(Analytic3D, YAxisMatchesXAndZ) {
  // With dx = dy = dz the scheme is symmetric under swapping axes: receivers at the same offset
  // along x, y and z record the same trace (up to round-off), which a wrong y stride, y CPML or
  // y source/receiver index would break.
  const Shot3D r = run(4, false);
  for (int k = 0; k < 2; ++k) {
    const auto tx = test::trace(r.traces, 0, k), ty = test::trace(r.traces, 0, 2 + k),
               tz = test::trace(r.traces, 0, 4 + k);
    EXPECT_LT(test::relative_l2(ty, tx), 1e-10) << "offset " << k;
    EXPECT_LT(test::relative_l2(tz, tx), 1e-10) << "offset " << k;
  }
}

TEST(Analytic3D, FreeSurfaceMatchesImageSource) {
  const Shot3D r = run(8, true);
  for (std::size_t k = 0; k < r.receivers.size(); ++k) {
    const auto ana = analytic(r, k, true);
    const auto num = test::trace(r.traces, 0, int(k));
    EXPECT_LT(test::relative_l2(num, ana), 0.005) << "receiver " << k;  // measured 0.12-0.21%
  }
}

TEST(Analytic3D, CpmlAbsorbsOnAllSixFaces) {
  // Source near a corner so that waves hit every face early; the reference is the same source
  // and receivers in a domain large enough that nothing comes back within nt steps.
  // R = 1e-3, as docs/physics.md states the figure (the default 1e-8 gives 1.8e-10 with these
  // 10 cells: a large R suits thin layers).
  constexpr double c = 150.0, reflection = 1e-3;
  const Shot3D small = run(8, false, 41, 10, c, reflection);
  const Shot3D large = run(8, false, 81, 10, c + 200.0, reflection);
  double num = 0, den = 0;
  for (std::size_t k = 0; k < small.receivers.size(); ++k) {
    const auto a = test::trace(small.traces, 0, int(k)), b = test::trace(large.traces, 0, int(k));
    for (int n = 0; n < nt; ++n) num += (a[n] - b[n]) * (a[n] - b[n]), den += b[n] * b[n];
  }
  // Reflected energy relative to the direct wave: 10 CPML cells. In the large domain the
  // nearest face is 350 m from the source: its echo reaches no receiver within nt steps.
  std::printf("3D CPML, 10 cells on six faces: reflected energy %.3e\n", num / den);
  // docs/physics.md: 2.0e-11 (4e-6 with the CPML form before the Deepwave-like one); pinned
  // within a factor of 2.
  EXPECT_LT(num / den, 4.0e-11);
  EXPECT_GT(num / den, 1.0e-11);
  RecordProperty("reflected_energy", std::to_string(num / den));
}

}  // namespace
}  // namespace pwave
