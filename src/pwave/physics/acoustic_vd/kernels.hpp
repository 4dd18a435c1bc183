#pragma once
// Variable-density acoustic equation, second-order form in the pressure-like field u:
//
//   u_tt = K div(b grad u) + v^2 s(t) delta(x - x_s),   K = rho v^2,  b = 1/rho
//
// on the padded grid of the constant-density scheme (same wavefields, halo, strips, history):
//
//   u^{n+1} = 2 u^n - u^{n-1} + w sum_a L_a u^n + v^2 dt^2 s^n / V,   w = K dt^2
//   L_a u   = D-_a f_a + zeta_a,   f_a = beta_a (D+_a u + psi_a)       (a = x, z [, y])
//
// D+ takes cells to the half points x_{j+1/2} (stored at index j), D- half points back to cells,
// both the staggered order-`Order` first derivative (StaggeredStencil):
//   (D+ u)_j = sum_k c_k (u_{j+k} - u_{j+1-k}) / h,   (D- f)_i = sum_k c_k (f_{i+k-1} - f_{i-k}) /
//   h
// so that D-^T = -D+ and L is symmetric: the adjoint in G = w lambda is the same update.
// beta_a = (b_j + b_{j+1}) / 2 at half point j (the harmonic mean of the density; the last half
// point takes b of the last cell). CPML (strips only, same profile as the constant-density
// scheme): psi^n = a_h psi^{n-1} + b_h D+ u^n at half points, zeta^n = a zeta^{n-1} + b D- f at
// cells: the two recursive convolutions of d/dx (1/s) beta d/dx (1/s) u.
//
// A step is two launches: `Flux` computes every axis' f on the whole padded grid (buffers in the
// wavefield's halo layout, halo zero), `Update` the new u. With a free surface at padded row 0
// (u_0 = 0, u_{-k} = -u_k) the z flux is mirrored into the top halo (f_{-1-j} = f_j).

#include "pwave/physics/acoustic2d_kernels.hpp"

namespace pwave::physics::acoustic_vd {

/// Staggered coefficients divided by the spacing, per axis (y zero in 2D).
template <class T, int Order>
struct Coefficients {
  static constexpr int radius = StaggeredStencil<Order>::radius;
  T x[radius + 1], z[radius + 1], y[radius + 1];
  Coefficients(double dz, double dx, double dy = 0.0) {
    for (int k = 0; k <= radius; ++k) {
      const double c = k == 0 ? 0.0 : StaggeredStencil<Order>::c(k);
      x[k] = T(c / dx);
      z[k] = T(c / dz);
      y[k] = dy > 0 ? T(c / dy) : T(0);
    }
  }
};

/// Device data of the variable-density scheme on top of the shared acoustic state: `st.v2dt2`
/// is v^2 dt^2 (the source scale), `w` = rho v^2 dt^2 (the operator's), st.psi_* hold psi at
/// half points and st.zeta_* zeta at cells (both in the strip layouts).
template <class T>
struct State {
  Acoustic2DState<T> st;
  Grid2DView<T> w;                       ///< [nz][ny nx] rho v^2 dt^2
  Grid2DView<T> beta_x, beta_z, beta_y;  ///< [nz][ny nx] buoyancy at the half point after a cell
  CpmlAxis<T> hx, hz, hy;                ///< a, b at half points (ab, db unused)
  Field2D<T> flux_x, flux_z, flux_y;     ///< halo layout, as u
};

/// Index of cell (iy, ix)'s x-strip memory variable (the cell must lie in an x strip).
template <class T>
KOKKOS_INLINE_FUNCTION int x_strip_index(const Acoustic2DState<T>& st, int iy, int ix) {
  return iy * (st.strip_left + st.strip_right) + x_strip_column(st, ix);
}

/// First launch of a step: f_a = beta_a (D+_a u^n + psi_a^n) at every half point after a cell
/// of the launched box, advancing psi in the strips the box lies in (InX, InZ, InY).
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct Flux {
  static constexpr int R = StaggeredStencil<Order>::radius;
  State<T> v;
  Coefficients<T, Order> c;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const Acoustic2DState<T>& st = v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys, q = st.plane(iy, ix);
    const auto& u = st.u_cur;
    T gx = 0, gz = 0, gy = 0;
    PWAVE_UNROLL
    for (int k = 1; k <= R; ++k) {
      gx += c.x[k] * (u(s, z, x + k) - u(s, z, x + 1 - k));
      gz += c.z[k] * (u(s, z + k, x) - u(s, z + 1 - k, x));
      if constexpr (Dim == 3) gy += c.y[k] * (u(s, z, x + k * ys) - u(s, z, x + (1 - k) * ys));
    }
    if constexpr (InX) {
      T& psi = st.psi_x(s, iz, x_strip_index(st, iy, ix));
      psi = v.hx.a(ix) * psi + v.hx.b(ix) * gx;
      gx += psi;
    }
    if constexpr (InZ) {
      T& psi = st.psi_z(s, z_strip_row(st, iz), q);
      psi = v.hz.a(iz) * psi + v.hz.b(iz) * gz;
      gz += psi;
    }
    if constexpr (InY) {
      T& psi = st.psi_y(s, iz, y_strip_line(st, iy) * st.nx + ix);
      psi = v.hy.a(iy) * psi + v.hy.b(iy) * gy;
      gy += psi;
    }
    v.flux_x(s, z, x) = v.beta_x(iz, q) * gx;
    v.flux_z(s, z, x) = v.beta_z(iz, q) * gz;
    if constexpr (Dim == 3) v.flux_y(s, z, x) = v.beta_y(iz, q) * gy;
  }
};

/// Second launch: u^{n+1} = 2 u^n - u^{n-1} + w sum_a (D-_a f_a + zeta_a), written over u^{n-1},
/// advancing zeta in the strips the box lies in.
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct Update {
  static constexpr int R = StaggeredStencil<Order>::radius;
  State<T> v;
  Coefficients<T, Order> c;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const Acoustic2DState<T>& st = v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys, q = st.plane(iy, ix);
    T hx = 0, hz = 0, hy = 0;
    PWAVE_UNROLL
    for (int k = 1; k <= R; ++k) {
      hx += c.x[k] * (v.flux_x(s, z, x + k - 1) - v.flux_x(s, z, x - k));
      hz += c.z[k] * (v.flux_z(s, z + k - 1, x) - v.flux_z(s, z - k, x));
      if constexpr (Dim == 3)
        hy += c.y[k] * (v.flux_y(s, z, x + (k - 1) * ys) - v.flux_y(s, z, x - k * ys));
    }
    if constexpr (InX) {
      T& zeta = st.zeta_x(s, iz, x_strip_index(st, iy, ix));
      zeta = st.cx.a(ix) * zeta + st.cx.b(ix) * hx;
      hx += zeta;
    }
    if constexpr (InZ) {
      T& zeta = st.zeta_z(s, z_strip_row(st, iz), q);
      zeta = st.cz.a(iz) * zeta + st.cz.b(iz) * hz;
      hz += zeta;
    }
    if constexpr (InY) {
      T& zeta = st.zeta_y(s, iz, y_strip_line(st, iy) * st.nx + ix);
      zeta = st.cy.a(iy) * zeta + st.cy.b(iy) * hy;
      hy += zeta;
    }
    T lap = hx + hz;
    if constexpr (Dim == 3) lap += hy;
    st.u_prev(s, z, x) = T(2) * st.u_cur(s, z, x) - st.u_prev(s, z, x) + v.w(iz, q) * lap;
  }
};

/// Free surface: the z flux of the half points above row 0 mirrors the one below,
/// f_{-1-j} = f_j (D+ of a field odd about row 0 is even about it). Launched over (shot, column).
template <class T>
struct MirrorFlux {
  Field2D<T> flux_z;
  int halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int x) const {
    for (int j = 0; j < halo; ++j) flux_z(s, halo - 1 - j, x) = flux_z(s, halo + j, x);
  }
};

/// Interior-only flux of a reversed step (boundary storage): f_a = beta_a D+_a u with no CPML
/// term, over a box that stays a stencil radius clear of the strips.
template <class T, int Order, int Dim>
using InteriorFlux = Flux<T, Order, Dim, false, false, false>;

/// The reversed step in the box (boundary storage): u^{n-1} = 2 u^n - u^{n+1} + w sum_a D-_a f_a
/// over u^{n+1}, and the imaging term G^{n+1} w L u^n of dJ/dw added into `acc`.
template <class T, int Order, int Dim>
struct ReverseUpdate {
  static constexpr int R = StaggeredStencil<Order>::radius;
  State<T> v;  ///< st.u_cur = u^n, st.u_prev = u^{n+1} (becomes u^{n-1})
  Coefficients<T, Order> c;
  Field2D<T> g, acc;  ///< G^{n+1} (halo layout), per-shot dJ/dw imaging [shot][nz][ny nx]

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const Acoustic2DState<T>& st = v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys, q = st.plane(iy, ix);
    T hx = 0, hz = 0, hy = 0;  // summed as Update does
    PWAVE_UNROLL
    for (int k = 1; k <= R; ++k) {
      hx += c.x[k] * (v.flux_x(s, z, x + k - 1) - v.flux_x(s, z, x - k));
      hz += c.z[k] * (v.flux_z(s, z + k - 1, x) - v.flux_z(s, z - k, x));
      if constexpr (Dim == 3)
        hy += c.y[k] * (v.flux_y(s, z, x + (k - 1) * ys) - v.flux_y(s, z, x - k * ys));
    }
    T lap = hx + hz;
    if constexpr (Dim == 3) lap += hy;
    const T wl = v.w(iz, q) * lap;
    st.u_prev(s, z, x) = T(2) * st.u_cur(s, z, x) - st.u_prev(s, z, x) + wl;
    acc(s, iz, q) += g(s, z, x) * wl;
  }
};

}  // namespace pwave::physics::acoustic_vd
