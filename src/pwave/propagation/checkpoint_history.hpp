#pragma once
// The `checkpoint` history (Storage::checkpoint): the whole propagator state every `interval`
// steps, and a segment buffer that the backward run refills by recomputing one segment at a time
// from its checkpoint.

#include <algorithm>
#include <cmath>
#include <string>

#include "pwave/physics/acoustic/kernels.hpp"
#include "pwave/propagation/storage.hpp"

namespace pwave::propagation {

/// Checkpoint c holds the state step c * interval starts from: u^{n-1}, u^n and every axis'
/// psi^{n-1} and zeta^{n-1}, in the layouts of physics::AcousticState (the y fields are empty in
/// 2D). `segment` holds u^{n0-1} .. u^{n0+interval} of the segment starting at step n0 on the
/// padded grid (halo dropped). Memory: ceil(nt / interval) states plus interval + 2 padded grids
/// per shot.
template <class T>
struct CheckpointHistory {
  using Saved = Kokkos::View<T****, Kokkos::LayoutRight, MemSpace>;  ///< [c][shot][rows][cols]

  int interval = 0;                                            ///< steps between checkpoints
  Kokkos::View<T*****, Kokkos::LayoutRight, MemSpace> u;       ///< [c][u^{n-1}, u^n][shot][z][x]
  Saved psi_x, zeta_x, psi_z, zeta_z, psi_y, zeta_y;           ///< [c][shot][...] as the state's
  Kokkos::View<T****, Kokkos::LayoutRight, MemSpace> segment;  ///< [slot][shot][z][ny nx]

  /// The steps between checkpoints: `requested`, or ceil(sqrt(nt)) for 0.
  static int interval_for(int nt, int requested) {
    return requested > 0 ? requested : std::max(1, int(std::ceil(std::sqrt(double(nt)))));
  }
  /// Bytes per shot for the state `st` of an nt-step run with options.interval.
  static double bytes_per_shot(const physics::AcousticState<T>& st, int nt,
                               const StorageOptions& options) {
    const int k = interval_for(nt, options.interval);
    const double nck = (nt + k - 1) / k;
    const double state = 2.0 * st.u_cur.extent(1) * st.u_cur.extent(2) +
                         2.0 * st.psi_x.extent(1) * st.psi_x.extent(2) +
                         2.0 * st.psi_z.extent(1) * st.psi_z.extent(2) +
                         2.0 * st.psi_y.extent(1) * st.psi_y.extent(2);
    return (nck * state + (k + 2.0) * st.nz * st.ny * st.nx) * sizeof(T);
  }
  /// Room for `count` shots (the shots of `st`: checkpoints are copied whole to and from it) of
  /// an nt-step run with options.interval, uninitialised (forward() saves every checkpoint, the
  /// backward run fills the segment before it reads it).
  static CheckpointHistory allocate(const physics::AcousticState<T>& st, int nt, int count,
                                    const StorageOptions& options) {
    const auto uninit = [](const char* name) {
      return Kokkos::view_alloc(std::string(name), Kokkos::WithoutInitializing);
    };
    CheckpointHistory h;
    h.interval = interval_for(nt, options.interval);
    const int nck = (nt + h.interval - 1) / h.interval;
    h.u =
        decltype(h.u)(uninit("pwave::ck_u"), nck, 2, count, st.u_cur.extent(1), st.u_cur.extent(2));
    const auto like = [&](const Field<T>& f, const char* name) {
      return Saved(uninit(name), nck, count, f.extent(1), f.extent(2));
    };
    h.psi_x = like(st.psi_x, "pwave::ck_psi_x");
    h.zeta_x = like(st.zeta_x, "pwave::ck_zeta_x");
    h.psi_z = like(st.psi_z, "pwave::ck_psi_z");
    h.zeta_z = like(st.zeta_z, "pwave::ck_zeta_z");
    h.psi_y = like(st.psi_y, "pwave::ck_psi_y");
    h.zeta_y = like(st.zeta_y, "pwave::ck_zeta_y");
    h.segment = decltype(h.segment)(uninit("pwave::ck_segment"), h.interval + 2, count, st.nz,
                                    st.ny * st.nx);
    return h;
  }
  /// Whether it has room for the checkpoints of `count` shots of an nt-step run.
  bool holds(int nt, int count) const {
    return interval > 0 && int(u.extent(0)) == (nt + interval - 1) / interval &&
           int(u.extent(2)) >= count;
  }
  /// Calls f(slot, field) with each field a checkpoint keeps of the state `st` and its slot in
  /// checkpoint c: one list for saving and restoring.
  template <class State, class F>
  void for_each_saved(State& st, int c, F&& f) const {
    using Kokkos::ALL;
    f(Kokkos::subview(u, c, 0, ALL, ALL, ALL), st.u_prev);
    f(Kokkos::subview(u, c, 1, ALL, ALL, ALL), st.u_cur);
    f(Kokkos::subview(psi_x, c, ALL, ALL, ALL), st.psi_x);
    f(Kokkos::subview(zeta_x, c, ALL, ALL, ALL), st.zeta_x);
    f(Kokkos::subview(psi_z, c, ALL, ALL, ALL), st.psi_z);
    f(Kokkos::subview(zeta_z, c, ALL, ALL, ALL), st.zeta_z);
    f(Kokkos::subview(psi_y, c, ALL, ALL, ALL), st.psi_y);
    f(Kokkos::subview(zeta_y, c, ALL, ALL, ALL), st.zeta_y);
  }
};

}  // namespace pwave::propagation
