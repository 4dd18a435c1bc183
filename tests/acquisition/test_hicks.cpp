// Hicks's windowed-sinc weights (acquisition/hicks.hpp) and their placement on the padded grid
// (propagation/point_taps.hpp): on grid points a single tap of weight 1; between them weights
// that interpolate band-limited fields; a free surface mirrors taps with a sign change.

#include <gtest/gtest.h>

#include <cmath>

#include "pwave/acquisition/hicks.hpp"
#include "pwave/core/error.hpp"
#include "pwave/propagation/point_taps.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

TEST(Hicks, GridPointIsOneTapOfWeightOne) {
  for (double f : {0.0, 7.0, 7.0 + 5e-7, 7.0 - 5e-7}) {
    const auto taps = hicks_axis(f, 4);
    ASSERT_EQ(taps.size(), 1u) << f;
    EXPECT_EQ(taps[0].index, 7 * (f > 1));
    EXPECT_EQ(taps[0].weight, 1.0);
  }
}

TEST(Hicks, WindowHasTwoRPointsAroundThePoint) {
  for (int r = hicks_min_half_width; r <= hicks_max_half_width; ++r) {
    const auto taps = hicks_axis(12.3, r);
    ASSERT_EQ(int(taps.size()), 2 * r);
    EXPECT_EQ(taps.front().index, 12 - r + 1);
    EXPECT_EQ(taps.back().index, 12 + r);
  }
  EXPECT_THROW(hicks_axis(0.5, 0), std::invalid_argument);
  EXPECT_THROW(hicks_axis(0.5, 11), std::invalid_argument);
}

TEST(Hicks, HalfwayWeightsAreSymmetric) {
  const auto taps = hicks_axis(3.5, 4);
  for (std::size_t k = 0; k < taps.size(); ++k) {
    EXPECT_NEAR(taps[k].weight, taps[taps.size() - 1 - k].weight, 1e-15);
  }
  EXPECT_GT(taps[3].weight, 0.6);  // sinc(0.5) K(0.5) = 0.6366 * 0.98...
}

// The weights interpolate cos(k x) for wavenumbers up to half of Nyquist (4 points per
// wavelength, the band Hicks's b values are designed for): the largest error over fractional
// positions and k, per half-width.
double worst_interpolation_error(int r, double k_max) {
  double worst = 0;
  for (double frac = 0.05; frac < 1.0; frac += 0.05) {
    const double f = 20.0 + frac;
    const auto taps = hicks_axis(f, r);
    for (double k = 0.0; k <= k_max + 1e-12; k += k_max / 20) {
      double sum = 0;
      for (const AxisTap& t : taps) sum += t.weight * std::cos(k * t.index);
      worst = std::max(worst, std::abs(sum - std::cos(k * f)));
    }
  }
  return worst;
}

TEST(Hicks, InterpolatesBandLimitedFieldsAndImprovesWithWidth) {
  const double pi = 3.14159265358979323846;
  const double e2 = worst_interpolation_error(2, pi / 2);
  const double e4 = worst_interpolation_error(4, pi / 2);
  const double e8 = worst_interpolation_error(8, pi / 2);
  std::printf("Hicks interpolation error up to half Nyquist: r=2 %.2e, r=4 %.2e, r=8 %.2e\n", e2,
              e4, e8);
  // Measured: 2.2e-2, 1.0e-3, 1.7e-6.
  EXPECT_LT(e2, 0.03);
  EXPECT_LT(e4, 0.0015);
  EXPECT_LT(e8, 3e-6);
  EXPECT_GT(e4, 0.0005);  // the figure docs/physics.md states
}

ForwardProblem small_problem(bool free_surface) {
  ForwardProblem p = test::homogeneous_problem(21, 31, 10.0, 2000.0, 0.001, 10, 15.0, 8, 5);
  if (free_surface) p.boundary.width[top] = 0, p.boundary.free_surface = true;
  return p;
}

TEST(PointTaps, ProductOfAxesOnThePaddedGrid) {
  const ForwardProblem p = small_problem(false);
  const auto layout = propagation::PaddedLayout::of(p);
  const auto on = propagation::point_taps(p, layout, Position{100.0, 50.0}, "k");
  ASSERT_EQ(on.size(), 1u);
  EXPECT_EQ(on[0].ix, 10 + 5);
  EXPECT_EQ(on[0].iz, 5 + 5);
  EXPECT_EQ(on[0].weight, 1.0);
  const auto half = propagation::point_taps(p, layout, Position{105.0, 50.0}, "k");  // x only
  ASSERT_EQ(half.size(), 8u);
  for (const auto& t : half) EXPECT_EQ(t.iz, 10);
  const auto both = propagation::point_taps(p, layout, Position{105.0, 52.5}, "k");
  ASSERT_EQ(both.size(), 64u);
  // Each tap's weight is the product of the axes' weights (x = 10.5 cells, z = 5.25 cells).
  const auto wx = hicks_axis(10.5, 4), wz = hicks_axis(5.25, 4);
  double sum = 0;
  for (const auto& t : both) {
    sum += t.weight;
    EXPECT_EQ(t.weight, wz[std::size_t(t.iz - 5 - wz[0].index)].weight *
                            wx[std::size_t(t.ix - 5 - wx[0].index)].weight);
  }
  EXPECT_NEAR(sum, 1.0, 1e-3);  // measured 1.00048: the windowed sinc sums to 1 nearly
}

TEST(PointTaps, FreeSurfaceMirrorsTapsAboveItWithTheOppositeSign) {
  const ForwardProblem p = small_problem(true);
  const auto layout = propagation::PaddedLayout::of(p);
  // z = 1.5 cells: window rows -2 .. 5; rows -2, -1 fold onto 2, 1 with the sign flipped.
  const auto taps = propagation::point_taps(p, layout, Position{100.0, 15.0}, "k");
  const auto z = hicks_axis(1.5, 4);
  ASSERT_EQ(taps.size(), 6u);  // rows 0 .. 5
  for (const auto& t : taps) {
    double expected = 0;
    for (const AxisTap& a : z) {
      if (a.index == t.iz) expected += a.weight;
      if (-a.index == t.iz && a.index < 0) expected -= a.weight;
    }
    EXPECT_NEAR(t.weight, expected, 1e-15) << "row " << t.iz;
  }
}

// The elastic fields have no parity about the surface: the taps above it are left out and the
// others scaled by the window's sum over what is kept, so a constant field is still read
// exactly (the acoustic fold above would read a constant as about 0 near the surface).
TEST(PointTaps, ElasticFreeSurfaceRenormalisesTheTapsBelowIt) {
  ForwardProblem p = small_problem(true);
  p.equation = physics::Equation::elastic;
  const auto layout = propagation::PaddedLayout::of(p);
  const auto taps = propagation::point_taps(p, layout, Position{100.0, 15.0}, "k");
  const auto z = hicks_axis(1.5, 4);
  double sum = 0, kept = 0;
  for (const AxisTap& a : z) sum += a.weight, kept += a.index >= 0 ? a.weight : 0.0;
  ASSERT_EQ(taps.size(), 6u);  // rows 0 .. 5; rows -2, -1 left out
  double read = 0;
  for (const auto& t : taps) {
    double expected = 0;
    for (const AxisTap& a : z)
      if (a.index == t.iz) expected = a.weight * sum / kept;
    EXPECT_NEAR(t.weight, expected, 1e-15) << "row " << t.iz;
    read += t.weight;
  }
  EXPECT_NEAR(read, sum, 1e-14);                // a constant field reads as in the interior
  EXPECT_GT(std::abs(sum / kept - 1.0), 0.02);  // not a no-op here: measured 3.2 %
}

TEST(PointTaps, OutsideTheModelIsRefusedSayingByHowMuch) {
  const ForwardProblem p = small_problem(false);
  const auto layout = propagation::PaddedLayout::of(p);
  try {
    propagation::point_taps(p, layout, Position{312.5, 50.0}, "acquisition.receivers[3]");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("acquisition.receivers[3]"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("by 12.5 m in x"), std::string::npos) << e.what();
  }
  // Taps reaching past a CPML narrower than the window are dropped, the point is kept: x = 0.25
  // cells with a 2-cell layer: window columns -3 .. 4, padded -1 .. 6, column -1 dropped.
  ForwardProblem narrow = p;
  narrow.boundary.width[left] = 2;
  const auto edge = propagation::point_taps(narrow, propagation::PaddedLayout::of(narrow),
                                            Position{2.5, 50.0}, "k");
  ASSERT_EQ(edge.size(), 7u);
  EXPECT_EQ(edge.front().ix, 0);
}

}  // namespace
}  // namespace pwave
