#pragma once
// Wavefront temporal blocking on host backends: several time steps of a 2D frame step
// (launch.hpp's for_each_frame_cell) or of box launches (for_each_box_3d's lines at a range of
// depths, host_boxes_3d_depths) in one sweep down each shot's grid, so that the rows a step
// reads are still in cache from the step before it (issue 13; bench/README.md "Wavefront
// temporal blocking"). GPU backends and the cell-wise host build step one step at a time.

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "backends/launch.hpp"

namespace pwave::backend {

/// Whether Exec can run frame steps as wavefronts (for_each_shot_wavefront): host backends with
/// their row paths.
template <class Exec>
constexpr bool runs_wavefronts() {
  return uses_row_paths<Exec>();
}

/// The cache one shot's 3D or elastic wavefront may fill (its steps per sweep are capped to
/// fit): 64 MiB.
/// Measured on a 2-vCPU guest of a host with 480 MiB of L3, order 8, 160^3 + a 20-cell CPML
/// (planes of 208 x 208): 8 steps per sweep (a working set of about 44 MiB) ran 1.1-1.25x the
/// step-by-step forward, 32 (175 MiB) no faster than it (bench/README.md).
inline constexpr long wavefront_cache_bytes = 64L << 20;

/// Steps per sweep of a wavefront: `requested`, at most as many as keep a sweep's working set
/// (`level_bytes` per step) within wavefront_cache_bytes, at least 1.
inline int wavefront_levels(int requested, double level_bytes) {
  return std::clamp(int(double(wavefront_cache_bytes) / level_bytes), 1, std::max(requested, 1));
}

/// The units of a sweep down the boxes of `cuts` (for_each_box_3d's slabs, whose launches run
/// blocks of `block` depths from each z slab's first depth): each z slab's depths in blocks of
/// `block`, the last block of a slab shorter. Unit u covers depths [first_row(u),
/// first_row(u + 1)); a group of whole units then runs each block as the launch does.
struct SlabUnits {
  std::vector<int> rows;  ///< the units' first depths, and the grid's depth count last
  int count() const { return int(rows.size()) - 1; }
  int first_row(int u) const { return rows[std::size_t(u)]; }
};

inline SlabUnits slab_units(const BoxCuts& cuts, int block) {
  SlabUnits units;
  for (int k = 0; k < 3; ++k) {
    for (int iz = cuts.z[k]; iz < cuts.z[k + 1]; iz += block) units.rows.push_back(iz);
  }
  units.rows.push_back(cuts.z[3]);
  return units;
}

/// The units of a sweep (FrameUnits: a 2D frame step's; SlabUnits: a box launch's) joined, top
/// to bottom, into groups of at least `min_rows` rows (the last group may be shorter only when
/// the whole grid is): group i is units [first[i], first[i + 1]).
template <class Units>
struct WavefrontGroupsOf {
  Units units;
  std::vector<int> first;
  int count() const { return int(first.size()) - 1; }
  int first_row(int i) const { return units.first_row(first[std::size_t(i)]); }
  /// The most rows of one group.
  int tallest() const {
    int rows = 1;
    for (int i = 0; i < count(); ++i) rows = std::max(rows, first_row(i + 1) - first_row(i));
    return rows;
  }
  /// The group holding row iz (0 <= iz < the grid's rows).
  int group_of(int iz) const {
    int lo = 0, hi = count() - 1;
    while (lo < hi) {  // the last group whose first row is <= iz
      const int mid = (lo + hi + 1) / 2;
      if (first_row(mid) <= iz) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }
};
using WavefrontGroups = WavefrontGroupsOf<FrameUnits>;
using SlabGroups = WavefrontGroupsOf<SlabUnits>;

template <class Units>
WavefrontGroupsOf<Units> wavefront_groups(const Units& units, int min_rows) {
  WavefrontGroupsOf<Units> w{units, {0}};
  const int n = units.count();
  for (int u = 1; u <= n; ++u) {
    if (units.first_row(u) - w.first_row(w.count()) >= min_rows) w.first.push_back(u);
  }
  if (w.first.back() != n) {
    if (w.count() > 0) {
      w.first.back() = n;  // a short remainder joins the group above it
    } else {
      w.first.push_back(n);
    }
  }
  return w;
}

/// Per thread of a pipelined wavefront (for_each_shot_wavefront): the number of groups its
/// last level has finished, each counter on its own cache line. Kept per calling host thread
/// and grown only, so that the sweeps of a run allocate nothing after the first.
class WavefrontProgress {
 public:
  static WavefrontProgress& of_this_thread(int threads) {
    thread_local WavefrontProgress progress;
    if (progress.size_ < threads) {
      progress.slots_ = std::make_unique<Slot[]>(std::size_t(threads));
      progress.size_ = threads;
    }
    for (int t = 0; t < threads; ++t) progress.slots_[std::size_t(t)].groups.store(0);
    return progress;
  }
  std::atomic<int>& groups(int thread) { return slots_[std::size_t(thread)].groups; }

 private:
  struct alignas(64) Slot {
    std::atomic<int> groups{0};
  };
  std::unique_ptr<Slot[]> slots_;
  int size_ = 0;
};

/// Host backends: `levels` consecutive steps of shots [0, ns) as one wavefront per shot. At
/// front f, level j (the sweep's j-th step) runs group f - j, levels in ascending order:
/// work(s, j, i). Group i of level j reads level j - 1's rows up to min_rows (WavefrontGroups)
/// below it, which level j - 1 updated earlier in the same front (group i + 1), and writes over
/// the rows level j - 2 left there, which level j - 1 has finished reading (its groups up to
/// i + 1). So, for a step whose stencil reads at most min_rows rows either side and whose other
/// state is cell-local, every cell gets the values the step-by-step sweep gives it, bit for bit.
///
/// With shots enough for every thread, each shot's wavefront runs on one thread. With fewer
/// (OpenMP, one big shot), each shot gets a team of threads that pipeline its levels: thread r
/// of a team runs levels [r m / P, (r + 1) m / P) of the P threads' m levels in the front order
/// above, its first level's group i only once thread r - 1's last level has finished group
/// i + 1 (an acquire of its count of groups done). Each cell then sees the same operations in
/// the same order as on one thread (level j at group i always after level j - 1 at groups up to
/// i + 1, and before level j + 1 at group i - 1): the same values, bit for bit, on any number
/// of threads. The waits rely on a team's threads running at the same time, as Kokkos' host
/// backends run them (team_barrier relies on it too); Serial's teams have one thread.
template <class Exec, class Work>
void for_each_shot_wavefront(const char* name, const Exec& exec, int ns, int groups, int levels,
                             const Work& work) {
  static_assert(runs_wavefronts<Exec>(), "wavefronts run on host backends only");
  if (ns <= 0 || groups <= 0 || levels <= 0) return;
  const int threads = std::min(levels, int(exec.concurrency()) / ns);
  if (threads <= 1) {
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Exec>(exec, 0, ns), [=](const int s) {
      for (int f = 0; f < groups + levels - 1; ++f) {
        for (int j = std::max(0, f - groups + 1); j <= std::min(f, levels - 1); ++j) {
          work(s, j, f - j);
        }
      }
    });
    return;
  }
  WavefrontProgress& done = WavefrontProgress::of_this_thread(ns * threads);
  using Policy = Kokkos::TeamPolicy<Exec>;
  const auto run = [=, &done](const typename Policy::member_type& team) {
    const int s = team.league_rank(), r = team.team_rank(), P = team.team_size();
    const int j0 = r * levels / P, j1 = (r + 1) * levels / P;  // this thread's levels
    std::atomic<int>* const before = r > 0 ? &done.groups(s * P + r - 1) : nullptr;
    std::atomic<int>& mine = done.groups(s * P + r);
    for (int f = 0; f < groups + (j1 - j0) - 1; ++f) {
      const int first = std::max(j0, j0 + f - groups + 1), last = std::min(j0 + f, j1 - 1);
      if (before && first == j0) {  // level j0 - 1 must have finished group f + 1
        const int need = std::min(f + 2, groups);
        while (before->load(std::memory_order_acquire) < need) std::this_thread::yield();
      }
      for (int j = first; j <= last; ++j) work(s, j, j0 + f - j);
      if (last == j1 - 1) mine.store(f - (j1 - 1 - j0) + 1, std::memory_order_release);
    }
  };
  Policy policy(exec, ns, threads);
  const int most = policy.team_size_max(run, Kokkos::ParallelForTag());
  if (most < threads) policy = Policy(exec, ns, std::max(1, most));
  Kokkos::parallel_for(name, policy, run);
}

}  // namespace pwave::backend
