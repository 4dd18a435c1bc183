#pragma once
// Where a host wavefront (backends/wavefront.hpp) records and injects: each shot's receivers
// and source taps by the group of rows at which a step reaches them, so that a step records
// u^n while the rows a receiver reads still hold it and injects into u^{n+1} before the next
// step reads the cell. Host tables, built once per run before the time loop.

#include <algorithm>
#include <vector>

#include "backends/wavefront.hpp"
#include "pwave/physics/point_sources.hpp"

namespace pwave::propagation {

template <class T>
class WavefrontPoints {
 public:
  /// The most rows one receiver's taps span among shots [0, count): the least height of the
  /// wavefront's groups, so that a receiver's taps lie in at most two adjacent groups.
  static int receiver_rows(const physics::PointTaps<T>& receivers, int count) {
    const auto cell = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), receivers.cell);
    int rows = 1;
    for (int s = 0; s < count; ++s) {
      for (int r = 0; r < int(cell.extent(1)); ++r) {
        int lo = cell(s, r, 0, 0), hi = lo;
        for (int k = 1; k < int(cell.extent(2)); ++k) {
          lo = std::min(lo, cell(s, r, k, 0));
          hi = std::max(hi, cell(s, r, k, 0));
        }
        rows = std::max(rows, hi - lo + 1);
      }
    }
    return rows;
  }

  /// Receiver r of shot s records step n before group `last` of step n runs (its taps' last
  /// row lies in `last`: step n - 1 has updated every row of the receiver, and step n + 1, one
  /// group behind step n, has not yet reached the group above); source tap k is injected after
  /// step n's update of the group holding its cell.
  /// With `record` false, no receiver is recorded anywhere (a run that records nothing: a
  /// checkpoint segment's recomputation).
  /// `in_place`: a step that updates its fields in place (the elastic equation's, each of its
  /// updates a level of the wavefront) records before group `first` of step n instead (its
  /// taps' first row lies in `first`), since the group's update writes over what the receiver
  /// reads; the update before it has finished the group below too (a receiver spans at most two).
  template <class Groups>
  WavefrontPoints(const physics::PointTaps<T>& sources, const physics::PointTaps<T>& receivers,
                  int count, const Groups& groups, bool record = true, bool in_place = false)
      : groups_(groups.count()) {
    const auto rc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), receivers.cell);
    std::vector<std::vector<int>> rec(std::size_t(count) * groups_);
    for (int s = 0; s < count && record; ++s) {
      for (int r = 0; r < int(rc.extent(1)); ++r) {
        int first = rc(s, r, 0, 0), last = first;
        for (int k = 1; k < int(rc.extent(2)); ++k) {
          first = std::min(first, rc(s, r, k, 0));
          last = std::max(last, rc(s, r, k, 0));
        }
        rec[std::size_t(s) * groups_ + groups.group_of(in_place ? first : last)].push_back(r);
      }
    }
    flatten(rec, receivers_start_, receivers_);
    table_sources(sources, count, groups);
  }
  /// A backward run's: the source taps as above (the reversed step's source term), and each
  /// cell of the residuals' injection into G^n (`residual_cells`, CellTaps) after step n's
  /// update of the group holding it, before the next step reads it.
  template <class Groups>
  WavefrontPoints(const physics::PointTaps<T>& sources, const physics::CellTaps<T>& residual_cells,
                  int count, const Groups& groups)
      : groups_(groups.count()) {
    const auto cell = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), residual_cells.cell);
    const auto start =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), residual_cells.start);
    std::vector<std::vector<int>> res(std::size_t(count) * groups_);
    for (int s = 0; s < count; ++s) {
      for (int c = 0; c < int(cell.extent(1)); ++c) {
        if (start(s, c) == start(s, c + 1)) continue;  // no contributions
        res[std::size_t(s) * groups_ + groups.group_of(cell(s, c, 0))].push_back(c);
      }
    }
    flatten(res, residual_cells_start_, residual_cells_);
    table_sources(sources, count, groups);
  }

  /// f(r) for each receiver recorded before group i of shot s, in ascending order.
  template <class F>
  void each_receiver(int s, int i, F&& f) const {
    each(receivers_start_, receivers_, s, i, f);
  }
  /// f(c) for each residual cell injected after group i of shot s (a backward run's table).
  template <class F>
  void each_residual_cell(int s, int i, F&& f) const {
    each(residual_cells_start_, residual_cells_, s, i, f);
  }
  /// f(k) for each source tap injected after group i of shot s, in ascending order.
  template <class F>
  void each_source_tap(int s, int i, F&& f) const {
    each(sources_start_, sources_, s, i, f);
  }

 private:
  template <class Groups>
  void table_sources(const physics::PointTaps<T>& sources, int count, const Groups& groups) {
    const auto sc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sources.cell);
    std::vector<std::vector<int>> src(std::size_t(count) * groups_);
    for (int s = 0; s < count; ++s) {
      for (int k = 0; k < int(sc.extent(2)); ++k) {
        src[std::size_t(s) * groups_ + groups.group_of(sc(s, 0, k, 0))].push_back(k);
      }
    }
    flatten(src, sources_start_, sources_);
  }
  static void flatten(const std::vector<std::vector<int>>& lists, std::vector<int>& start,
                      std::vector<int>& items) {
    start.assign(1, 0);
    for (const std::vector<int>& l : lists) {
      items.insert(items.end(), l.begin(), l.end());
      start.push_back(int(items.size()));
    }
  }
  template <class F>
  void each(const std::vector<int>& start, const std::vector<int>& items, int s, int i,
            F& f) const {
    if (start.empty()) return;  // the other kind of run's table
    const std::size_t list = std::size_t(s) * groups_ + i;
    for (int k = start[list]; k < start[list + 1]; ++k) f(items[std::size_t(k)]);
  }

  std::size_t groups_;
  /// Each list [shot][group] flattened: a forward run's receivers (by the group they record
  /// before) and source taps, a backward run's residual cells and source taps; a run's other
  /// table stays empty.
  std::vector<int> receivers_start_, receivers_, residual_cells_start_, residual_cells_;
  std::vector<int> sources_start_, sources_;
};

}  // namespace pwave::propagation
