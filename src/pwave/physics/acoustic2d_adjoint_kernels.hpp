#pragma once
// The exact discrete adjoint of one step of the 2D acoustic scheme (acoustic2d_kernels.hpp).
//
// Forward step n, per axis, with chi the indicator of the axis' CPML strip and w = v^2 dt^2:
//   T       = D2 u^n + chi D1 psi^{n-1}
//   L       = (1 + b) T + a zeta^{n-1}
//   u^{n+1} = S[2 u^n - u^{n-1} + w (L_x + L_z + f^n)]      (S zeroes the free-surface row)
//   zeta^n  = a zeta^{n-1} + b T,   psi^n = a psi^{n-1} + b D1 u^n
// Transposing it (D2^T = D2, D1^T y_i = sum_j c1_j (y_{i-j} - y_{i+j}), the free-surface mirror
// keeps D2z symmetric) and writing the adjoint field as G = w lambda gives, with primes for the
// values of step n+1 (psi^, zeta^ the adjoint memory variables):
//   T^     = (1 + b) G^{n+1} + b zeta^'
//   G^n    = S[2 G^{n+1} - G^{n+2} + w sum_axes (D2 T^ + D1^T (b psi^')) + w r^n]
//   zeta^  = a (G^{n+1} + zeta^'),   psi^ = a psi^' + D1^T (chi T^)
// Away from the strips T^ = G and this is exactly the forward interior update applied to G,
// so the interior kernel is InteriorStep itself (vectorised, 16 bytes per cell).

#include "pwave/physics/acoustic2d_kernels.hpp"

namespace pwave::physics {

/// Device data of a backward (adjoint) run; same shapes as Acoustic2DState. The halo of G is
/// zero, or the antisymmetric mirror under a free surface, like the forward field's.
template <class T>
struct Adjoint2DState {
  int nz = 0, nx = 0;
  int pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int halo = 0;
  Field2D<T> g_prev, g_cur;  ///< G^{n+2} (overwritten by G^n) and G^{n+1}
  Grid2DView<T> v2dt2;
  Kokkos::View<T*, MemSpace> ax, bx, az, bz;
  Field2D<T> psi_x, psi_x_next, zeta_x, zeta_x_next;  ///< psi^, zeta^ on the x strips
  Field2D<T> psi_z, psi_z_next, zeta_z, zeta_z_next;  ///< psi^, zeta^ on the z strips

  /// The same fields viewed as a forward state, to run InteriorStep on G.
  Acoustic2DState<T> as_forward() const {
    Acoustic2DState<T> f;
    f.nz = nz, f.nx = nx, f.pad_top = pad_top, f.pad_bottom = pad_bottom;
    f.pad_left = pad_left, f.pad_right = pad_right, f.halo = halo;
    f.u_prev = g_prev, f.u_cur = g_cur, f.v2dt2 = v2dt2;
    return f;
  }
};

/// Backward step in the frame (CPML strips and a stencil radius around them), with the memory
/// variables. Every neighbour's T^ is evaluated from G, b and zeta^ on the fly. `InX` / `InZ`
/// say whether the launched region's stencils can reach an x / z strip at all (the side
/// columns cannot reach a z strip, the top and bottom bands no x strip); where not, that axis
/// is a plain stencil on G.
template <class T, int Order, bool InX, bool InZ>
struct AdjointFrameStep {
  static constexpr int R = Stencil<Order>::radius;
  Adjoint2DState<T> st;
  Acoustic2DState<T> geo;
  ScaledStencil<T, Order> c;

  AdjointFrameStep(const Adjoint2DState<T>& state, const ScaledStencil<T, Order>& coef)
      : st(state), geo(state.as_forward()), c(coef) {}

  // G at padded cell (iz, ix); outside the grid the halo holds zero or the free-surface mirror.
  KOKKOS_INLINE_FUNCTION T g(int s, int iz, int ix) const {
    return st.g_cur(s, iz + st.halo, ix + st.halo);
  }
  // T^_x at (iz, ix); `strip_only` gives chi T^_x.
  KOKKOS_INLINE_FUNCTION T t_hat_x(int s, int iz, int ix, bool strip_only) const {
    const int col = x_strip_column(geo, ix);
    if (col < 0) return strip_only ? T(0) : g(s, iz, ix);
    const T b = st.bx(ix);
    return (T(1) + b) * g(s, iz, ix) + b * st.zeta_x(s, iz, col);
  }
  KOKKOS_INLINE_FUNCTION T t_hat_z(int s, int iz, int ix, bool strip_only) const {
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
    T acc = 0;
    if constexpr (InX) {
      acc += c.d2x[0] * t_hat_x(s, iz, ix, false);
      for (int j = 1; j <= R; ++j) {
        acc += c.d2x[j] * (t_hat_x(s, iz, ix + j, false) + t_hat_x(s, iz, ix - j, false));
        acc += c.d1x[j] * (b_psi_x(s, iz, ix - j) - b_psi_x(s, iz, ix + j));  // D1^T (b psi^')
      }
    } else {
      acc += c.d2x[0] * st.g_cur(s, z, x);
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) acc += c.d2x[j] * (st.g_cur(s, z, x + j) + st.g_cur(s, z, x - j));
    }
    if constexpr (InZ) {
      acc += c.d2z[0] * t_hat_z(s, iz, ix, false);
      for (int j = 1; j <= R; ++j) {
        acc += c.d2z[j] * (t_hat_z(s, iz + j, ix, false) + t_hat_z(s, iz - j, ix, false));
        acc += c.d1z[j] * (b_psi_z(s, iz - j, ix) - b_psi_z(s, iz + j, ix));
      }
    } else {
      acc += c.d2z[0] * st.g_cur(s, z, x);
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) acc += c.d2z[j] * (st.g_cur(s, z + j, x) + st.g_cur(s, z - j, x));
    }
    const int col = InX ? x_strip_column(geo, ix) : -1;
    if (col >= 0) {
      T d = 0;
      for (int j = 1; j <= R; ++j) {
        d += c.d1x[j] * (t_hat_x(s, iz, ix - j, true) - t_hat_x(s, iz, ix + j, true));
      }
      const T a = st.ax(ix);
      st.zeta_x_next(s, iz, col) = a * (g(s, iz, ix) + st.zeta_x(s, iz, col));
      st.psi_x_next(s, iz, col) = a * st.psi_x(s, iz, col) + d;
    }
    const int row = InZ ? z_strip_row(geo, iz) : -1;
    if (row >= 0) {
      T d = 0;
      for (int j = 1; j <= R; ++j) {
        d += c.d1z[j] * (t_hat_z(s, iz - j, ix, true) - t_hat_z(s, iz + j, ix, true));
      }
      const T a = st.az(iz);
      st.zeta_z_next(s, row, ix) = a * (g(s, iz, ix) + st.zeta_z(s, row, ix));
      st.psi_z_next(s, row, ix) = a * st.psi_z(s, row, ix) + d;
    }
    st.g_prev(s, z, x) = T(2) * st.g_cur(s, z, x) - st.g_prev(s, z, x) + st.v2dt2(iz, ix) * acc;
  }
};

/// Adds w r^n at every receiver: the adjoint of recording u^n (in the scaled variable G).
/// Receivers may share a cell, so the adds are atomic.
template <class T>
struct InjectResidual {
  Field2D<T> g;
  Traces<T> residual;                            ///< [shot][receiver][time]
  Grid2DView<T> w;
  Kokkos::View<const int** [2], MemSpace> cell;  ///< [shot][receiver][z, x], padded grid
  int halo, first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int r, int n) const {
    const int iz = cell(first_shot + s, r, 0), ix = cell(first_shot + s, r, 1);
    Kokkos::atomic_add(&g(s, iz + halo, ix + halo), w(iz, ix) * residual(s, r, n));
  }
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

/// Imaging condition for the `full` history. dJ/dw = sum_n lambda^{n+1} (u^{n+1} - 2u^n +
/// u^{n-1}) / w (since w (L + f) is that second difference); with G = w lambda this is
/// sum_n G^{n+1} (u^{n+1} - 2u^n + u^{n-1}) / w^2. The sum is accumulated here per shot, the
/// division done once at the end. One buffer per shot: no atomics, and shots are summed in
/// order at the end, so any batch split gives the same result.
template <class T>
struct AccumulateGradient {
  Field2D<T> acc;  ///< [shot][nz][nx] padded grid
  Field2D<T> g;    ///< G^{n+1}, halo layout
  Kokkos::View<T****, Kokkos::LayoutRight, MemSpace> history;  ///< u^k at slot k - base
  int n, halo;  ///< step n uses u^{n+1}, u^n and u^{n-1} (u^{-1} = 0)
  int base;     ///< time index of slot 0 (0 for a full history, n0 - 1 for a segment)

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    const int k = n - base;
    const T prev = k > 0 ? history(k - 1, s, iz, ix) : T(0);
    acc(s, iz, ix) += g(s, iz + halo, ix + halo) *
                      (history(k + 1, s, iz, ix) - T(2) * history(k, s, iz, ix) + prev);
  }
};

}  // namespace pwave::physics
