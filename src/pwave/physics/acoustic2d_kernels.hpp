#pragma once
// Cell updates of the 2D constant-density acoustic scheme (leapfrog in time, order-`Order`
// central differences in space, CPML in the frame around the model):
//
//   u^{n+1} = 2 u^n - u^{n-1} + v^2 dt^2 (L_x u^n + L_z u^n)
//
// In the interior L_x = D2x. In a CPML layer along x (same for z), with psi and zeta the memory
// variables of the recursive convolution and D1x/D2x the first/second-derivative stencils:
//   t        = D2x u^n + D1x psi^{n-1}
//   L_x u^n  = (1 + b) t + a zeta^{n-1}
//   zeta^n   = a zeta^{n-1} + b t
//   psi^n    = a psi^{n-1} + b D1x u^n
// Every step is linear in (u^n, u^{n-1}, psi^{n-1}, zeta^{n-1}), which keeps the exact discrete
// adjoint a transposition of these formulas.
//
// Storage: wavefields [shot][z][x] with a zero halo of `radius` cells on every side (so the
// stencil never branches); v^2 dt^2 on the padded grid [z][x]; psi/zeta only on the CPML strips:
// x-strips [shot][z][left + right columns], z-strips [shot][top + bottom rows][x].

#include "pwave/core/types.hpp"
#include "pwave/physics/stencil.hpp"

namespace pwave::physics {

/// Device data of one shot batch, shared by all 2D acoustic kernels.
template <class T>
struct Acoustic2DState {
  int nz = 0, nx = 0;                     ///< padded grid (model + CPML), without halo
  int pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int halo = 0;                           ///< stencil radius
  Field2D<T> u_prev, u_cur;               ///< [shot][nz + 2 halo][nx + 2 halo]
  Grid2DView<T> v2dt2;                    ///< [nz][nx], v^2 dt^2 in m^2
  Kokkos::View<T*, MemSpace> ax, bx;      ///< [nx] CPML coefficients along x
  Kokkos::View<T*, MemSpace> az, bz;      ///< [nz] CPML coefficients along z
  Field2D<T> psi_x, psi_x_next, zeta_x;   ///< [shot][nz][pad_left + pad_right]
  Field2D<T> psi_z, psi_z_next, zeta_z;   ///< [shot][pad_top + pad_bottom][nx]
};

/// Column of x-strip storage for padded column ix, or -1 outside the x strips.
template <class T>
KOKKOS_INLINE_FUNCTION int x_strip_column(const Acoustic2DState<T>& st, int ix) {
  if (ix >= 0 && ix < st.pad_left) return ix;
  if (ix >= st.nx - st.pad_right && ix < st.nx) return ix - st.nx + st.pad_left + st.pad_right;
  return -1;
}

/// Row of z-strip storage for padded row iz, or -1 outside the z strips.
template <class T>
KOKKOS_INLINE_FUNCTION int z_strip_row(const Acoustic2DState<T>& st, int iz) {
  if (iz >= 0 && iz < st.pad_top) return iz;
  if (iz >= st.nz - st.pad_bottom && iz < st.nz) return iz - st.nz + st.pad_top + st.pad_bottom;
  return -1;
}

/// Stencil coefficients pre-divided by the spacing: c2/h^2 and c1/h.
template <class T, int Order>
struct ScaledStencil {
  static constexpr int radius = Stencil<Order>::radius;
  T d2z[radius + 1], d2x[radius + 1], d1z[radius + 1], d1x[radius + 1];

  ScaledStencil(double dz, double dx) {
    for (int j = 0; j <= radius; ++j) {
      d2z[j] = T(Stencil<Order>::c2(j) / (dz * dz));
      d2x[j] = T(Stencil<Order>::c2(j) / (dx * dx));
      d1z[j] = T(Stencil<Order>::c1(j) / dz);
      d1x[j] = T(Stencil<Order>::c1(j) / dx);
    }
  }
};

/// Interior update: no CPML term, so only u^n, u^{n-1} and v^2 dt^2 are touched (16 bytes per
/// cell in float32 when u^n rows stay in cache). Writes u^{n+1} over u^{n-1}.
template <class T, int Order>
struct InteriorStep {
  static constexpr int R = Stencil<Order>::radius;
  Field2D<T> u_next;  // holds u^{n-1} on entry
  Field2D<T> u_cur;
  Grid2DView<T> v2dt2;
  ScaledStencil<T, Order> c;
  int halo;

  InteriorStep(const Acoustic2DState<T>& st, const ScaledStencil<T, Order>& coef)
      : u_next(st.u_prev), u_cur(st.u_cur), v2dt2(st.v2dt2), c(coef), halo(st.halo) {}

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    const int z = iz + halo, x = ix + halo;
    const T u = u_cur(s, z, x);
    T lap = (c.d2z[0] + c.d2x[0]) * u;
    PWAVE_UNROLL
    for (int j = 1; j <= R; ++j) {
      lap += c.d2z[j] * (u_cur(s, z + j, x) + u_cur(s, z - j, x)) +
             c.d2x[j] * (u_cur(s, z, x + j) + u_cur(s, z, x - j));
    }
    u_next(s, z, x) = T(2) * u - u_next(s, z, x) + v2dt2(iz, ix) * lap;
  }

  /// The same update for cells [x0, x1) of one row, written on raw restrict pointers so host
  /// compilers vectorise it (View indexing hides that u^{n+1} and u^n never alias).
  KOKKOS_INLINE_FUNCTION void row(int s, int iz, int x0, int x1) const {
    const int z = iz + halo;
    const long zs = long(u_cur.stride(1));
    const T* PWAVE_RESTRICT uc = &u_cur(s, z, halo);
    T* PWAVE_RESTRICT un = &u_next(s, z, halo);
    const T* PWAVE_RESTRICT vv = &v2dt2(iz, 0);
    const T c0 = c.d2z[0] + c.d2x[0];
    PWAVE_SIMD
    for (int ix = x0; ix < x1; ++ix) {
      T lap = c0 * uc[ix];
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) {
        lap += c.d2z[j] * (uc[ix + j * zs] + uc[ix - j * zs]) + c.d2x[j] * (uc[ix + j] + uc[ix - j]);
      }
      un[ix] = T(2) * uc[ix] - un[ix] + vv[ix] * lap;
    }
  }
};

/// Update in the CPML frame: as InteriorStep plus the memory-variable terms of the axes whose
/// strips contain the launched region: `InX` for the left/right strips, `InZ` for the top/bottom
/// ones (both in the corners). The caller launches each region with the matching pair, so no
/// cell tests which strip it is in. psi^{n-1} is read from psi_*, psi^n written to psi_*_next.
template <class T, int Order, bool InX, bool InZ>
struct CpmlStep {
  static constexpr int R = Stencil<Order>::radius;
  Acoustic2DState<T> st;
  ScaledStencil<T, Order> c;

  CpmlStep(const Acoustic2DState<T>& state, const ScaledStencil<T, Order>& coef)
      : st(state), c(coef) {}

  KOKKOS_INLINE_FUNCTION T psi_x_at(int s, int iz, int ix) const {
    const int col = x_strip_column(st, ix);
    return col < 0 ? T(0) : st.psi_x(s, iz, col);
  }
  KOKKOS_INLINE_FUNCTION T psi_z_at(int s, int iz, int ix) const {
    const int row = z_strip_row(st, iz);
    return row < 0 ? T(0) : st.psi_z(s, row, ix);
  }

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    const int z = iz + st.halo, x = ix + st.halo;
    const T u = st.u_cur(s, z, x);
    T d2x = c.d2x[0] * u, d2z = c.d2z[0] * u, d1x = 0, d1z = 0;
    PWAVE_UNROLL
    for (int j = 1; j <= R; ++j) {
      const T xp = st.u_cur(s, z, x + j), xm = st.u_cur(s, z, x - j);
      const T zp = st.u_cur(s, z + j, x), zm = st.u_cur(s, z - j, x);
      d2x += c.d2x[j] * (xp + xm);
      d2z += c.d2z[j] * (zp + zm);
      d1x += c.d1x[j] * (xp - xm);
      d1z += c.d1z[j] * (zp - zm);
    }
    T lap_x = d2x, lap_z = d2z;
    if constexpr (InX) {
      const int col = x_strip_column(st, ix);
      T dpsi = 0;
      for (int j = 1; j <= R; ++j) dpsi += c.d1x[j] * (psi_x_at(s, iz, ix + j) - psi_x_at(s, iz, ix - j));
      const T a = st.ax(ix), b = st.bx(ix);
      const T t = d2x + dpsi;
      const T zeta = st.zeta_x(s, iz, col);
      lap_x = (T(1) + b) * t + a * zeta;
      st.zeta_x(s, iz, col) = a * zeta + b * t;
      st.psi_x_next(s, iz, col) = a * st.psi_x(s, iz, col) + b * d1x;
    }
    if constexpr (InZ) {
      const int row = z_strip_row(st, iz);
      T dpsi = 0;
      for (int j = 1; j <= R; ++j) dpsi += c.d1z[j] * (psi_z_at(s, iz + j, ix) - psi_z_at(s, iz - j, ix));
      const T a = st.az(iz), b = st.bz(iz);
      const T t = d2z + dpsi;
      const T zeta = st.zeta_z(s, row, ix);
      lap_z = (T(1) + b) * t + a * zeta;
      st.zeta_z(s, row, ix) = a * zeta + b * t;
      st.psi_z_next(s, row, ix) = a * st.psi_z(s, row, ix) + b * d1z;
    }
    st.u_prev(s, z, x) = T(2) * u - st.u_prev(s, z, x) + st.v2dt2(iz, ix) * (lap_x + lap_z);
  }
};

}  // namespace pwave::physics
