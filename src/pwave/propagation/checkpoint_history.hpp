#pragma once
// The `checkpoint` history (Storage::checkpoint): the whole propagator state every `interval`
// steps, and a segment buffer that the backward run refills by recomputing one segment at a time
// from its checkpoint.

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "pwave/core/types.hpp"
#include "pwave/propagation/storage.hpp"

namespace pwave::propagation {

/// Checkpoint c holds the state step c * interval starts from: every field the equation's
/// state lists in `checkpointed()` (the acoustic equations: u^{n-1}, u^n and every axis'
/// psi^{n-1} and zeta^{n-1}; empty fields, as the y ones in 2D, take no room), each in its own
/// layout. `segment` holds the imaged field of steps n0 - 1 .. n0 + interval of the segment
/// starting at step n0 on the padded grid (halo dropped). Memory: ceil(nt / interval) states
/// plus interval + 2 padded grids per shot.
template <class T>
struct CheckpointHistory {
  using Saved = Kokkos::View<T****, Kokkos::LayoutRight, MemSpace>;  ///< [c][shot][rows][cols]

  int interval = 0;                                            ///< steps between checkpoints
  std::vector<Saved> saved;                                    ///< one per checkpointed field
  Kokkos::View<T****, Kokkos::LayoutRight, MemSpace> segment;  ///< [slot][shot][z][ny nx]

  /// The steps between checkpoints: `requested`, or ceil(sqrt(nt)) for 0.
  static int interval_for(int nt, int requested) {
    return requested > 0 ? requested : std::max(1, int(std::ceil(std::sqrt(double(nt)))));
  }
  /// Bytes per shot for the state `st` (any equation's: its checkpointed() fields and its
  /// padded grid nz, ny, nx) of an nt-step run with options.interval.
  template <class State>
  static double bytes_per_shot(const State& st, int nt, const StorageOptions& options) {
    const int k = interval_for(nt, options.interval);
    const double nck = (nt + k - 1) / k;
    double state = 0;
    for (const auto& f : st.checkpointed()) state += double(f.extent(1)) * f.extent(2);
    return (nck * state + (k + 2.0) * st.nz * st.ny * st.nx) * sizeof(T);
  }
  /// Room for `count` shots (the shots of `st`: checkpoints are copied whole to and from it) of
  /// an nt-step run with options.interval, uninitialised (forward() saves every checkpoint, the
  /// backward run fills the segment before it reads it).
  template <class State>
  static CheckpointHistory allocate(const State& st, int nt, int count,
                                    const StorageOptions& options) {
    const auto uninit = [](const std::string& name) {
      return Kokkos::view_alloc(name, Kokkos::WithoutInitializing);
    };
    CheckpointHistory h;
    h.interval = interval_for(nt, options.interval);
    const int nck = (nt + h.interval - 1) / h.interval;
    for (const auto& f : st.checkpointed()) {
      h.saved.emplace_back(uninit("pwave::checkpoint_" + f.label()), nck, count, f.extent(1),
                           f.extent(2));
    }
    h.segment = decltype(h.segment)(uninit("pwave::checkpoint_segment"), h.interval + 2, count,
                                    st.nz, st.ny * st.nx);
    return h;
  }
  /// Whether it has room for the checkpoints of `count` shots of an nt-step run.
  bool holds(int nt, int count) const {
    return interval > 0 && !saved.empty() &&
           int(saved[0].extent(0)) == (nt + interval - 1) / interval &&
           int(saved[0].extent(1)) >= count;
  }
  /// Calls f(slot, field) with each field a checkpoint keeps of the state `st` and its slot in
  /// checkpoint c: one list for saving and restoring.
  template <class State, class F>
  void for_each_saved(const State& st, int c, F&& f) const {
    using Kokkos::ALL;
    std::size_t i = 0;
    for (const auto& field : st.checkpointed()) {
      f(Kokkos::subview(saved[i++], c, ALL, ALL, ALL), field);
    }
  }
  /// Host backends: the rows of the state `st` that hold its padded rows [z0, z1) (its
  /// each_checkpointed_row()), shot s, into checkpoint c; a host wavefront keeps a checkpoint
  /// group by group this way, the same values copy<false>() keeps.
  template <class State>
  void store_rows(const State& st, int c, int s, int z0, int z1) const {
    const auto fields = st.checkpointed();
    st.each_checkpointed_row(z0, z1, [&](int k, int r) {
      const Field<T>& field = fields[std::size_t(k)];
      if (field.extent(2) == 0) return;  // 2D: no y variables
      std::copy_n(&field(s, r, 0), field.extent(2), &saved[std::size_t(k)](c, s, r, 0));
    });
  }
  /// Copies the state `st` (shots [0, count)) into checkpoint c (`Restore` false) or back from
  /// it (true).
  template <bool Restore, class State>
  void copy(const ExecSpace& exec, const State& st, int c, int count) const {
    for_each_saved(st, c, [&](const auto& slot, const Field<T>& field) {
      if (field.size() == 0) return;
      const auto shots = std::make_pair(0, count);
      const auto s = Kokkos::subview(slot, shots, Kokkos::ALL, Kokkos::ALL);
      const auto f = Kokkos::subview(field, shots, Kokkos::ALL, Kokkos::ALL);
      if constexpr (Restore) {
        Kokkos::deep_copy(exec, f, s);
      } else {
        Kokkos::deep_copy(exec, s, f);
      }
    });
  }
};

/// The forward loop's keeper of a CheckpointHistory (forward_loop.hpp): before every step n
/// that is a multiple of the interval, the state it starts from (`steps.fields(p)`, shots
/// [0, count)) into checkpoint n / interval.
template <class T, class Steps>
struct KeepCheckpoints {
  const CheckpointHistory<T>& history;
  const Steps& steps;
  int count;
  void before(const ExecSpace& exec, int p, int n) const {
    if (n % history.interval == 0) {
      history.template copy<false>(exec, steps.fields(p), n / history.interval, count);
    }
  }
  void after(const ExecSpace&, int, int) const {}
  void finish(const ExecSpace&, int, int) const {}
};

}  // namespace pwave::propagation
