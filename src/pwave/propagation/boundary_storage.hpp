#pragma once
// Kernels of the `boundary` storage strategy: the frame (CPML strips + a radius-wide band inside
// them) is saved every forward step; going backwards, the interior is rebuilt by running the
// leapfrog step in reverse, u^{n-1} = 2 u^n - u^{n+1} + w (D2 u^n + f^n), and the frame is
// restored from storage.

#include "pwave/physics/acoustic2d_kernels.hpp"

namespace pwave::propagation {

template <class T>
using FrameHistory = Kokkos::View<T***, Kokkos::LayoutRight, MemSpace>;  ///< [n][shot][cell]

/// The frame: padded-grid cells outside the box [z_lo, z_hi) x [x_lo, x_hi). The box is the
/// model minus a stencil radius next to each CPML layer; sides without a layer (rigid or free
/// surface) need no band, their boundary condition being reversible.
struct FrameRegion {
  int nz = 0, nx = 0, z_lo = 0, z_hi = 0, x_lo = 0, x_hi = 0;

  FrameRegion() = default;
  FrameRegion(int nz_, int nx_, int pad_top, int pad_bottom, int pad_left, int pad_right, int r)
      : nz(nz_), nx(nx_) {
    z_lo = pad_top > 0 ? std::min(pad_top + r, nz) : 0;
    z_hi = pad_bottom > 0 ? std::max(nz - pad_bottom - r, z_lo) : nz;
    x_lo = pad_left > 0 ? std::min(pad_left + r, nx) : 0;
    x_hi = pad_right > 0 ? std::max(nx - pad_right - r, x_lo) : nx;
  }
  KOKKOS_INLINE_FUNCTION long top_cells() const { return long(z_lo) * nx; }
  KOKKOS_INLINE_FUNCTION long bottom_cells() const { return long(nz - z_hi) * nx; }
  KOKKOS_INLINE_FUNCTION long left_cells() const { return long(z_hi - z_lo) * x_lo; }
  KOKKOS_INLINE_FUNCTION long right_cells() const { return long(z_hi - z_lo) * (nx - x_hi); }
  KOKKOS_INLINE_FUNCTION long size() const {
    return top_cells() + bottom_cells() + left_cells() + right_cells();
  }
  /// Cell k of the frame: top band, bottom band, then the left and right strips row by row.
  KOKKOS_INLINE_FUNCTION void cell(long k, int& iz, int& ix) const {
    if (k < top_cells()) {
      iz = int(k / nx), ix = int(k % nx);
      return;
    }
    k -= top_cells();
    if (k < bottom_cells()) {
      iz = z_hi + int(k / nx), ix = int(k % nx);
      return;
    }
    k -= bottom_cells();
    if (k < left_cells()) {
      iz = z_lo + int(k / x_lo), ix = int(k % x_lo);
      return;
    }
    k -= left_cells();
    const int w = nx - x_hi;
    iz = z_lo + int(k / w), ix = x_hi + int(k % w);
  }
};

/// Saves the frame of u (halo layout) as step n of the history.
template <class T>
struct StoreFrame {
  FrameHistory<T> frames;
  Field2D<T> u;
  FrameRegion region;
  int n, halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, long k) const {
    int iz, ix;
    region.cell(k, iz, ix);
    frames(n, s, k) = u(s, iz + halo, ix + halo);
  }
};

/// On the frame at backward step n: adds G^{n+1} (u^{n+1} - 2 u^n + u^{n-1}) to the per-shot
/// imaging sum (see AccumulateGradient), then overwrites u^{n+1} (in `u_next`) with the stored
/// u^{n-1}.
template <class T>
struct FrameImageRestore {
  FrameHistory<T> frames;
  Field2D<T> u_next, u_cur, g, acc;  ///< acc: [shot][nz][nx], no halo
  FrameRegion region;
  int n, halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, long k) const {
    int iz, ix;
    region.cell(k, iz, ix);
    const int z = iz + halo, x = ix + halo;
    const T older = n > 0 ? frames(n - 1, s, k) : T(0);
    acc(s, iz, ix) += g(s, z, x) * (u_next(s, z, x) - T(2) * u_cur(s, z, x) + older);
    u_next(s, z, x) = older;
  }
};

/// In the box: rebuilds u^{n-1} = 2 u^n - u^{n+1} + w D2 u^n over u^{n+1}, and adds the
/// imaging term G^{n+1} w D2 u^n (= G (u^{n+1} - 2u^n + u^{n-1}) there without the source term,
/// added separately; computed from the Laplacian to avoid the cancellation of the difference).
template <class T, int Order>
struct ReconstructImage {
  static constexpr int R = physics::Stencil<Order>::radius;
  Field2D<T> u_next, u_cur, g, acc;
  Grid2DView<T> w;
  physics::ScaledStencil<T, Order> c;
  int halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    const int z = iz + halo, x = ix + halo;
    const T wlap = w(iz, ix) * c.laplacian(u_cur, s, z, x);
    u_next(s, z, x) = T(2) * u_cur(s, z, x) - u_next(s, z, x) + wlap;
    acc(s, iz, ix) += g(s, z, x) * wlap;
  }

  /// The same over cells [x0, x1) of one row on restrict pointers (host vectorisation).
  KOKKOS_INLINE_FUNCTION void row(int s, int iz, int x0, int x1) const {
    const int z = iz + halo;
    const long zs = long(u_cur.stride(1));
    const T* PWAVE_RESTRICT uc = &u_cur(s, z, halo);
    T* PWAVE_RESTRICT un = &u_next(s, z, halo);
    const T* PWAVE_RESTRICT gg = &g(s, z, halo);
    T* PWAVE_RESTRICT aa = &acc(s, iz, 0);
    const T* PWAVE_RESTRICT ww = &w(iz, 0);
    const T c0 = c.d2z[0] + c.d2x[0];
    PWAVE_SIMD
    for (int ix = x0; ix < x1; ++ix) {
      T lap = c0 * uc[ix];
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) {
        lap +=
            c.d2z[j] * (uc[ix + j * zs] + uc[ix - j * zs]) + c.d2x[j] * (uc[ix + j] + uc[ix - j]);
      }
      const T wlap = ww[ix] * lap;
      un[ix] = T(2) * uc[ix] - un[ix] + wlap;
      aa[ix] += gg[ix] * wlap;
    }
  }
};

/// The source term of the reversed step and of the imaging condition at sources inside the box
/// (frame sources are covered by the stored values).
template <class T>
struct ReconstructSource {
  Field2D<T> u_next, g, acc;
  Grid2DView<T> w;
  Kokkos::View<const int* [2], MemSpace> cell;
  Kokkos::View<const T*, MemSpace> wavelet;  ///< s(t_n) / (dx dz)
  FrameRegion region;
  int n, halo, first_shot;
  KOKKOS_INLINE_FUNCTION void operator()(int s) const {
    const int iz = cell(first_shot + s, 0), ix = cell(first_shot + s, 1);
    if (iz < region.z_lo || iz >= region.z_hi || ix < region.x_lo || ix >= region.x_hi) return;
    const T wf = w(iz, ix) * wavelet(n);
    u_next(s, iz + halo, ix + halo) += wf;
    acc(s, iz, ix) += g(s, iz + halo, ix + halo) * wf;
  }
};

}  // namespace pwave::propagation
