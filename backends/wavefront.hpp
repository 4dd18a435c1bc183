#pragma once
// Wavefront temporal blocking on host backends: several time steps of a 2D frame step
// (launch.hpp's for_each_frame_cell) in one sweep down each shot's grid, so that the rows a step
// reads are still in cache from the step before it (issue 13; bench/README.md "Wavefront
// temporal blocking"). GPU backends and the cell-wise host build step one step at a time.

#include <algorithm>
#include <vector>

#include "backends/launch.hpp"

namespace pwave::backend {

/// Whether Exec can run frame steps as wavefronts (for_each_shot_wavefront): host backends with
/// their row paths.
template <class Exec>
constexpr bool runs_wavefronts() {
  return uses_row_paths<Exec>();
}

/// The units of a frame step (FrameUnits) joined, top to bottom, into groups of at least
/// `min_rows` rows (the last group may be shorter only when the whole grid is): group i is
/// units [first[i], first[i + 1]).
struct WavefrontGroups {
  FrameUnits units;
  std::vector<int> first;
  int count() const { return int(first.size()) - 1; }
  int first_row(int i) const { return units.first_row(first[std::size_t(i)]); }
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

inline WavefrontGroups wavefront_groups(const FrameUnits& units, int min_rows) {
  WavefrontGroups w{units, {0}};
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

/// Host backends: `levels` consecutive steps of shots [0, ns) as one wavefront per shot. At
/// front f, level j (the sweep's j-th step) runs group f - j, levels in ascending order:
/// work(s, j, i). Group i of level j reads level j - 1's rows up to min_rows (WavefrontGroups)
/// below it, which level j - 1 updated earlier in the same front (group i + 1), and writes over
/// the rows level j - 2 left there, which level j - 1 has finished reading (its groups up to
/// i + 1). So, for a step whose stencil reads at most min_rows rows either side and whose other
/// state is cell-local, every cell gets the values the step-by-step sweep gives it, bit for bit.
/// Shots run in parallel, each shot's wavefront on one thread.
template <class Exec, class Work>
void for_each_shot_wavefront(const char* name, const Exec& exec, int ns, int groups, int levels,
                             const Work& work) {
  static_assert(runs_wavefronts<Exec>(), "wavefronts run on host backends only");
  if (ns <= 0 || groups <= 0 || levels <= 0) return;
  Kokkos::parallel_for(name, Kokkos::RangePolicy<Exec>(exec, 0, ns), [=](const int s) {
    for (int f = 0; f < groups + levels - 1; ++f) {
      for (int j = std::max(0, f - groups + 1); j <= std::min(f, levels - 1); ++j) {
        work(s, j, f - j);
      }
    }
  });
}

}  // namespace pwave::backend
