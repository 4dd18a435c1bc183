// Host wavefronts (backends/wavefront.hpp, execution.wavefront_steps): the frame's units join
// into groups tall enough for the stencil and a receiver, the schedule runs every (shot, step,
// group) once and each after what it reads, and a 2D constant-density forward run of several
// steps per sweep gives the traces of the step-by-step run bit for bit (CPML on every side or a
// free surface, sources and receivers between grid points, in the strips and across groups,
// orders 2 to 8, float and double, NaN checks due within sweeps); a `boundary` gradient, whose
// forward run sweeps too and keeps each group's frame as it goes, and whose backward run sweeps
// up from the last step restoring them (the reversed step, the adjoint step with its CPML, the
// residuals injected and the source term reversed group by group), is the step-by-step
// gradient bit for bit; so are a `full` one (each group's snapshot rows kept, then imaged) and
// a `checkpoint` one (each segment recomputed and stepped back through in sweeps). A 3D forward
// run that keeps nothing sweeps its depths, with the traces of the step-by-step run too. So do
// the elastic equation's 2D and 3D forward runs (each update a level of the sweep) and the
// first forward run of its `checkpoint` gradient.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backends/wavefront.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/gradient.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

TEST(Wavefront, GroupsCoverTheUnitsWithAtLeastTheRowsAsked) {
  // 20-row bands, an interior of 61 rows in blocks of 8 (the last of 5 rows).
  const backend::FrameUnits units{{101, 90, 20, 81, 20, 70}, 8};
  for (int min_rows : {1, 4, 8, 9, 20, 100, 500}) {
    const backend::WavefrontGroups g = backend::wavefront_groups(units, min_rows);
    ASSERT_GE(g.count(), 1);
    EXPECT_EQ(g.first.front(), 0);
    EXPECT_EQ(g.first.back(), units.count());
    for (int i = 0; i < g.count(); ++i) {
      const int rows = units.first_row(g.first[i + 1]) - g.first_row(i);
      EXPECT_GT(g.first[i + 1], g.first[i]);
      if (g.count() > 1) EXPECT_GE(rows, min_rows) << "group " << i;
      for (int iz = g.first_row(i); iz < units.first_row(g.first[i + 1]); ++iz) {
        ASSERT_EQ(g.group_of(iz), i) << "row " << iz << ", min_rows " << min_rows;
      }
    }
  }
  EXPECT_EQ(backend::wavefront_groups(units, 500).count(), 1);
}

// Each (shot, level, group) once; level j at group i after level j - 1 at group i + 1 (what it
// reads below) and before level j + 1 at group i - 1 (which writes over what it reads). With
// fewer shots than threads, a shot's levels run on several threads (a pipeline): each visit's
// start and end are stamped from one atomic clock.
template <class Exec>
void check_schedule(int ns) {
  const int groups = 7, levels = 5;
  std::atomic<int> clock{0};
  std::vector<int> start(std::size_t(ns) * groups * levels, -1), end(start.size(), -1);
  const auto at = [&](int s, int j, int i) { return (std::size_t(s) * levels + j) * groups + i; };
  backend::for_each_shot_wavefront(
      "pwave::test::wavefront_order", Exec(), ns, groups, levels, [&](int s, int j, int i) {
        start[at(s, j, i)] = clock++;
        // long enough for the other threads to overtake
        const auto t = std::chrono::steady_clock::now();
        while (std::chrono::steady_clock::now() - t < std::chrono::microseconds(50)) {
        }
        end[at(s, j, i)] = clock++;
      });
  Kokkos::fence();
  ASSERT_EQ(clock.load(), 2 * ns * groups * levels) << ns << " shots: each visit once";
  for (int s = 0; s < ns; ++s)
    for (int j = 0; j < levels; ++j)
      for (int i = 0; i < groups; ++i) {
        const int t = start[at(s, j, i)];
        ASSERT_GE(t, 0) << "not visited";
        if (j > 0) EXPECT_LT(end[at(s, j - 1, std::min(i + 1, groups - 1))], t);
        if (j + 1 < levels && i > 0) EXPECT_GT(start[at(s, j + 1, i - 1)], end[at(s, j, i)]);
      }
}

template <class Exec>
void check_schedule_where_it_runs() {
  if constexpr (backend::runs_wavefronts<Exec>()) {
    check_schedule<Exec>(3);
    check_schedule<Exec>(1);  // OpenMP: one shot's levels on several threads
  } else {
    GTEST_SKIP() << "this build steps one step at a time (no host row paths)";
  }
}

TEST(Wavefront, ScheduleRunsEachGroupOnceAfterWhatItReads) {
  check_schedule_where_it_runs<ExecSpace>();
}

// A layered, laterally varying model; three shots (enough for every thread of the OpenMP
// tests; with one, each shot's levels are pipelined over the threads) whose sources and
// receivers lie between grid points, in the CPML, near the surface and across the rows of two
// groups.
ForwardProblem varied_problem(int order, bool free_surface, int nt, int shots = 3) {
  const int nz = 71, nx = 63;
  const double h = 10.0;
  ForwardProblem p = test::homogeneous_problem(nz, nx, h, 2000.0, 0.001, nt, 15.0, order, 20);
  for (int iz = 0; iz < nz; ++iz)
    for (int ix = 0; ix < nx; ++ix)
      p.model.vp[std::size_t(iz) * nx + ix] =
          1700.0 + 9.0 * iz + 4.0 * ix + 120.0 * std::sin(0.3 * ix + 0.11 * iz * iz);
  if (free_surface) {
    p.boundary.free_surface = true;
    p.boundary.width[top] = 0;
  }
  std::vector<Position> receivers;
  for (int k = 0; k < 17; ++k) receivers.push_back(Position{3.0 + 37.3 * k, 4.0 + 41.7 * k});
  p.shots = {ShotGeometry{Position{311.0, 23.0}, receivers},
             ShotGeometry{Position{7.0, 653.0}, receivers},
             ShotGeometry{Position{600.0, 345.5}, receivers}};
  p.shots.resize(std::size_t(shots));
  return p;
}

/// The values of a and b that differ in their bits; `peak` the largest magnitude in a.
template <class V>
long differing_values(const V& a, const V& b, double& peak) {
  using T = typename V::value_type;
  peak = 0;
  long differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    peak = std::max(peak, std::abs(double(a.data()[i])));
    if (std::memcmp(&a.data()[i], &b.data()[i], sizeof(T)) != 0) ++differ;
  }
  return differ;
}

/// `stepwise` run step by step and with `levels` steps per sweep: the same traces, bit for bit.
template <class T>
void expect_swept_traces_equal(ForwardProblem stepwise, int levels, const std::string& what) {
  stepwise.wavefront_steps = 1;
  ForwardProblem swept = stepwise;
  swept.wavefront_steps = levels;
  const auto a = forward_model<T>(stepwise);
  const auto b = forward_model<T>(swept);
  ASSERT_EQ(a.size(), b.size());
  double peak = 0;
  const long differ = differing_values(a, b, peak);
  ASSERT_GT(peak, 0.0);
  EXPECT_EQ(differ, 0) << what << ", " << levels << " steps per sweep";
}

template <class T>
void expect_same_traces(int order, bool free_surface, int levels, int check_interval,
                        int shots = 3) {
  ForwardProblem p = varied_problem(order, free_surface, 120, shots);
  p.check_interval = check_interval;
  expect_swept_traces_equal<T>(p, levels,
                               "order " + std::to_string(order) +
                                   (free_surface ? ", free surface" : "") + ", NaN check every " +
                                   std::to_string(check_interval) + ", " + std::to_string(shots) +
                                   " shots");
}

TEST(Wavefront, ForwardTracesEqualTheStepByStepRunBitwise) {
  expect_same_traces<float>(8, false, 8, 10);
  expect_same_traces<float>(8, true, 8, 10);
  expect_same_traces<double>(8, false, 5, 7);
  expect_same_traces<double>(4, true, 16, 50);
  expect_same_traces<float>(2, false, 3, 1000);
  expect_same_traces<float>(6, true, 2, 9);
  expect_same_traces<float>(8, true, 7, 10, 1);
}

// A 3D model varying along every axis, CPML (10 cells) on every face or a free surface on top,
// two shots whose sources and receivers lie between grid points, in the strips and edges, near
// the surface and across groups of depths.
ForwardProblem varied_problem_3d(int order, bool free_surface, int nt, int shots = 2) {
  const int nz = 26, ny = 21, nx = 24;
  ForwardProblem p =
      test::homogeneous_problem_3d(nz, ny, nx, 10.0, 2000.0, 0.001, nt, 15.0, order, 10);
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < ny; ++iy)
      for (int ix = 0; ix < nx; ++ix)
        p.model.vp[(std::size_t(iz) * ny + iy) * nx + ix] =
            1800.0 + 8.0 * iz + 3.0 * ix - 2.0 * iy + 90.0 * std::sin(0.3 * ix + 0.2 * iy * iz);
  if (free_surface) {
    p.boundary.free_surface = true;
    p.boundary.width[top] = 0;
  }
  std::vector<Position> receivers;
  for (int k = 0; k < 9; ++k)
    receivers.push_back(Position{3.0 + 27.3 * k, 4.0 + 29.7 * k, 198.0 - 23.1 * k});
  p.shots = {ShotGeometry{Position{111.0, 23.0, 57.5}, receivers},
             ShotGeometry{Position{7.0, 233.0, 191.0}, receivers}};
  p.shots.resize(std::size_t(shots));
  return p;
}

// The 3D forward (runs that keep nothing) sweeps its depths too (host_boxes_3d_depths): the
// traces of the step-by-step run, bit for bit.
template <class T>
void expect_same_traces_3d(int order, bool free_surface, int levels, int shots = 2) {
  expect_swept_traces_equal<T>(varied_problem_3d(order, free_surface, 60, shots), levels,
                               "3D, order " + std::to_string(order) +
                                   (free_surface ? ", free surface" : "") + ", " +
                                   std::to_string(shots) + " shots");
}

TEST(Wavefront, Forward3DTracesEqualTheStepByStepRunBitwise) {
  expect_same_traces_3d<float>(8, false, 8);
  expect_same_traces_3d<float>(8, true, 5);
  expect_same_traces_3d<double>(4, false, 16);
  expect_same_traces_3d<float>(2, true, 3);
  expect_same_traces_3d<float>(8, true, 6, 1);  // OpenMP: one shot's levels pipelined
}

/// `stepwise`'s gradient against `observed` run step by step and with `levels` steps per sweep:
/// the same misfit, traces and gradient, bit for bit.
template <class T>
void expect_swept_gradient_equal(ForwardProblem stepwise, const HostArray3<T>& observed, int levels,
                                 Storage storage, const std::string& where) {
  stepwise.wavefront_steps = 1;
  ForwardProblem swept = stepwise;
  swept.wavefront_steps = levels;
  // The swept run first: histories are allocated uninitialised, and after the step-by-step
  // run their memory could hold its (equal) values where the sweep left a row unwritten.
  const GradientResult<T> b = misfit_gradient<T>(swept, observed, storage);
  const GradientResult<T> a = misfit_gradient<T>(stepwise, observed, storage);
  const std::string what = std::string(storage == Storage::full         ? "full, "
                                       : storage == Storage::checkpoint ? "checkpoint, "
                                                                        : "boundary, ") +
                           where + ", " + std::to_string(levels) + " steps per sweep";
  EXPECT_EQ(std::memcmp(&a.misfit, &b.misfit, sizeof(double)), 0) << what;
  ASSERT_EQ(a.synthetic.size(), b.synthetic.size());
  ASSERT_EQ(a.gradient.size(), b.gradient.size());
  double trace_peak = 0, peak = 0;
  const long traces_differ = differing_values(a.synthetic, b.synthetic, trace_peak);
  const long gradient_differs = differing_values(a.gradient, b.gradient, peak);
  ASSERT_GT(peak, 0.0) << what;
  EXPECT_EQ(traces_differ, 0) << "traces, " << what;
  EXPECT_EQ(gradient_differs, 0) << "gradient, " << what;
}

/// A gradient case's name: "3D, " or "", its order, free surface and shots.
std::string gradient_case(const char* dims, int order, bool free_surface, int shots) {
  return std::string(dims) + "order " + std::to_string(order) +
         (free_surface ? ", free surface, " : ", ") + std::to_string(shots) + " shots";
}

template <class T>
void expect_same_gradient(int order, bool free_surface, int levels, Storage storage,
                          int shots = 3) {
  const ForwardProblem p = varied_problem(order, free_surface, 120, shots);
  ForwardProblem true_model = p;  // observed data: a slower patch
  for (int iz = 30; iz < 45; ++iz)
    for (int ix = 20; ix < 40; ++ix) true_model.model.vp[std::size_t(iz) * 63 + ix] *= 0.95;
  expect_swept_gradient_equal<T>(p, forward_model<T>(true_model), levels, storage,
                                 gradient_case("", order, free_surface, shots));
}

TEST(Wavefront, BoundaryGradientEqualsTheStepByStepRunBitwise) {
  expect_same_gradient<float>(8, false, 8, Storage::boundary);
  expect_same_gradient<float>(8, true, 5, Storage::boundary);
  expect_same_gradient<double>(4, true, 16, Storage::boundary);
  expect_same_gradient<double>(2, false, 3, Storage::boundary);
  expect_same_gradient<float>(8, true, 7, Storage::boundary, 1);
}

// The checkpoints' segments (120 steps: 11 checkpoints 11 steps apart, the last segment 10
// steps) recomputed in sweeps, each segment's backward steps swept within it.
TEST(Wavefront, CheckpointGradientEqualsTheStepByStepRunBitwise) {
  expect_same_gradient<float>(8, false, 8, Storage::checkpoint);
  expect_same_gradient<float>(8, true, 5, Storage::checkpoint);
  expect_same_gradient<double>(4, true, 16, Storage::checkpoint);
  expect_same_gradient<double>(2, false, 3, Storage::checkpoint);
  expect_same_gradient<float>(8, true, 7, Storage::checkpoint, 1);
}

TEST(Wavefront, FullGradientEqualsTheStepByStepRunBitwise) {
  expect_same_gradient<float>(8, false, 8, Storage::full);
  expect_same_gradient<float>(8, true, 5, Storage::full);
  expect_same_gradient<double>(4, true, 16, Storage::full);
  expect_same_gradient<double>(2, false, 3, Storage::full);
  expect_same_gradient<float>(8, true, 7, Storage::full, 1);
}

// 3D: a gradient's forward run sweeps its depths too, keeping each group's frame, snapshot or
// checkpoint rows as the sweep reaches them, and its backward run sweeps them (the frame
// restored, or the snapshots imaged, per group of depths).
template <class T>
void expect_same_gradient_3d(int order, bool free_surface, int levels, Storage storage,
                             int shots = 2) {
  const ForwardProblem p = varied_problem_3d(order, free_surface, 60, shots);
  ForwardProblem true_model = p;  // observed data: a slower box
  for (int iz = 12; iz < 18; ++iz)
    for (int iy = 8; iy < 13; ++iy)
      for (int ix = 9; ix < 15; ++ix)
        true_model.model.vp[(std::size_t(iz) * 21 + iy) * 24 + ix] *= 0.95;
  expect_swept_gradient_equal<T>(p, forward_model<T>(true_model), levels, storage,
                                 gradient_case("3D, ", order, free_surface, shots));
}

TEST(Wavefront, Gradient3DEqualsTheStepByStepRunBitwise) {
  for (const Storage storage : {Storage::boundary, Storage::full, Storage::checkpoint}) {
    expect_same_gradient_3d<float>(8, false, 8, storage);
    expect_same_gradient_3d<double>(4, true, 5, storage);
    expect_same_gradient_3d<float>(8, true, 6, storage, 1);  // OpenMP: one shot's levels pipelined
  }
}

// The elastic equation: each of a step's two updates is a level of the sweep, the fields
// updated in place (Steps::sweep in elastic_loops.hpp). Its models: vs = vp / 1.8 with a fluid
// (vs = 0) layer on top, the density varying too; receivers recording vx, vz (vy) and the
// pressure in turn.
ForwardProblem elastic(ForwardProblem p, SourceType source) {
  p.equation = physics::Equation::elastic;
  p.source_type = source;
  const Grid& g = p.model.grid;
  const std::size_t plane = std::size_t(g.ny) * g.nx;
  p.model.vs.resize(p.model.vp.size());
  p.model.rho.resize(p.model.vp.size());
  for (std::size_t c = 0; c < p.model.vp.size(); ++c) {
    p.model.vs[c] = c / plane < 6 ? 0.0 : p.model.vp[c] / 1.8;
    p.model.rho[c] = 1500.0 + 0.2 * p.model.vp[c] + 40.0 * std::cos(0.7 * double(c % plane));
  }
  const Component each[] = {Component::vx, Component::vz, Component::pressure, Component::vy};
  for (ShotGeometry& shot : p.shots) {
    shot.components.clear();
    for (std::size_t r = 0; r < shot.receivers.size(); ++r) {
      shot.components.push_back(each[r % (g.is_3d() ? 4 : 3)]);
    }
  }
  return p;
}

template <class T>
void expect_same_elastic_traces(int order, bool free_surface, SourceType source, int levels,
                                int shots = 3) {
  ForwardProblem p = elastic(varied_problem(order, free_surface, 120, shots), source);
  p.check_interval = 9;
  expect_swept_traces_equal<T>(p, levels,
                               "elastic, order " + std::to_string(order) +
                                   (free_surface ? ", free surface, " : ", ") +
                                   std::to_string(shots) + " shots");
}

template <class T>
void expect_same_elastic_traces_3d(int order, bool free_surface, SourceType source, int levels,
                                   int shots = 2) {
  expect_swept_traces_equal<T>(
      elastic(varied_problem_3d(order, free_surface, 50, shots), source), levels,
      "elastic 3D, order " + std::to_string(order) + (free_surface ? ", free surface, " : ", ") +
          std::to_string(shots) + " shots");
}

TEST(Wavefront, ElasticForwardTracesEqualTheStepByStepRunBitwise) {
  expect_same_elastic_traces<float>(8, false, SourceType::force_z, 8);
  expect_same_elastic_traces<float>(8, true, SourceType::pressure, 5);
  expect_same_elastic_traces<double>(4, true, SourceType::force_x, 16);
  expect_same_elastic_traces<float>(2, false, SourceType::pressure, 3);
  expect_same_elastic_traces<double>(6, true, SourceType::force_z, 7);
  expect_same_elastic_traces<float>(8, true, SourceType::force_z, 6, 1);  // OpenMP: pipelined
}

TEST(Wavefront, ElasticForward3DTracesEqualTheStepByStepRunBitwise) {
  expect_same_elastic_traces_3d<float>(8, false, SourceType::force_y, 4);
  expect_same_elastic_traces_3d<double>(4, true, SourceType::pressure, 3);
  expect_same_elastic_traces_3d<float>(2, true, SourceType::force_z, 5, 1);
}

// A `checkpoint` gradient's first forward run sweeps between its checkpoints (120 steps, 11
// apart): the same checkpoints, so the same misfit, traces and gradients, bit for bit.
TEST(Wavefront, ElasticCheckpointGradientEqualsTheStepByStepRunBitwise) {
  for (const bool free_surface : {false, true}) {
    const ForwardProblem p = elastic(varied_problem(8, free_surface, 120), SourceType::pressure);
    ForwardProblem true_model = p;  // observed data: a slower patch
    for (int iz = 30; iz < 45; ++iz)
      for (int ix = 20; ix < 40; ++ix) {
        true_model.model.vp[std::size_t(iz) * 63 + ix] *= 0.95;
        true_model.model.vs[std::size_t(iz) * 63 + ix] *= 0.9;
      }
    const HostArray3<float> observed = forward_model<float>(true_model);
    ForwardProblem swept = p;
    swept.wavefront_steps = 8;
    ForwardProblem stepwise = p;
    stepwise.wavefront_steps = 1;
    const GradientResult<float> b = misfit_gradient<float>(swept, observed, Storage::checkpoint);
    const GradientResult<float> a = misfit_gradient<float>(stepwise, observed, Storage::checkpoint);
    const std::string what = free_surface ? "free surface" : "CPML on every side";
    EXPECT_EQ(std::memcmp(&a.misfit, &b.misfit, sizeof(double)), 0) << what;
    double peak = 0;
    EXPECT_EQ(differing_values(a.synthetic, b.synthetic, peak), 0) << what;
    for (const physics::Parameter q :
         {physics::Parameter::vp, physics::Parameter::vs, physics::Parameter::rho}) {
      ASSERT_TRUE(a.has(q) && b.has(q)) << what;
      EXPECT_EQ(differing_values(a.of(q), b.of(q), peak), 0) << what << ", parameter " << int(q);
      EXPECT_GT(peak, 0.0) << what << ", parameter " << int(q);
    }
  }
}

}  // namespace
}  // namespace pwave
