#pragma once
// The device data of one acoustic shot batch (AcousticState) and where a padded index falls in
// the CPML strips' storage.

#include <array>

#include "pwave/core/types.hpp"
#include "pwave/physics/cpml.hpp"

namespace pwave::physics {

/// Index in strip storage of padded index i along an axis of n cells whose CPML strips are its
/// first `lo` and last `hi` cells (stored one after the other), or -1 between them.
KOKKOS_INLINE_FUNCTION int strip_index(int i, int n, int lo, int hi) {
  if (i >= 0 && i < lo) return i;
  if (i >= n - hi && i < n) return i - n + lo + hi;
  return -1;
}

/// Device data of one shot batch, shared by all acoustic kernels, 2D and 3D.
///
/// 3D fields keep the 2D layout [shot][z][column]: the (y, x) plane of a depth is flattened
/// into one "column" axis, y lines one after another `ys` values apart. In 2D ny = 1 and the y
/// halo `hy` is 0, so column = x + halo exactly as before; the kernels take the dimension as a
/// template parameter and add the y taps (column +- j ys) only in 3D.
template <class T>
struct AcousticState {
  int nz = 0, nx = 0;  ///< padded grid (model + CPML), without halo
  int strip_top = 0, strip_bottom = 0, strip_left = 0, strip_right = 0;
  int halo = 0;                                 ///< stencil radius
  int ny = 1, strip_front = 0, strip_back = 0;  ///< y axis (3D; ny = 1 and no pads in 2D)
  int hy = 0;                                   ///< halo along y: `halo` in 3D, 0 in 2D
  int ys = 0;                                   ///< column stride between y lines (3D)
  Field<T> u_prev, u_cur;                       ///< [shot][nz + 2 halo][(ny + 2 hy) ys]
  GridView<T> v2dt2;                            ///< [nz][ny nx], v^2 dt^2 in m^2
  CpmlAxis<T> cx;                               ///< [nx] CPML profile along x
  CpmlAxis<T> cz;                               ///< [nz] CPML profile along z
  CpmlAxis<T> cy;                               ///< [ny] CPML profile along y (3D)
  Field<T> psi_x, psi_x_next, zeta_x;           ///< [shot][nz][ny (strip_left + strip_right)]
  Field<T> psi_z, psi_z_next, zeta_z;           ///< [shot][strip_top + strip_bottom][ny nx]
  Field<T> psi_y, psi_y_next, zeta_y;           ///< [shot][nz][(strip_front + strip_back) nx] (3D)

  /// Halo-layout column of padded cell (iy, ix).
  KOKKOS_INLINE_FUNCTION int column(int iy, int ix) const { return (iy + hy) * ys + ix + halo; }
  /// Column of the halo-free [z][ny nx] arrays (v^2 dt^2, z strips) of padded cell (iy, ix).
  KOKKOS_INLINE_FUNCTION int plane(int iy, int ix) const { return iy * nx + ix; }
  /// The state a step starts from, which a checkpoint keeps (propagation::CheckpointHistory):
  /// u^{n-1}, u^n, and every axis' psi^{n-1} and zeta^{n-1} (the y ones empty in 2D).
  /// each_checkpointed_row() maps rows by these positions: keep the two in step.
  std::array<Field<T>, 8> checkpointed() const {
    return {u_prev, u_cur, psi_x, zeta_x, psi_z, zeta_z, psi_y, zeta_y};
  }
  /// f(k, r) for each row r of checkpointed()[k] that holds padded rows [z0, z1) (a host
  /// wavefront's group; 0 <= z0 < z1 <= nz): the wavefields' rows z + halo, with their halo
  /// rows above row 0 and below row nz - 1 when the range reaches them; the x and y memory
  /// variables' rows z; the z ones' strip rows.
  template <class F>
  void each_checkpointed_row(int z0, int z1, F&& f) const {
    const int r0 = z0 == 0 ? 0 : z0 + halo, r1 = z1 == nz ? nz + 2 * halo : z1 + halo;
    for (int k = 0; k < 2; ++k)
      for (int r = r0; r < r1; ++r) f(k, r);
    for (int z = z0; z < z1; ++z) {
      for (int k : {2, 3, 6, 7}) f(k, z);
      const int r = strip_index(z, nz, strip_top, strip_bottom);
      if (r >= 0) {
        f(4, r);
        f(5, r);
      }
    }
  }
};

/// Column of x-strip storage for padded column ix, or -1 outside the x strips.
template <class T>
KOKKOS_INLINE_FUNCTION int x_strip_column(const AcousticState<T>& st, int ix) {
  return strip_index(ix, st.nx, st.strip_left, st.strip_right);
}

/// Row of z-strip storage for padded row iz, or -1 outside the z strips.
template <class T>
KOKKOS_INLINE_FUNCTION int z_strip_row(const AcousticState<T>& st, int iz) {
  return strip_index(iz, st.nz, st.strip_top, st.strip_bottom);
}

/// Line of y-strip storage for padded line iy, or -1 outside the y strips (3D).
template <class T>
KOKKOS_INLINE_FUNCTION int y_strip_line(const AcousticState<T>& st, int iy) {
  return strip_index(iy, st.ny, st.strip_front, st.strip_back);
}

}  // namespace pwave::physics
