// What `pwave check` says a gradient's backward run allocates (propagation::backward_memory) is
// what the propagators allocate: the live device bytes of the first adjoint run, measured with
// Kokkos' allocation callbacks, for batches of one and two shots.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "pwave/physics/elastic/physics.hpp"
#include "pwave/propagation/backward_memory.hpp"
#include "pwave/propagation/propagator.hpp"
#include "support/problems.hpp"

namespace pwave::propagation {
namespace {

/// Live and peak bytes of the allocations in the device's memory space while installed.
struct AllocationTracker {
  static inline long live = 0, peak = 0;
  static void allocated(Kokkos::Tools::SpaceHandle space, const char*, const void*,
                        std::uint64_t size) {
    if (std::strcmp(space.name, MemSpace::name()) != 0) return;
    live += long(size);
    peak = std::max(peak, live);
  }
  static void freed(Kokkos::Tools::SpaceHandle space, const char*, const void*,
                    std::uint64_t size) {
    if (std::strcmp(space.name, MemSpace::name()) == 0) live -= long(size);
  }
  AllocationTracker() {
    live = peak = 0;
    Kokkos::Tools::Experimental::set_allocate_data_callback(allocated);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(freed);
  }
  ~AllocationTracker() {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  }
};

/// The peak of the bytes allocated during the first adjoint run of a batch of `count` shots
/// (`boundary` storage), above what was live before it.
template <class T>
long backward_peak(const ForwardProblem& p, int count) {
  auto prop = make_propagator<T>(p, count);
  std::vector<int> shots;
  for (int i = 0; i < count; ++i) shots.push_back(i);
  Traces<T> traces("traces", count, prop->max_receivers(), p.nt);
  const auto history = prop->make_history(count, StorageOptions(Storage::boundary));
  prop->forward(shots, traces, {}, 0, 0, history);
  Kokkos::fence();
  const AllocationTracker tracker;
  prop->adjoint_per_shot(shots, traces, history);
  Kokkos::fence();
  return AllocationTracker::peak;
}

ForwardProblem problem(physics::Equation e, bool is3d, bool free_surface) {
  ForwardProblem p =
      is3d ? test::homogeneous_problem_3d(20, 18, 22, 10.0, 2000.0, 0.001, 10, 10.0, 4, 6)
           : test::homogeneous_problem(300, 290, 10.0, 2000.0, 0.001, 10, 10.0, 8, 12);
  ShotGeometry shot;
  shot.source = is3d ? test::at(100.0, 100.0, 100.0) : Position{100.0, 100.0};
  shot.receivers = {shot.source};
  p.shots = {shot, shot};
  p.boundary.free_surface = free_surface;
  if (free_surface) p.boundary.width[top] = 0;
  p.equation = e;
  if (e != physics::Equation::acoustic) p.model.rho.assign(p.model.vp.size(), 2000.0);
  if (e == physics::Equation::elastic) p.model.vs.assign(p.model.vp.size(), 1000.0);
  return p;
}

template <class T>
void expect_estimate_is_allocation(physics::Equation e, bool is3d, bool free_surface) {
  const ForwardProblem p = problem(e, is3d, free_surface);
  const std::string where = std::string(physics::name(e)) + (is3d ? " 3D" : " 2D") +
                            (free_surface ? ", free surface" : "") + ", " +
                            std::to_string(sizeof(T)) + "-byte values";
  const long one = backward_peak<T>(p, 1), two = backward_peak<T>(p, 2);
  const BackwardMemory m = backward_memory(p, sizeof(T));
  // The elastic state is one block whose views start a page (and a stagger below a page)
  // further on each (FieldBlock): up to two pages per view the estimate does not count.
  const int axes = is3d ? 3 : 2;
  const double slack =
      e == physics::Equation::elastic
          ? 2.0 * 4096 * (physics::elastic::Physics::wavefields_of(axes) + 2 * axes * axes)
          : 0.0;
  EXPECT_NEAR(double(two - one), m.per_shot, slack) << where << ": bytes per shot";
  EXPECT_NEAR(double(2 * one - two), m.fixed, slack) << where << ": bytes of any batch";
  EXPECT_GT(m.per_shot, 20 * slack) << where;  // the slack is small beside what is counted
}

TEST(BackwardMemory, TheEstimateIsWhatTheAdjointRunAllocates) {
  using physics::Equation;
  for (const Equation e :
       {Equation::acoustic, Equation::acoustic_variable_density, Equation::elastic}) {
    for (const bool is3d : {false, true}) {
      expect_estimate_is_allocation<float>(e, is3d, false);
    }
  }
  // The z memory variables' rows without a top strip; values of 8 bytes (other row padding).
  expect_estimate_is_allocation<float>(Equation::acoustic, false, true);
  expect_estimate_is_allocation<float>(Equation::acoustic, true, true);
  expect_estimate_is_allocation<double>(Equation::acoustic, true, false);
  expect_estimate_is_allocation<double>(Equation::elastic, false, false);
}

}  // namespace
}  // namespace pwave::propagation
