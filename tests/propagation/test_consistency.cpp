// Reciprocity, precision agreement, batching and blow-up detection.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "backends/wavefront.hpp"
#include "pwave/core/error.hpp"
#include "pwave/propagation/forward.hpp"
#include "support/analytic.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

// A heterogeneous, asymmetric model: a velocity gradient, a dipping fast layer and a slow lens.
Model heterogeneous_model(int nz, int nx, double h) {
  Model m = constant_model(Grid{nz, nx, h, h}, 0.0);
  for (int iz = 0; iz < nz; ++iz) {
    for (int ix = 0; ix < nx; ++ix) {
      const double z = iz * h, x = ix * h;
      double vp = 1800.0 + 0.6 * z;
      if (z > 300.0 + 0.25 * x && z < 420.0 + 0.25 * x) vp = 3200.0;
      const double r2 = (x - 650.0) * (x - 650.0) + (z - 250.0) * (z - 250.0);
      vp -= 500.0 * std::exp(-r2 / (2 * 60.0 * 60.0));
      m.vp[std::size_t(iz) * nx + ix] = vp;
    }
  }
  return m;
}

ForwardProblem heterogeneous_problem(int order) {
  ForwardProblem p = test::homogeneous_problem(81, 121, 10.0, 2000.0, 0.001, 900, 12.0, order, 20);
  p.model = heterogeneous_model(81, 121, 10.0);
  return p;
}

TEST(Reciprocity, SwappingSourceAndReceiverGivesTheSameTrace) {
  ForwardProblem p = heterogeneous_problem(8);
  const Position a{200.0, 100.0}, b{950.0, 600.0};
  p.shots = {ShotGeometry{a, {b}}, ShotGeometry{b, {a}}};
  const auto tr = forward_model<double>(p);
  const auto ab = test::trace(tr, 0, 0), ba = test::trace(tr, 1, 0);
  double peak = 0;
  for (double x : ab) peak = std::max(peak, std::abs(x));
  ASSERT_GT(peak, 0.0);
  // Exact in the interior scheme; the CPML breaks symmetry only at the level of its reflections.
  EXPECT_LT(test::relative_l2(ab, ba), 1e-3);
}

TEST(Precision, Float32AgreesWithFloat64) {
  ForwardProblem p = heterogeneous_problem(8);
  p.shots = {ShotGeometry{{300.0, 200.0}, {{800.0, 100.0}, {1100.0, 700.0}, {500.0, 500.0}}}};
  const auto t32 = forward_model<float>(p);
  const auto t64 = forward_model<double>(p);
  for (int r = 0; r < 3; ++r) {
    // Measured ~1e-4 after 900 steps: float32 rounding accumulated by the recursion.
    EXPECT_LT(test::relative_l2(test::trace(t32, 0, r), test::trace(t64, 0, r)), 1e-3) << r;
  }
}

TEST(Batching, ABatchEqualsShotsRunOneByOne) {
  ForwardProblem p = heterogeneous_problem(4);
  p.nt = 400;
  p.wavelet.resize(400);
  p.boundary.free_surface = true;
  p.boundary.width[top] = 0;
  const std::vector<Position> recs = {{100.0, 0.0}, {600.0, 50.0}, {1150.0, 10.0}};
  p.shots = {ShotGeometry{{100.0, 20.0}, recs}, ShotGeometry{{600.0, 400.0}, recs},
             ShotGeometry{{1000.0, 790.0}, recs}};
  const auto batched = forward_model<double>(p);
  for (int s = 0; s < 3; ++s) {
    ForwardProblem one = p;
    one.shots = {p.shots[s]};
    const auto single = forward_model<double>(one);
    for (int r = 0; r < 3; ++r) {
      for (int n = 0; n < p.nt; ++n) ASSERT_EQ(batched(s, r, n), single(0, r, n)) << s << r << n;
    }
  }
  // Smaller launches (two shots, then one) give the same traces as well.
  p.shot_batch = 2;
  const auto split = forward_model<double>(p);
  for (int s = 0; s < 3; ++s)
    for (int n = 0; n < p.nt; ++n) ASSERT_EQ(batched(s, 1, n), split(s, 1, n));
}

TEST(BlowUp, NonFiniteWavefieldIsReportedWithItsStep) {
  ForwardProblem p = heterogeneous_problem(8);
  p.shots = {ShotGeometry{{300.0, 200.0}, {{800.0, 100.0}}}};
  p.wavelet[37] = std::numeric_limits<double>::quiet_NaN();
  // Step by step: the first check after the NaN (every 10 steps). In sweeps of several steps
  // (execution.wavefront_steps, host backends, on one thread or pipelined over several): the
  // end of the sweep holding that check, 900 steps in sweeps of 32.
  for (const int sweep : {1, 32}) {
    p.wavefront_steps = sweep;
    const bool sweeps = sweep > 1 && backend::runs_wavefronts<ExecSpace>();
    const int step = sweeps ? 64 : 40;
    try {
      forward_model<float>(p);
      FAIL() << "expected a RuntimeError";
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("time step " + std::to_string(step) + " "),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace pwave
