// The padded layout is the one statement of the padded grid: what the propagator allocates and
// what `pwave check` estimates from it must agree, in 2D and 3D, with and without layers.

#include <gtest/gtest.h>

#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/padded_layout.hpp"
#include "support/problems.hpp"

namespace pwave::propagation {
namespace {

void expect_layout_matches_propagator(const ForwardProblem& p) {
  const PaddedLayout l = PaddedLayout::of(p);
  const AcousticPropagator<float> prop(p);
  const auto& st = prop.state();
  EXPECT_EQ(l.nz, st.nz);
  EXPECT_EQ(l.nx, st.nx);
  EXPECT_EQ(l.ny, st.ny);
  const long strips = long(st.psi_x.extent(1)) * long(st.psi_x.extent(2)) +
                      long(st.psi_z.extent(1)) * long(st.psi_z.extent(2)) +
                      long(st.psi_y.extent(1)) * long(st.psi_y.extent(2));
  EXPECT_EQ(l.strip_cells(), strips);
  const double boundary = prop.history_bytes_per_shot(StorageOptions(Storage::boundary));
  EXPECT_DOUBLE_EQ(double(p.nt + 1) * double(l.frame().size()) * sizeof(float), boundary);
}

ForwardProblem small_problem(bool is3d) {
  ForwardProblem p =
      is3d ? test::homogeneous_problem_3d(30, 25, 35, 10.0, 2000.0, 0.001, 10, 10.0, 8, 12)
           : test::homogeneous_problem(30, 35, 10.0, 2000.0, 0.001, 10, 10.0, 8, 12);
  ShotGeometry shot;
  shot.source = is3d ? test::at(100.0, 100.0, 100.0) : Position{100.0, 100.0};
  shot.receivers = {shot.source};
  p.shots = {shot};
  return p;
}

TEST(PaddedLayout, MatchesThePropagatorIn2D) {
  ForwardProblem p = small_problem(false);
  expect_layout_matches_propagator(p);
  p.boundary.width[top] = 0;  // a free surface has no strip
  p.boundary.free_surface = true;
  expect_layout_matches_propagator(p);
  const PaddedLayout l = PaddedLayout::of(p);
  EXPECT_EQ(l.strip[top], 0);
  EXPECT_EQ(l.strip[bottom], 12 + 4);  // the layer and a stencil radius of the model
}

TEST(PaddedLayout, MatchesThePropagatorIn3D) {
  ForwardProblem p = small_problem(true);
  expect_layout_matches_propagator(p);
  p.boundary.width[front] = 0;
  p.boundary.width[left] = 5;
  expect_layout_matches_propagator(p);
  // The frame of a 3D grid has its y slabs (the back layer here): the estimate that left them
  // out counted fewer cells than the propagator stores.
  const PaddedLayout l = PaddedLayout::of(p);
  const FrameRegion without_y(l.nz, l.nx, l.strip[top], l.strip[bottom], l.strip[left],
                              l.strip[right], l.radius, l.ny);
  EXPECT_GT(l.frame().size(), without_y.size());
}

}  // namespace
}  // namespace pwave::propagation
