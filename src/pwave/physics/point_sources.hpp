#pragma once
// Point sources, receivers and the free surface of the acoustic scheme (2D and 3D).

#include "pwave/core/types.hpp"

namespace pwave::physics {

/// Maps a cell's plane index q = iy nx + ix (padded grid, no halo; q = ix in 2D) to its
/// wavefield column (see AcousticState): one integer per point lets the same source and
/// receiver kernels serve 2D and 3D.
struct ColumnMap {
  int nx = 0, hy = 0, ys = 0, halo = 0;
  KOKKOS_INLINE_FUNCTION int operator()(int q) const { return (q / nx + hy) * ys + q % nx + halo; }
};

/// Adds v^2 dt^2 s(t_n) / (dx dz [dy]) at each shot's source cell: the discrete form of the
/// source term v^2 s(t) delta(x - x_s). One source per shot, so no two threads touch one cell.
template <class T>
struct InjectSource {
  Field<T> u_next;
  GridView<T> v2dt2;
  Kokkos::View<const int* [2], MemSpace> cell;  ///< [shot][z, plane index q] on the padded grid
  Kokkos::View<const T*, MemSpace> wavelet;     ///< s(t_n) / cell volume
  ColumnMap column;
  int first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int n) const {
    const int iz = cell(first_shot + s, 0), q = cell(first_shot + s, 1);
    u_next(s, iz + column.halo, column(q)) += v2dt2(iz, q) * wavelet(n);
  }
};

/// Copies u^n at every receiver into traces(shot, receiver, n).
template <class T>
struct RecordReceivers {
  Traces<T> traces;
  Field<T> u_cur;
  Kokkos::View<const int** [2], MemSpace> cell;  ///< [shot][receiver][z, q] on the padded grid
  ColumnMap column;
  int first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int r, int n) const {
    traces(s, r, n) =
        u_cur(s, cell(first_shot + s, r, 0) + column.halo, column(cell(first_shot + s, r, 1)));
  }
};

/// Pressure-release surface at padded row 0: u = 0 there, and the halo above mirrors the field
/// antisymmetrically (u_{-k} = -u_k), which keeps the discrete Laplacian symmetric. Launched
/// over every column (the whole (y, x) plane in 3D; halo columns are zero and stay zero).
template <class T>
struct FreeSurface {
  Field<T> u;
  int halo;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int x) const {
    u(s, halo, x) = T(0);
    for (int k = 1; k <= halo; ++k) u(s, halo - k, x) = -u(s, halo + k, x);
  }
};

/// Counts non-finite values of a wavefield (NaN or Inf): x - x is NaN exactly for those.
template <class T>
struct CountNonFinite {
  Field<T> u;
  int nz, nx;

  KOKKOS_INLINE_FUNCTION void operator()(long k, int& bad) const {
    const int s = int(k / nz), z = int(k % nz);
    for (int x = 0; x < nx; ++x) {
      const T v = u(s, z, x);
      if (!(v - v == T(0))) ++bad;
    }
  }
};

}  // namespace pwave::physics
