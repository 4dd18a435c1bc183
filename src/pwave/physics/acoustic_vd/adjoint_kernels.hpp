#pragma once
// The exact adjoint of the variable-density step (kernels.hpp), in G = w lambda (lambda the
// adjoint wavefield, w = rho v^2 dt^2), three launches per backward step n:
//
//   HBar   (cells):       hbar_a = G^{n+1}; in a strip  hbar_a = (1 + b) G + b Z_a,
//                         Z_a <- a (G + Z_a)                       (the transpose of zeta)
//   GBar   (half points): phibar_a = -(D+_a hbar_a) (= D-_a^T hbar_a; with a free surface the
//                         mirrored half points fold back), gbar_a = beta_a phibar_a; in a strip
//                         gbar_a = (1 + b_h) beta_a phibar_a + b_h P_a,
//                         P_a <- a_h (beta_a phibar_a + P_a)       (the transpose of psi)
//   Update (cells):       G^n = 2 G^{n+1} - G^{n+2} - w sum_a D-_a gbar_a   (= D+_a^T gbar_a);
//                         with a free surface, rows 0 < i < R also take the halo rows' share
//                         (u_{-i} = -u_i), and row 0 is zeroed after the residuals go in.
//
// Away from the strips this is the forward update applied to G. The gradient with respect to
// the buoyancy at half point j is sum_n (D+_a u^n)_j gbar_a^n_j / beta_a_j (the psi memory
// folded in by the recursion of P), gathered onto the cells beta_a averages.

#include "pwave/physics/acoustic_vd/kernels.hpp"

namespace pwave::physics::acoustic_vd {

/// Device data of the backward run.
template <class T>
struct AdjointState {
  State<T> v;                         ///< forward data; v.st.u_cur = u^n for the imaging
  Field2D<T> g_prev, g_cur;           ///< G^{n+2} (becomes G^n), G^{n+1}; halo layout
  Field2D<T> hbar_x, hbar_z, hbar_y;  ///< halo layout, halo zero
  Field2D<T> gbar_x, gbar_z, gbar_y;  ///< halo layout, halo zero
  Field2D<T> p_x, p_z, p_y;           ///< transposes of psi (strip layouts)
  Field2D<T> z_x, z_z, z_y;           ///< transposes of zeta (strip layouts)
  Field2D<T> img_b;                   ///< [shot][nz][ny nx] dJ/db of each shot
};

template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct HBar {
  AdjointState<T> a;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const Acoustic2DState<T>& st = a.v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), q = st.plane(iy, ix);
    const T g = a.g_cur(s, z, x);
    T hx = g, hz = g;
    if constexpr (InX) {
      T& zx = a.z_x(s, iz, x_strip_index(st, iy, ix));
      const T b = st.cx.b(ix);
      hx = (T(1) + b) * g + b * zx;
      zx = st.cx.a(ix) * (g + zx);
    }
    if constexpr (InZ) {
      T& zz = a.z_z(s, z_strip_row(st, iz), q);
      const T b = st.cz.b(iz);
      hz = (T(1) + b) * g + b * zz;
      zz = st.cz.a(iz) * (g + zz);
    }
    a.hbar_x(s, z, x) = hx;
    a.hbar_z(s, z, x) = hz;
    if constexpr (Dim == 3) {
      T hy = g;
      if constexpr (InY) {
        T& zy = a.z_y(s, iz, y_strip_line(st, iy) * st.nx + ix);
        const T b = st.cy.b(iy);
        hy = (T(1) + b) * g + b * zy;
        zy = st.cy.a(iy) * (g + zy);
      }
      a.hbar_y(s, z, x) = hy;
    }
  }
};

template <class T, int Order, int Dim, bool InX, bool InZ, bool InY, bool FreeSurface>
struct GBar {
  static constexpr int R = StaggeredStencil<Order>::radius;
  AdjointState<T> a;
  Coefficients<T, Order> c;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const Acoustic2DState<T>& st = a.v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys, q = st.plane(iy, ix);
    T fx = 0, fz = 0, fy = 0;
    PWAVE_UNROLL
    for (int k = 1; k <= R; ++k) {
      fx -= c.x[k] * (a.hbar_x(s, z, x + k) - a.hbar_x(s, z, x + 1 - k));
      fz -= c.z[k] * (a.hbar_z(s, z + k, x) - a.hbar_z(s, z + 1 - k, x));
      if constexpr (Dim == 3)
        fy -= c.y[k] * (a.hbar_y(s, z, x + k * ys) - a.hbar_y(s, z, x + (1 - k) * ys));
    }
    if constexpr (FreeSurface) {
      if (iz < R) {  // half point -1-iz mirrors this one; hbar is zero above row 0
        for (int k = iz + 1; k <= R; ++k) fz -= c.z[k] * a.hbar_z(s, st.halo - 1 - iz + k, x);
      }
    }
    const T bx = a.v.beta_x(iz, q), bz = a.v.beta_z(iz, q);
    T gx = bx * fx, gz = bz * fz;
    if constexpr (InX) {
      T& p = a.p_x(s, iz, x_strip_index(st, iy, ix));
      const T hb = a.v.hx.b(ix);
      const T t = gx + p;
      gx = gx + hb * t;
      p = a.v.hx.a(ix) * t;
    }
    if constexpr (InZ) {
      T& p = a.p_z(s, z_strip_row(st, iz), q);
      const T hb = a.v.hz.b(iz);
      const T t = gz + p;
      gz = gz + hb * t;
      p = a.v.hz.a(iz) * t;
    }
    a.gbar_x(s, z, x) = gx;
    a.gbar_z(s, z, x) = gz;
    if constexpr (Dim == 3) {
      T gy = a.v.beta_y(iz, q) * fy;
      if constexpr (InY) {
        T& p = a.p_y(s, iz, y_strip_line(st, iy) * st.nx + ix);
        const T hb = a.v.hy.b(iy);
        const T t = gy + p;
        gy = gy + hb * t;
        p = a.v.hy.a(iy) * t;
      }
      a.gbar_y(s, z, x) = gy;
    }
  }
};

/// The cell update of the backward step, and (Image) the buoyancy imaging with u^n in
/// a.v.st.u_cur. Launched over the whole padded grid (no strip terms at cells).
template <class T, int Order, int Dim, bool FreeSurface, bool Image>
struct AdjointUpdate {
  static constexpr int R = StaggeredStencil<Order>::radius;
  AdjointState<T> a;
  Coefficients<T, Order> c;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const Acoustic2DState<T>& st = a.v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys, q = st.plane(iy, ix);
    T hx = 0, hz = 0, hy = 0;
    PWAVE_UNROLL
    for (int k = 1; k <= R; ++k) {
      hx += c.x[k] * (a.gbar_x(s, z, x + k - 1) - a.gbar_x(s, z, x - k));
      hz += c.z[k] * (a.gbar_z(s, z + k - 1, x) - a.gbar_z(s, z - k, x));
      if constexpr (Dim == 3)
        hy += c.y[k] * (a.gbar_y(s, z, x + (k - 1) * ys) - a.gbar_y(s, z, x - k * ys));
    }
    if constexpr (FreeSurface) {
      if (iz > 0 && iz < R) {  // the halo row -iz holds -u_iz; gbar is zero above row 0
        for (int k = iz + 1; k <= R; ++k) hz -= c.z[k] * a.gbar_z(s, st.halo - iz + k - 1, x);
      }
    }
    T lap = hx + hz;
    if constexpr (Dim == 3) lap += hy;
    a.g_prev(s, z, x) = T(2) * a.g_cur(s, z, x) - a.g_prev(s, z, x) - a.v.w(iz, q) * lap;
    if constexpr (Image) {
      const auto& u = st.u_cur;
      // Half point j of axis a: P_j = (D+ u)_j gbar_j / beta_j; cell i takes P_{i-1} / 2 and
      // P_i / 2 (all of P_i at the last cell, whose half point's beta is its own b).
      const auto share = [&](const Field2D<T>& gb, const Grid2DView<T>& beta, const T* cc,
                             int stride, int zs, int qs, int n, int i) {
        T sum = 0;
        for (int side = 0; side < 2; ++side) {
          const int j = i - 1 + side;  // the half point before (side 0) and after (1) the cell
          if (j < 0) continue;
          const int zz = z + (side - 1) * zs, xx = x + (side - 1) * stride;
          T g = 0;
          for (int k = 1; k <= R; ++k)
            g += cc[k] * (u(s, zz + k * zs, xx + k * stride) -
                          u(s, zz + (1 - k) * zs, xx + (1 - k) * stride));
          const T weight = (side == 1 && i == n - 1) ? T(1) : T(0.5);
          sum += weight * g * gb(s, zz, xx) / beta(iz + (side - 1) * zs, q + (side - 1) * qs);
        }
        return sum;
      };
      T img = share(a.gbar_x, a.v.beta_x, c.x, 1, 0, 1, st.nx, ix) +
              share(a.gbar_z, a.v.beta_z, c.z, 0, 1, 0, st.nz, iz);
      if constexpr (Dim == 3) img += share(a.gbar_y, a.v.beta_y, c.y, ys, 0, st.nx, st.ny, iy);
      a.img_b(s, iz, q) += img;
    }
  }
};

/// dJ/ds(t_n) = G^{n+1}(x_s) b(x_s) / V (the source is scaled by v^2 dt^2 = w b): the adjoint
/// of the injection, and dJ/db(x_s) += G^{n+1}(x_s) s(t_n) / V, the injection's share of the
/// buoyancy gradient at fixed w.
template <class T>
struct SourceAdjoint {
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> out;  ///< [shot][time], may be empty
  Field2D<T> g, img_b;
  Grid2DView<T> v2dt2, w;
  Kokkos::View<const int* [2], MemSpace> cell;
  Kokkos::View<const T*, MemSpace> wavelet;  ///< s(t_n) / V
  ColumnMap column;
  T inv_volume;
  int first_shot, n;
  KOKKOS_INLINE_FUNCTION void operator()(int s) const {
    const int iz = cell(first_shot + s, 0), q = cell(first_shot + s, 1);
    const T gs = g(s, iz + column.halo, column(q));
    if (out.extent(0) > 0) out(s, n) = gs * v2dt2(iz, q) / w(iz, q) * inv_volume;
    img_b(s, iz, q) += gs * wavelet(n);
  }
};

/// Row 0 of G after a free-surface step: u_0 is held at zero, so its adjoint is dropped.
template <class T>
struct ZeroSurface {
  Field2D<T> g;
  int halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int x) const { g(s, halo, x) = T(0); }
};

}  // namespace pwave::physics::acoustic_vd
