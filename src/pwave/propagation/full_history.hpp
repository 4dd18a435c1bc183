#pragma once
// The exact `full` history (Storage::full, stride 1, no compression): every snapshot u^n of the
// forward run on the padded grid.

#include <string>

#include "pwave/physics/acoustic/kernels.hpp"

namespace pwave::propagation {

/// u^n for n = 0..nt of every shot on the padded grid (halo dropped), which the imaging
/// condition reads directly. Memory: nt + 1 padded grids per shot.
template <class T>
struct FullHistory {
  Kokkos::View<T****, Kokkos::LayoutRight, MemSpace> snapshots;  ///< [n][shot][z][ny nx]

  /// Bytes per shot for the padded grid of `st`: nt + 1 grids.
  static double bytes_per_shot(const physics::AcousticState<T>& st, int nt) {
    const double cells = double(st.nz) * st.ny * st.nx;
    return (nt + 1) * cells * sizeof(T);
  }
  /// Room for `count` shots of an nt-step run on the padded grid of `st`, uninitialised
  /// (forward() writes every snapshot before the adjoint reads it).
  static FullHistory allocate(const physics::AcousticState<T>& st, int nt, int count) {
    FullHistory h;
    h.snapshots = decltype(h.snapshots)(
        Kokkos::view_alloc(std::string("pwave::history_full"), Kokkos::WithoutInitializing), nt + 1,
        count, st.nz, st.ny * st.nx);
    return h;
  }
  /// Whether it has room for the nt + 1 snapshots of `count` shots.
  bool holds(int nt, int count) const {
    return snapshots.extent(0) == std::size_t(nt) + 1 && int(snapshots.extent(1)) >= count;
  }
};

}  // namespace pwave::propagation
