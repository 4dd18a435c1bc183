// CPML: energy reflected by the absorbing layers, against a run in a domain large enough that
// nothing reflects within the time window. The figures are pinned within a factor of 2 of what
// docs/physics.md states, so that a regression of the layer (or an unexplained change) fails.

#include <gtest/gtest.h>

#include <cstdio>

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

/// Reflected energy / direct-wave energy at the ring of receivers, float64.
double reflected_energy_ratio(int width, int order, double reflection) {
  ForwardProblem small = test::homogeneous_problem(101, 101, h, v, dt, nt, f, order, width);
  small.shots = {ring_geometry(0.0)};
  small.boundary.reflection = reflection;
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

struct Documented {
  int width, order;
  double reflection, energy;  ///< the figure in docs/physics.md
};

// docs/physics.md, "Boundaries": with R = 1e-3 the layer reflects about R^2 of the energy
// whatever its width (the design reflection, not the discretisation, sets it); with a small R
// what is left is the discretisation's own reflection.
constexpr Documented documented[] = {
    {10, 8, 1e-3, 8.6e-7}, {20, 8, 1e-3, 1.1e-6},  {30, 8, 1e-3, 9.3e-7},
    {10, 8, 1e-8, 2.1e-9}, {20, 8, 1e-8, 1.2e-13}, {20, 4, 1e-3, 1.3e-6},
};

TEST(Cpml, ReflectedEnergyIsWhatTheDocsSay) {
  for (const Documented& d : documented) {
    const double ratio = reflected_energy_ratio(d.width, d.order, d.reflection);
    std::printf("CPML width %d order %d R %.0e: reflected energy %.3e (documented %.1e)\n", d.width,
                d.order, d.reflection, ratio, d.energy);
    EXPECT_LT(ratio, 2.0 * d.energy) << "width " << d.width << ", R " << d.reflection;
    EXPECT_GT(ratio, 0.5 * d.energy) << "width " << d.width << ", R " << d.reflection;
  }
}

TEST(Cpml, NoLayerReflectsStrongly) {
  // Sanity check that the measurement sees reflections: rigid walls reflect everything.
  EXPECT_GT(reflected_energy_ratio(0, 8, 1e-3), 0.1);
}

}  // namespace
}  // namespace pwave
