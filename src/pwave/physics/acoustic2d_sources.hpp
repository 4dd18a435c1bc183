#pragma once
// Point sources, receivers and the free surface of the 2D acoustic scheme.

#include "pwave/core/types.hpp"

namespace pwave::physics {

/// Adds v^2 dt^2 s(t_n) / (dx dz) at each shot's source cell: the discrete form of the source
/// term v^2 s(t) delta(x - x_s). One source per shot, so no two threads touch one cell.
template <class T>
struct InjectSource {
  Field2D<T> u_next;
  Grid2DView<T> v2dt2;
  Kokkos::View<const int* [2], MemSpace> cell;  ///< [shot][z, x] on the padded grid
  Kokkos::View<const T*, MemSpace> wavelet;     ///< s(t_n) / (dx dz)
  int halo, first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int n) const {
    const int iz = cell(first_shot + s, 0), ix = cell(first_shot + s, 1);
    u_next(s, iz + halo, ix + halo) += v2dt2(iz, ix) * wavelet(n);
  }
};

/// Copies u^n at every receiver into traces(shot, receiver, n).
template <class T>
struct RecordReceivers {
  Traces<T> traces;
  Field2D<T> u_cur;
  Kokkos::View<const int** [2], MemSpace> cell;  ///< [shot][receiver][z, x] on the padded grid
  int halo, first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int r, int n) const {
    traces(s, r, n) =
        u_cur(s, cell(first_shot + s, r, 0) + halo, cell(first_shot + s, r, 1) + halo);
  }
};

/// Pressure-release surface at padded row 0: u = 0 there, and the halo above mirrors the field
/// antisymmetrically (u_{-k} = -u_k), which keeps the discrete Laplacian symmetric.
template <class T>
struct FreeSurface {
  Field2D<T> u;
  int halo;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int x) const {
    u(s, halo, x) = T(0);
    for (int k = 1; k <= halo; ++k) u(s, halo - k, x) = -u(s, halo + k, x);
  }
};

/// Counts non-finite values of a wavefield (NaN or Inf): x - x is NaN exactly for those.
template <class T>
struct CountNonFinite {
  Field2D<T> u;
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
