// CPML: energy reflected by the absorbing layers, against a run in a domain large enough that
// nothing reflects within the time window.

#include <gtest/gtest.h>

#include "pwave/propagation/forward.hpp"
#include "support/analytic.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

constexpr double v = 2000.0, f = 10.0, h = 10.0, dt = 0.001;
constexpr int nt = 800;

// Receivers on a square 50 m inside the edges of a 1 km x 1 km model, source in the middle.
// `offset` shifts the whole geometry (metres) to embed it in a larger model.
ShotGeometry ring_geometry(double offset) {
  ShotGeometry shot;
  shot.source = {offset + 500.0, offset + 500.0};
  for (double t = 50.0; t <= 950.0; t += 100.0) {
    shot.receivers.push_back({offset + t, offset + 50.0});
    shot.receivers.push_back({offset + t, offset + 950.0});
    shot.receivers.push_back({offset + 50.0, offset + t});
    shot.receivers.push_back({offset + 950.0, offset + t});
  }
  return shot;
}

double reflected_energy_ratio(int width, int order) {
  ForwardProblem small = test::homogeneous_problem(101, 101, h, v, dt, nt, f, order, width);
  small.shots = {ring_geometry(0.0)};
  // Reference: 3 km square, geometry in the middle; its own boundary is >= 1 km from every
  // receiver, so nothing comes back within 0.8 s.
  ForwardProblem big = test::homogeneous_problem(301, 301, h, v, dt, nt, f, order, 20);
  big.shots = {ring_geometry(1000.0)};
  const auto a = forward_model<double>(small);
  const auto b = forward_model<double>(big);
  double diff = 0, ref = 0;
  for (std::size_t r = 0; r < a.extent(1); ++r) {
    for (int n = 0; n < nt; ++n) {
      diff += (a(0, r, n) - b(0, r, n)) * (a(0, r, n) - b(0, r, n));
      ref += b(0, r, n) * b(0, r, n);
    }
  }
  return diff / ref;
}

TEST(Cpml, ReflectedEnergyBelowOnePercentForSeveralWidths) {
  for (int width : {10, 20, 30}) {
    const double ratio = reflected_energy_ratio(width, 8);
    RecordProperty("width_" + std::to_string(width), std::to_string(ratio));
    EXPECT_LT(ratio, 0.01) << "CPML width " << width;
  }
}

TEST(Cpml, WiderLayersReflectLess) {
  EXPECT_LT(reflected_energy_ratio(30, 4), reflected_energy_ratio(10, 4));
}

TEST(Cpml, NoLayerReflectsStrongly) {
  // Sanity check that the measurement sees reflections: rigid walls reflect everything.
  EXPECT_GT(reflected_energy_ratio(0, 8), 0.1);
}

}  // namespace
}  // namespace pwave
