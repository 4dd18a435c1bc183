#pragma once
// The exact discrete adjoint of one step of the 2D acoustic scheme (acoustic2d_kernels.hpp).
//
// Forward step n, per axis, with chi the indicator of the axis' CPML strip and w = v^2 dt^2:
//   T      = D2 u^n + chi D1 psi^{n-1}
//   L      = (1 + b) T + a zeta^{n-1}
//   u^{n+1} = S[2 u^n - u^{n-1} + w (L_x + L_z + f^n)]      (S zeroes the free-surface row)
//   zeta^n = a zeta^{n-1} + b T,   psi^n = a psi^{n-1} + b D1 u^n
// Transposing it (D2^T = D2, D1^T = -D1, the free-surface mirror keeps D2z symmetric) gives the
// backward step for the adjoint field lambda and memory variables psi^, zeta^ (primes: values
// of step n+1):
//   T^      = (1 + b) w lambda^{n+1} + b zeta^'
//   zeta^   = a (w lambda^{n+1} + zeta^'),   psi^ = a psi^' + D1^T (chi T^)
//   lambda^n = S[2 lambda^{n+1} - lambda^{n+2} + sum_axes (D2 T^ + D1^T (b psi^')) + r^n]
// with D1^T y_i = sum_j c1_j (y_{i-j} - y_{i+j}) (D1 is antisymmetric).

#include "pwave/physics/acoustic2d_kernels.hpp"

namespace pwave::physics {

/// Device data of a backward (adjoint) run; same shapes as Acoustic2DState.
template <class T>
struct Adjoint2DState {
  int nz = 0, nx = 0;
  int pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int halo = 0;
  Field2D<T> lam_prev, lam_cur;  ///< lambda^{n+2} (overwritten by lambda^n) and lambda^{n+1}
  Grid2DView<T> v2dt2;
  Kokkos::View<T*, MemSpace> ax, bx, az, bz;
  Field2D<T> psi_x, psi_x_next, zeta_x, zeta_x_next;  ///< psi^, zeta^ on the x strips
  Field2D<T> psi_z, psi_z_next, zeta_z, zeta_z_next;  ///< psi^, zeta^ on the z strips

  /// Strip geometry, shared with the forward state's helpers.
  Acoustic2DState<T> geometry() const {
    Acoustic2DState<T> g;
    g.nz = nz, g.nx = nx, g.pad_top = pad_top, g.pad_bottom = pad_bottom;
    g.pad_left = pad_left, g.pad_right = pad_right, g.halo = halo;
    return g;
  }
};

/// Backward step away from every CPML strip and the free surface (b = 0, no mirror):
/// lambda^n = 2 lambda^{n+1} - lambda^{n+2} + D2x(w lambda^{n+1}) + D2z(w lambda^{n+1}).
template <class T, int Order>
struct AdjointInteriorStep {
  static constexpr int R = Stencil<Order>::radius;
  Field2D<T> lam_out, lam;
  Grid2DView<T> w;
  ScaledStencil<T, Order> c;
  int halo;

  AdjointInteriorStep(const Adjoint2DState<T>& st, const ScaledStencil<T, Order>& coef)
      : lam_out(st.lam_prev), lam(st.lam_cur), w(st.v2dt2), c(coef), halo(st.halo) {}

  KOKKOS_INLINE_FUNCTION T g(int s, int iz, int ix) const {
    return w(iz, ix) * lam(s, iz + halo, ix + halo);
  }

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    const T l = lam(s, iz + halo, ix + halo);
    T acc = (c.d2z[0] + c.d2x[0]) * g(s, iz, ix);
    PWAVE_UNROLL
    for (int j = 1; j <= R; ++j) {
      acc += c.d2z[j] * (g(s, iz + j, ix) + g(s, iz - j, ix)) +
             c.d2x[j] * (g(s, iz, ix + j) + g(s, iz, ix - j));
    }
    lam_out(s, iz + halo, ix + halo) = T(2) * l - lam_out(s, iz + halo, ix + halo) + acc;
  }
};

/// Backward step anywhere (CPML strips, their neighbourhood, the free surface), with the
/// memory variables. `FreeSurface` mirrors T^_z antisymmetrically above row 0.
template <class T, int Order, bool FreeSurface>
struct AdjointFrameStep {
  static constexpr int R = Stencil<Order>::radius;
  Adjoint2DState<T> st;
  Acoustic2DState<T> geo;
  ScaledStencil<T, Order> c;

  AdjointFrameStep(const Adjoint2DState<T>& state, const ScaledStencil<T, Order>& coef)
      : st(state), geo(state.geometry()), c(coef) {}

  KOKKOS_INLINE_FUNCTION T g(int s, int iz, int ix) const {
    return st.v2dt2(iz, ix) * st.lam_cur(s, iz + st.halo, ix + st.halo);
  }
  // T^_x at (iz, ix); zero outside the padded grid. `strip_only` gives chi T^_x.
  KOKKOS_INLINE_FUNCTION T t_hat_x(int s, int iz, int ix, bool strip_only) const {
    if (ix < 0 || ix >= st.nx) return T(0);
    const int col = x_strip_column(geo, ix);
    if (col < 0) return strip_only ? T(0) : g(s, iz, ix);
    const T b = st.bx(ix);
    return (T(1) + b) * g(s, iz, ix) + b * st.zeta_x(s, iz, col);
  }
  KOKKOS_INLINE_FUNCTION T t_hat_z(int s, int iz, int ix, bool strip_only) const {
    if (FreeSurface && iz < 0) return -t_hat_z(s, -iz, ix, strip_only);
    if (iz < 0 || iz >= st.nz) return T(0);
    const int row = z_strip_row(geo, iz);
    if (row < 0) return strip_only ? T(0) : g(s, iz, ix);
    const T b = st.bz(iz);
    return (T(1) + b) * g(s, iz, ix) + b * st.zeta_z(s, row, ix);
  }
  KOKKOS_INLINE_FUNCTION T b_psi_x(int s, int iz, int ix) const {
    const int col = x_strip_column(geo, ix);
    return col < 0 ? T(0) : st.bx(ix) * st.psi_x(s, iz, col);
  }
  KOKKOS_INLINE_FUNCTION T b_psi_z(int s, int iz, int ix) const {
    const int row = z_strip_row(geo, iz);
    return row < 0 ? T(0) : st.bz(iz) * st.psi_z(s, row, ix);
  }

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    const int z = iz + st.halo, x = ix + st.halo;
    T acc = c.d2x[0] * t_hat_x(s, iz, ix, false) + c.d2z[0] * t_hat_z(s, iz, ix, false);
    for (int j = 1; j <= R; ++j) {
      acc += c.d2x[j] * (t_hat_x(s, iz, ix + j, false) + t_hat_x(s, iz, ix - j, false));
      acc += c.d2z[j] * (t_hat_z(s, iz + j, ix, false) + t_hat_z(s, iz - j, ix, false));
      // D1^T (b psi^'):
      acc += c.d1x[j] * (b_psi_x(s, iz, ix - j) - b_psi_x(s, iz, ix + j));
      acc += c.d1z[j] * (b_psi_z(s, iz - j, ix) - b_psi_z(s, iz + j, ix));
    }
    const int col = x_strip_column(geo, ix);
    if (col >= 0) {
      T d = 0;
      for (int j = 1; j <= R; ++j) {
        d += c.d1x[j] * (t_hat_x(s, iz, ix - j, true) - t_hat_x(s, iz, ix + j, true));
      }
      const T a = st.ax(ix);
      st.zeta_x_next(s, iz, col) = a * (g(s, iz, ix) + st.zeta_x(s, iz, col));
      st.psi_x_next(s, iz, col) = a * st.psi_x(s, iz, col) + d;
    }
    const int row = z_strip_row(geo, iz);
    if (row >= 0) {
      T d = 0;
      for (int j = 1; j <= R; ++j) {
        d += c.d1z[j] * (t_hat_z(s, iz - j, ix, true) - t_hat_z(s, iz + j, ix, true));
      }
      const T a = st.az(iz);
      st.zeta_z_next(s, row, ix) = a * (g(s, iz, ix) + st.zeta_z(s, row, ix));
      st.psi_z_next(s, row, ix) = a * st.psi_z(s, row, ix) + d;
    }
    st.lam_prev(s, z, x) = T(2) * st.lam_cur(s, z, x) - st.lam_prev(s, z, x) + acc;
  }
};

/// Adds the data residual r^n at every receiver: the adjoint of recording u^n.
/// Receivers may share a cell, so the adds are atomic.
template <class T>
struct InjectResidual {
  Field2D<T> lam;
  Traces<T> residual;                            ///< [shot][receiver][time]
  Kokkos::View<const int** [2], MemSpace> cell;  ///< [shot][receiver][z, x], padded grid
  int halo, first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int r, int n) const {
    Kokkos::atomic_add(&lam(s, cell(first_shot + s, r, 0) + halo, cell(first_shot + s, r, 1) + halo),
                       residual(s, r, n));
  }
};

/// Zeroes the free-surface row: the adjoint of the projection S.
template <class T>
struct ZeroSurfaceRow {
  Field2D<T> lam;
  int halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int x) const { lam(s, halo, x) = T(0); }
};

/// Stores u^k (padded grid, halo dropped) as snapshot k of a forward history [k][shot][z][x].
template <class T>
struct StoreSnapshot {
  Kokkos::View<T****, Kokkos::LayoutRight, MemSpace> history;
  Field2D<T> u;
  int k, halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    history(k, s, iz, ix) = u(s, iz + halo, ix + halo);
  }
};

/// Imaging condition for the `full` history: adds lambda^{n+1} (u^{n+1} - 2 u^n + u^{n-1}) / w
/// to the shot's dJ/dw, since w (L + f) = u^{n+1} - 2 u^n + u^{n-1} on the forward step (to
/// rounding; on the free-surface row lambda is zero). One gradient per shot: no atomics, and
/// shots are summed in order at the end, so any batch split gives the same result.
template <class T>
struct AccumulateGradient {
  Field2D<T> grad;  ///< [shot][nz][nx] padded grid, dJ/dw
  Field2D<T> lam;   ///< lambda^{n+1}, halo layout
  Kokkos::View<T****, Kokkos::LayoutRight, MemSpace> history;  ///< u^k, k = 0..nt
  Grid2DView<T> w;
  int n, halo;  ///< step n uses u^{n+1}, u^n and u^{n-1} (u^{-1} = 0)

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    const T prev = n > 0 ? history(n - 1, s, iz, ix) : T(0);
    grad(s, iz, ix) += lam(s, iz + halo, ix + halo) *
                       (history(n + 1, s, iz, ix) - T(2) * history(n, s, iz, ix) + prev) /
                       w(iz, ix);
  }
};

}  // namespace pwave::physics
