#pragma once
// Point sources, receivers and the free surface of the acoustic scheme (2D and 3D).
// Sources and receivers act through taps: a cell each on grid points, Hicks's windowed-sinc
// weights between them.

#include "pwave/core/types.hpp"

namespace pwave::physics {

/// Maps a cell's plane index q = iy nx + ix (padded grid, no halo; q = ix in 2D) to its
/// wavefield column (see AcousticState): one integer per point lets the same source and
/// receiver kernels serve 2D and 3D.
struct ColumnMap {
  int nx = 0, hy = 0, ys = 0, halo = 0;
  KOKKOS_INLINE_FUNCTION int operator()(int q) const { return (q / nx + hy) * ys + q % nx + halo; }
};

/// One tap of a point as the kernels read it from PointTaps::at(): its weight h and its cell,
/// as halo-free indices (iz, plane index q: material grids, images, kept terms) and as the
/// wavefields' (z, x) (halo layout). propagation::Tap is the host's form it is built from.
template <class T>
struct GridTap {
  T h;
  int iz, q;
  int z, x;
};

/// Where the points (sources or receivers) of each shot of a batch act on the padded grid: a
/// tap per cell, [shot slot][point][tap]. A point on a grid point has one tap of weight 1; one
/// between grid points has Hicks's windowed-sinc taps (propagation/point_taps.hpp). Points
/// with fewer taps than the widest are padded with taps of weight 0.
template <class T>
struct PointTaps {
  Kokkos::View<int*** [2], MemSpace> cell;  ///< [shot][point][tap][z, plane index q]
  Kokkos::View<T***, MemSpace> weight;      ///< [shot][point][tap]
  KOKKOS_INLINE_FUNCTION int taps() const { return int(weight.extent(2)); }
  /// Tap k of point `point` of shot slot `shot`, its columns by `column`.
  KOKKOS_INLINE_FUNCTION GridTap<T> at(int shot, int point, int k, const ColumnMap& column) const {
    const int iz = cell(shot, point, k, 0), q = cell(shot, point, k, 1);
    return GridTap<T>{weight(shot, point, k), iz, q, iz + column.halo, column(q)};
  }
};

/// The same taps grouped by cell, for adding what several points (receivers) put into a cell
/// as one sum in a fixed order, without atomics: slot s's distinct cells are cell(s, c), and
/// cell c's contributions are i in [start(s, c), start(s, c + 1)): tap weight(s, i) of point
/// point(s, i), in ascending point order (a point's taps are distinct cells). Taps of weight 0
/// (padding) are left out; a slot with fewer cells than the widest ends with empty cells.
template <class T>
struct CellTaps {
  Kokkos::View<int** [2], MemSpace> cell;  ///< [shot][cell][z, plane index q]
  Kokkos::View<int**, MemSpace> start;     ///< [shot][cell + 1]: each cell's first contribution
  Kokkos::View<int**, MemSpace> point;     ///< [shot][contribution]: the point
  Kokkos::View<T**, MemSpace> weight;      ///< [shot][contribution]: the point's tap weight
  /// [shot][cell]: what the cell's points record (int(Component)): cells of different fields
  /// are different cells, even at the same index.
  Kokkos::View<int**, MemSpace> field;
  int cells() const { return int(cell.extent(1)); }
};

/// Each batch slot's source time function divided by the cell volume, s_shot(t_n) / (dx dz
/// [dy]): [shot slot][time]. Loaded when the batch changes (a shared wavelet: every row the
/// same), so the kernels index the slot's own wavelet.
template <class T>
using SlotWavelets = Kokkos::View<const T**, Kokkos::LayoutRight, MemSpace>;

/// Adds v^2 dt^2 s(t_n) / (dx dz [dy]) h_k at each tap k of each shot's source: the discrete
/// form of the source term v^2 s(t) delta(x - x_s), delta spread over the taps' weights h_k.
/// Launched over (shot, tap, n): the taps of one source are distinct cells, so no two threads
/// touch one cell; the padding taps (weight 0) add nothing.
template <class T>
struct InjectSource {
  Field<T> u_next;
  GridView<T> v2dt2;
  PointTaps<T> source;      ///< [shot][0][tap]
  SlotWavelets<T> wavelet;  ///< [shot][time]: s(t_n) / cell volume
  ColumnMap column;
  int first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int k, int n) const {
    const GridTap<T> t = source.at(first_shot + s, 0, k, column);
    if (t.h == T(0)) return;
    u_next(s, t.z, t.x) += v2dt2(t.iz, t.q) * wavelet(first_shot + s, n) * t.h;
  }
};

/// traces(shot, receiver, n) = sum over the receiver's taps of h_k u^n(x_k): the field at the
/// receiver, interpolated (one tap of weight 1 on a grid point: u^n there, bit for bit).
template <class T>
struct RecordReceivers {
  Traces<T> traces;
  Field<T> u_cur;
  PointTaps<T> receiver;  ///< [shot][receiver][tap]
  ColumnMap column;
  int first_shot;

  KOKKOS_INLINE_FUNCTION T tap(int s, int r, int k) const {
    const GridTap<T> t = receiver.at(first_shot + s, r, k, column);
    return t.h * u_cur(s, t.z, t.x);
  }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int r, int n) const {
    T sum = tap(s, r, 0);
    for (int k = 1; k < receiver.taps(); ++k) sum += tap(s, r, k);
    traces(s, r, n) = sum;
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
