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

#include <type_traits>

#include "pwave/physics/acoustic_vd/kernels.hpp"
#include "pwave/physics/point_sources.hpp"

namespace pwave::physics::acoustic_vd {

/// Device data of the backward run.
template <class T>
struct AdjointState {
  State<T> v;                       ///< forward data; v.st.u_cur = u^n for the imaging
  Field<T> g_prev, g_cur;           ///< G^{n+2} (becomes G^n), G^{n+1}; halo layout
  Field<T> hbar_x, hbar_z, hbar_y;  ///< halo layout, halo zero
  Field<T> gbar_x, gbar_z, gbar_y;  ///< halo layout, halo zero
  Field<T> p_x, p_z, p_y;           ///< transposes of psi (strip layouts)
  Field<T> z_x, z_z, z_y;           ///< transposes of zeta (strip layouts)
  Field<T> img_b;                   ///< [shot][nz][ny nx] dJ/db of each shot
};

/// The transpose of the zeta recursion at a cell of a strip: returns hbar = (1 + b) G + b Z and
/// advances Z <- a (G + Z). The one statement HBar's cell and line paths share.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T zeta_transpose(T g, T& z, T a, T b) {
  const T h = (T(1) + b) * g + b * z;
  z = a * (g + z);
  return h;
}

/// The transpose of the psi recursion at a half point of a strip, for gbar = beta phibar:
/// returns gbar + b_h (gbar + P) and advances P <- a_h (gbar + P). Shared by GBar's paths.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T psi_transpose(T g, T& p, T a, T b) {
  const T t = g + p;
  p = a * t;
  return g + b * t;
}

/// phibar = -(D+ h) at a half point (= D-^T h): -sum_k c_k (h(k) - h(1 - k)), accumulated from
/// zero by subtraction, h(j) the value j cells further along the axis. GBar's formula, for its
/// cell and line paths and the fused rows alike.
template <int R, class T, class H>
KOKKOS_FORCEINLINE_FUNCTION T phibar(const T* c, const H& h) {
  T f = 0;
  PWAVE_UNROLL
  for (int k = 1; k <= R; ++k) f -= c[k] * (h(k) - h(1 - k));
  return f;
}

template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct HBar {
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  AdjointState<T> a;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const AcousticState<T>& st = a.v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), q = st.plane(iy, ix);
    const T g = a.g_cur(s, z, x);
    T hx = g, hz = g;
    if constexpr (InX)
      hx = zeta_transpose(g, a.z_x(s, iz, x_strip_index(st, iy, ix)), st.cx.a(ix), st.cx.b(ix));
    if constexpr (InZ)
      hz = zeta_transpose(g, a.z_z(s, z_strip_row(st, iz), q), st.cz.a(iz), st.cz.b(iz));
    a.hbar_x(s, z, x) = hx;
    a.hbar_z(s, z, x) = hz;
    if constexpr (Dim == 3) {
      T hy = g;
      if constexpr (InY)
        hy = zeta_transpose(g, a.z_y(s, iz, y_strip_line(st, iy) * st.nx + ix), st.cy.a(iy),
                            st.cy.b(iy));
      a.hbar_y(s, z, x) = hy;
    }
  }
  /// Host path: cells [x0, x1) of the x line (iz, iy), the strip's memory variables and
  /// profiles resolved once (StripLine); the same formula per cell as operator().
  void line(int s, int iz, int iy, int x0, int x1) const {
    const AcousticState<T>& st = a.v.st;
    const int z = iz + st.halo, c0 = st.column(iy, x0) - x0;  // column of cell i: c0 + i
    const T* PWAVE_RESTRICT g = &a.g_cur(s, z, c0);
    T* PWAVE_RESTRICT hx = &a.hbar_x(s, z, c0);
    T* PWAVE_RESTRICT hz = &a.hbar_z(s, z, c0);
    T* PWAVE_RESTRICT hy = Dim == 3 ? &a.hbar_y(s, z, c0) : nullptr;
    const StripLine<T> m = StripLine<T>::template at<InX, InZ, InY>(st, a.z_x, a.z_z, a.z_y, st.cx,
                                                                    st.cz, st.cy, s, iz, iy, x0);
    T* PWAVE_RESTRICT mx = m.mx;
    T* PWAVE_RESTRICT mz = m.mz;
    T* PWAVE_RESTRICT my = m.my;
    PWAVE_SIMD
    for (int i = x0; i < x1; ++i) {
      const T gi = g[i];
      T vx = gi, vz = gi;
      if constexpr (InX) vx = zeta_transpose(gi, mx[i], m.ax[i], m.bx[i]);
      if constexpr (InZ) vz = zeta_transpose(gi, mz[i], m.az, m.bz);
      hx[i] = vx;
      hz[i] = vz;
      if constexpr (Dim == 3) {
        T vy = gi;
        if constexpr (InY) vy = zeta_transpose(gi, my[i], m.ay, m.by);
        hy[i] = vy;
      }
    }
  }
};

template <class T, int Order, int Dim, bool InX, bool InZ, bool InY, bool FreeSurface>
struct GBar {
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static constexpr int R = StaggeredStencil<Order>::radius;
  AdjointState<T> a;
  Coefficients<T, Order> c;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const AcousticState<T>& st = a.v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys, q = st.plane(iy, ix);
    T fx = phibar<R>(c.x, [&](int j) { return a.hbar_x(s, z, x + j); });
    T fz = phibar<R>(c.z, [&](int j) { return a.hbar_z(s, z + j, x); });
    T fy = 0;
    if constexpr (Dim == 3) fy = phibar<R>(c.y, [&](int j) { return a.hbar_y(s, z, x + j * ys); });
    if constexpr (FreeSurface) {
      if (iz < R) {  // half point -1-iz mirrors this one; hbar is zero above row 0
        for (int k = iz + 1; k <= R; ++k) fz -= c.z[k] * a.hbar_z(s, st.halo - 1 - iz + k, x);
      }
    }
    const T bx = a.v.beta_x(iz, q), bz = a.v.beta_z(iz, q);
    T gx = bx * fx, gz = bz * fz;
    if constexpr (InX)
      gx = psi_transpose(gx, a.p_x(s, iz, x_strip_index(st, iy, ix)), a.v.hx.a(ix), a.v.hx.b(ix));
    if constexpr (InZ)
      gz = psi_transpose(gz, a.p_z(s, z_strip_row(st, iz), q), a.v.hz.a(iz), a.v.hz.b(iz));
    a.gbar_x(s, z, x) = gx;
    a.gbar_z(s, z, x) = gz;
    if constexpr (Dim == 3) {
      T gy = a.v.beta_y(iz, q) * fy;
      if constexpr (InY)
        gy = psi_transpose(gy, a.p_y(s, iz, y_strip_line(st, iy) * st.nx + ix), a.v.hy.a(iy),
                           a.v.hy.b(iy));
      a.gbar_y(s, z, x) = gy;
    }
  }
  /// Host path: cells [x0, x1) of the x line (iz, iy), the strip's memory variables and
  /// half-point profiles resolved once (StripLine); the same formula per cell as operator().
  void line(int s, int iz, int iy, int x0, int x1) const {
    const AcousticState<T>& st = a.v.st;
    const int z = iz + st.halo, c0 = st.column(iy, x0) - x0, ys = st.ys;
    const T* PWAVE_RESTRICT hx = &a.hbar_x(s, z, c0);
    const T* hzr[2 * R];  // hbar_z rows z - R + 1 .. z + R (taps 1 - k and k)
    for (int j = 1 - R; j <= R; ++j) hzr[j + R - 1] = &a.hbar_z(s, z + j, c0);
    const T* PWAVE_RESTRICT hy = Dim == 3 ? &a.hbar_y(s, z, c0) : nullptr;
    const int q0 = st.plane(iy, 0);
    const T* PWAVE_RESTRICT bxr = &a.v.beta_x(iz, q0);
    const T* PWAVE_RESTRICT bzr = &a.v.beta_z(iz, q0);
    const T* PWAVE_RESTRICT byr = Dim == 3 ? &a.v.beta_y(iz, q0) : nullptr;
    T* PWAVE_RESTRICT gx_out = &a.gbar_x(s, z, c0);
    T* PWAVE_RESTRICT gz_out = &a.gbar_z(s, z, c0);
    T* PWAVE_RESTRICT gy_out = Dim == 3 ? &a.gbar_y(s, z, c0) : nullptr;
    const StripLine<T> m = StripLine<T>::template at<InX, InZ, InY>(st, a.p_x, a.p_z, a.p_y, a.v.hx,
                                                                    a.v.hz, a.v.hy, s, iz, iy, x0);
    T* PWAVE_RESTRICT mx = m.mx;
    T* PWAVE_RESTRICT mz = m.mz;
    T* PWAVE_RESTRICT my = m.my;
    // With a free surface, rows iz < R fold the mirrored half points back (operator()).
    const bool fold = FreeSurface && iz < R;
    const T* fold_rows[R] = {};
    if (fold) {
      for (int k = iz + 1; k <= R; ++k) fold_rows[k - 1] = &a.hbar_z(s, st.halo - 1 - iz + k, c0);
    }
    // Two copies of the cell loop: the fold's variable trip count would keep GCC from
    // vectorising the loop of every row, not only of the R rows that fold.
    const auto cells = [&](auto with_fold) {
      PWAVE_SIMD
      for (int i = x0; i < x1; ++i) {
        T fx = phibar<R>(c.x, [&](int j) { return hx[i + j]; });
        T fz = phibar<R>(c.z, [&](int j) { return hzr[j + R - 1][i]; });
        T fy = 0;
        if constexpr (Dim == 3) fy = phibar<R>(c.y, [&](int j) { return hy[i + j * ys]; });
        if constexpr (decltype(with_fold)::value) {
          for (int k = iz + 1; k <= R; ++k) fz -= c.z[k] * fold_rows[k - 1][i];
        }
        T gx = bxr[i] * fx, gz = bzr[i] * fz;
        if constexpr (InX) gx = psi_transpose(gx, mx[i], m.ax[i], m.bx[i]);
        if constexpr (InZ) gz = psi_transpose(gz, mz[i], m.az, m.bz);
        gx_out[i] = gx;
        gz_out[i] = gz;
        if constexpr (Dim == 3) {
          T gy = byr[i] * fy;
          if constexpr (InY) gy = psi_transpose(gy, my[i], m.ay, m.by);
          gy_out[i] = gy;
        }
      }
    };
    if constexpr (FreeSurface) {
      if (fold) {
        cells(std::true_type{});
        return;
      }
    }
    cells(std::false_type{});
  }
};

/// G^n = 2 G^{n+1} - G^{n+2} - w sum_a D-_a gbar_a: the leapfrog of the backward step (the
/// forward's with the sign of the operator term flipped). One formula for cells and rows.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T adjoint_leapfrog(T g, T g_prev, T w, T lap) {
  return T(2) * g - g_prev - w * lap;
}

/// The buoyancy imaging term of one half point j of an axis: P_j = (D+ u)_j gbar_j / beta_j.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T buoyancy_term(T du, T gbar, T beta) {
  return du * gbar / beta;
}

/// A cell's share of the terms of its two half points along an axis: P_{i-1} / 2 + P_i / 2,
/// `before` = 0 at the first cell (no half point before it) and all of P_i at the last (its half
/// point's beta is the cell's own b). One formula for cells and rows; the rows compute each P_j
/// once and give it to both its cells, bitwise as the cells computing it twice. The select is of
/// the weight, not of two expressions reading `after` (GCC vectorises no loop with the latter
/// and a loop-invariant `last`; 1 * after is after, bitwise).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T cell_share(T before, T after, bool last) {
  return T(0.5) * before + (last ? T(1) : T(0.5)) * after;
}

/// The cell update of the backward step, and (Image) the buoyancy imaging with u^n in
/// a.v.st.u_cur. Launched over the whole padded grid (no strip terms at cells).
template <class T, int Order, int Dim, bool FreeSurface, bool Image>
struct AdjointUpdate {
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static constexpr int R = StaggeredStencil<Order>::radius;
  /// Rows (3D: depths) one lines() call takes: the z imaging terms of the half point between
  /// two of them are computed once.
  static constexpr int block_lines = 8;
  /// Columns per chunk of the row path's line buffers.
  static constexpr int chunk = 1024;
  AdjointState<T> a;
  Coefficients<T, Order> c;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const AcousticState<T>& st = a.v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys, q = st.plane(iy, ix);
    T hx = d_minus<R>(c.x, [&](int j) { return a.gbar_x(s, z, x + j); });
    T hz = d_minus<R>(c.z, [&](int j) { return a.gbar_z(s, z + j, x); });
    T hy = 0;
    if constexpr (Dim == 3) hy = d_minus<R>(c.y, [&](int j) { return a.gbar_y(s, z, x + j * ys); });
    if constexpr (FreeSurface) {
      if (iz > 0 && iz < R) {  // the halo row -iz holds -u_iz; gbar is zero above row 0
        for (int k = iz + 1; k <= R; ++k) hz -= c.z[k] * a.gbar_z(s, st.halo - iz + k - 1, x);
      }
    }
    T lap = hx + hz;
    if constexpr (Dim == 3) lap += hy;
    a.g_prev(s, z, x) = adjoint_leapfrog(a.g_cur(s, z, x), a.g_prev(s, z, x), a.v.w(iz, q), lap);
    if constexpr (Image) {
      const auto& u = st.u_cur;
      // The cell's share along one axis (zstep, xstep, qstep: the steps of a cell along it in
      // z, in the halo-layout column and in the [ny nx] plane); i its index, n the cells.
      const auto axis = [&](const Field<T>& gb, const GridView<T>& beta, const T* cc, int zstep,
                            int xstep, int qstep, int i, int n) {
        const auto term = [&](int back) {  // P of the half point after cell i + back
          const int zz = z + back * zstep, xx = x + back * xstep;
          const T du = d_plus<R>(cc, [&](int j) { return u(s, zz + j * zstep, xx + j * xstep); });
          return buoyancy_term(du, gb(s, zz, xx), beta(iz + back * zstep, q + back * qstep));
        };
        return cell_share(i > 0 ? term(-1) : T(0), term(0), i == n - 1);
      };
      T img = axis(a.gbar_x, a.v.beta_x, c.x, 0, 1, 1, ix, st.nx) +
              axis(a.gbar_z, a.v.beta_z, c.z, 1, 0, 0, iz, st.nz);
      if constexpr (Dim == 3) img += axis(a.gbar_y, a.v.beta_y, c.y, 0, ys, st.nx, iy, st.ny);
      a.img_b(s, iz, q) += img;
    }
  }

  /// P_j along one axis for the half points after cells [0, n) of a line: u, gbar and beta at
  /// the first cell, `stride` the step of u along the axis.
  static void terms(const T* cc, const T* PWAVE_RESTRICT u, long stride, const T* PWAVE_RESTRICT gb,
                    const T* PWAVE_RESTRICT beta, T* PWAVE_RESTRICT p, int n) {
    PWAVE_SIMD
    for (int i = 0; i < n; ++i) {
      const T du = d_plus<R>(cc, [&](int j) { return u[i + j * stride]; });
      p[i] = buoyancy_term(du, gb[i], beta[i]);
    }
  }

  /// Host path (backends/launch.hpp): the x lines (iz + r, iy), r < n, cells [x0, x1), in
  /// chunks of columns. Per line the x terms P of half points [x0 - 1, x1) go to a line buffer
  /// and the cell loop reads both of a cell's; the z terms of the rows' half points go to two
  /// row buffers (the one between two rows of the block is computed once), the y terms (3D)
  /// of the two half points around the line likewise. The update as operator().
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    const AcousticState<T>& st = a.v.st;
    const int h = st.halo, col = st.column(iy, 0), q = st.plane(iy, 0), ys = st.ys;
    const long zs = long(st.u_cur.stride(1));
    alignas(64) T px[chunk + 1];
    alignas(64) T pz[2][chunk];
    alignas(64) T py[2][Dim == 3 ? chunk : 1];
    const auto& u = st.u_cur;
    for (int c0 = x0; c0 < x1; c0 += chunk) {
      const int cn = std::min(chunk, x1 - c0);
      // z terms of half point row j (the one after row j) into `dst`; none before row 0.
      const auto z_terms = [&](int j, T* dst) {
        if constexpr (!Image) return;
        if (j < 0) {
          for (int i = 0; i < cn; ++i) dst[i] = T(0);
        } else {
          terms(c.z, &u(s, j + h, col + c0), zs, &a.gbar_z(s, j + h, col + c0),
                &a.v.beta_z(j, q + c0), dst, cn);
        }
      };
      z_terms(iz - 1, pz[0]);
      for (int r = iz; r < iz + n; ++r) {
        const int z = r + h;
        T* pz_before = pz[(r - iz) & 1];
        T* pz_after = pz[(r - iz + 1) & 1];
        z_terms(r, pz_after);
        // x terms of half points [c0 - 1, c0 + cn) at px[j - (c0 - 1)].
        if (c0 == 0) px[0] = T(0);
        const int lo = std::max(c0 - 1, 0);
        x_terms(s, z, r, col, q, lo, c0 + cn - lo, px + (lo - (c0 - 1)));
        const T* pyb = nullptr;
        const T* pya = nullptr;
        if constexpr (Dim == 3 && Image) {
          if (iy == 0) {
            for (int i = 0; i < cn; ++i) py[0][i] = T(0);
          } else {
            terms(c.y, &u(s, z, col - ys + c0), ys, &a.gbar_y(s, z, col - ys + c0),
                  &a.v.beta_y(r, q - st.nx + c0), py[0], cn);
          }
          terms(c.y, &u(s, z, col + c0), ys, &a.gbar_y(s, z, col + c0), &a.v.beta_y(r, q + c0),
                py[1], cn);
          pyb = py[0], pya = py[1];
        }
        if (FreeSurface && r > 0 && r < R) {
          row<true>(s, r, iy, col, q, zs, c0, cn, px, pz_before, pz_after, pyb, pya);
        } else {
          row<false>(s, r, iy, col, q, zs, c0, cn, px, pz_before, pz_after, pyb, pya);
        }
      }
    }
  }

 private:
  /// The x terms of half points [lo, lo + len) of row r (z = r + halo) into dst.
  void x_terms(int s, int z, int r, int col, int q, int lo, int len, T* dst) const {
    if constexpr (Image) {
      terms(c.x, &a.v.st.u_cur(s, z, col + lo), 1, &a.gbar_x(s, z, col + lo),
            &a.v.beta_x(r, q + lo), dst, len);
    }
  }

  /// Cells [c0, c0 + cn) of row r of line iy: the update and, with Image, the imaging from
  /// the terms (px at half point c0 - 1 on; the others at the chunk's first cell).
  template <bool Mirror>
  void row(int s, int r, int iy, int col, int q, long zs, int c0, int cn, const T* px, const T* pzb,
           const T* pza, const T* pyb, const T* pya) const {
    const AcousticState<T>& st = a.v.st;
    const int z = r + st.halo;
    const T* mirror[R + 1] = {};  // row of gbar_z that tap k of the free surface reads
    if constexpr (Mirror) {
      for (int k = r + 1; k <= R; ++k) mirror[k] = &a.gbar_z(s, st.halo - r + k - 1, col + c0);
    }
    cells<Mirror>(c, r, &a.g_cur(s, z, col + c0), &a.g_prev(s, z, col + c0), &a.v.w(r, q + c0),
                  &a.gbar_x(s, z, col + c0), &a.gbar_z(s, z, col + c0),
                  Dim == 3 ? &a.gbar_y(s, z, col + c0) : nullptr, &a.img_b(s, r, q + c0), px, pzb,
                  pza, pyb, pya, mirror, zs, st.ys, cn, st.nx - 1 - c0, r == st.nz - 1,
                  iy == st.ny - 1);
  }

  /// row()'s cells; `last_x` the index of the row's last cell (if in [0, n)). The arrays are
  /// parameters because GCC honours restrict on those: with local restrict pointers it did not
  /// vectorise this loop once it had two stores (gp and img).
  template <bool Mirror>
  static void cells(const Coefficients<T, Order>& c, int r, const T* PWAVE_RESTRICT g,
                    T* PWAVE_RESTRICT gp, const T* PWAVE_RESTRICT w, const T* PWAVE_RESTRICT gx,
                    const T* PWAVE_RESTRICT gz, const T* PWAVE_RESTRICT gy, T* PWAVE_RESTRICT img,
                    const T* PWAVE_RESTRICT px, const T* PWAVE_RESTRICT pzb,
                    const T* PWAVE_RESTRICT pza, const T* PWAVE_RESTRICT pyb,
                    const T* PWAVE_RESTRICT pya, const T* const* mirror, long zs, int ys, int n,
                    int last_x, bool last_z, bool last_y) {
    PWAVE_SIMD
    for (int i = 0; i < n; ++i) {
      const T hx = d_minus<R>(c.x, [&](int j) { return gx[i + j]; });
      T hz = d_minus<R>(c.z, [&](int j) { return gz[i + j * zs]; });
      if constexpr (Mirror) {
        for (int k = r + 1; k <= R; ++k) hz -= c.z[k] * mirror[k][i];
      }
      T lap = hx + hz;
      if constexpr (Dim == 3) lap += d_minus<R>(c.y, [&](int j) { return gy[i + j * ys]; });
      gp[i] = adjoint_leapfrog(g[i], gp[i], w[i], lap);
      if constexpr (Image) {
        T im = cell_share(px[i], px[i + 1], i == last_x) + cell_share(pzb[i], pza[i], last_z);
        if constexpr (Dim == 3) im += cell_share(pyb[i], pya[i], last_y);
        img[i] += im;
      }
    }
  }
};

/// Host backends, 2D, boundary storage: the backward step of the rows of a box at least two
/// stencil radii inside the strips (and, with a free surface, two radii below row 0), where
/// hbar = G, no CPML term is met and no fold: the reversed step with its dJ/dw imaging
/// (InteriorFlux + ReverseUpdate) and the adjoint step with its buoyancy imaging (GBar +
/// AdjointUpdate<Image>) in one pass, both reading u^n and G^{n+1}. Per chunk of columns, each
/// half point's D+ u, u flux, gbar and buoyancy term is computed once, the z ones into a ring
/// of 2R row buffers, the x ones into line buffers, instead of five launches through the
/// grid-sized flux, hbar and gbar arrays. The same formulas on the same operands as those
/// kernels (d_plus, phibar, d_minus, reverse_leapfrog, adjoint_leapfrog, buoyancy_term,
/// cell_share), so their bits (test_variable_density_fused.cpp).
template <class T, int Order>
struct ReverseAndAdjointRows {
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static constexpr int R = StaggeredStencil<Order>::radius;
  /// Rows per work item: each recomputes the 2R - 1 half-point rows above its first.
  static constexpr int block_lines = 64;
  /// Columns per chunk: the ring's rows and the line buffers stay in L2.
  static constexpr int chunk = 1024;
  static constexpr int ring = 2 * R;
  AdjointState<T> a;  ///< a.v.st.u_cur = u^n; a.g_cur = G^{n+1}, a.g_prev = G^{n+2} (becomes G^n)
  Coefficients<T, Order> c;
  Field<T> u_next;  ///< u^{n+1}, becomes u^{n-1}
  Field<T> acc;     ///< dJ/dw per shot [shot][nz][nx]

  /// Rows [iz, iz + n), columns [x0, x1) of the box.
  void lines(int s, int iz, int n, int /*iy*/, int x0, int x1) const {
    for (int c0 = x0; c0 < x1; c0 += chunk) band(s, iz, n, c0, std::min(chunk, x1 - c0));
  }

 private:
  static int slot(int j) { return ((j % ring) + ring) % ring; }

  void band(int s, int iz, int n, int c0, int cn) const {
    // z half-point rows j (the half point after row j) at [slot(j)]: the u flux, gbar and the
    // buoyancy term. x half points c0 - R + m at [m]: the same along the row.
    alignas(64) T fz[ring][chunk], gz[ring][chunk], pz[ring][chunk];
    alignas(64) T fx[chunk + 2 * R], gx[chunk + 2 * R], px[chunk + 2 * R];
    for (int j = iz - R; j < iz + R - 1; ++j)
      z_terms(s, j, c0, cn, fz[slot(j)], gz[slot(j)], pz[slot(j)]);
    const AcousticState<T>& st = a.v.st;
    for (int r = iz; r < iz + n; ++r) {
      const int j = r + R - 1;
      z_terms(s, j, c0, cn, fz[slot(j)], gz[slot(j)], pz[slot(j)]);
      x_terms(s, r, c0, cn, fx, gx, px);
      const T* fzr[ring];
      const T* gzr[ring];
      for (int k = -R; k < R; ++k) fzr[k + R] = fz[slot(r + k)], gzr[k + R] = gz[slot(r + k)];
      const int z = r + st.halo, col = st.column(0, c0);
      cells(c, &st.u_cur(s, z, col), &u_next(s, z, col), &a.g_cur(s, z, col), &a.g_prev(s, z, col),
            &a.v.w(r, c0), &acc(s, r, c0), &a.img_b(s, r, c0), fx + R, gx + R, px + R, fzr, gzr,
            pz[slot(r - 1)], pz[slot(r)], cn, st.nx - 1 - c0, r == st.nz - 1);
    }
  }

  /// Half-point row j, columns [c0, c0 + cn): zero off the grid (the flux arrays' halo, and
  /// AdjointUpdate's z terms before row 0).
  void z_terms(int s, int j, int c0, int cn, T* PWAVE_RESTRICT f, T* PWAVE_RESTRICT g,
               T* PWAVE_RESTRICT p) const {
    const AcousticState<T>& st = a.v.st;
    if (j < 0 || j >= st.nz) {
      for (int i = 0; i < cn; ++i) f[i] = g[i] = p[i] = T(0);
      return;
    }
    const int z = j + st.halo, col = st.column(0, c0);
    half_points(c.z, &st.u_cur(s, z, col), &a.g_cur(s, z, col), &a.v.beta_z(j, c0),
                long(st.u_cur.stride(1)), f, g, p, cn);
  }

  /// Row r's half points [c0 - R, c0 + cn + R - 1) into f, g, p from index 0; zero off the grid.
  void x_terms(int s, int r, int c0, int cn, T* f, T* g, T* p) const {
    const AcousticState<T>& st = a.v.st;
    const int lo = std::max(c0 - R, 0), hi = std::min(c0 + cn + R - 1, st.nx);
    const int first = c0 - R, end = c0 + cn + R - 1;
    for (int m = first; m < lo; ++m) f[m - first] = g[m - first] = p[m - first] = T(0);
    for (int m = std::max(hi, first); m < end; ++m)
      f[m - first] = g[m - first] = p[m - first] = T(0);
    if (hi <= lo) return;
    const int z = r + st.halo, col = st.column(0, lo);
    half_points(c.x, &st.u_cur(s, z, col), &a.g_cur(s, z, col), &a.v.beta_x(r, lo), 1,
                f + (lo - first), g + (lo - first), p + (lo - first), hi - lo);
  }

  /// n half points along an axis (u, G at the first one's cell, `stride` a cell's step along
  /// it): the u flux beta D+ u (Flux), gbar = beta phibar(G) (GBar, hbar = G), and the
  /// buoyancy term (AdjointUpdate).
  static void half_points(const T* cc, const T* PWAVE_RESTRICT u, const T* PWAVE_RESTRICT g,
                          const T* PWAVE_RESTRICT beta, long stride, T* PWAVE_RESTRICT f,
                          T* PWAVE_RESTRICT gb, T* PWAVE_RESTRICT p, int n) {
    PWAVE_SIMD
    for (int i = 0; i < n; ++i) {
      const T du = d_plus<R>(cc, [&](int k) { return u[i + k * stride]; });
      const T gbar = beta[i] * phibar<R>(cc, [&](int k) { return g[i + k * stride]; });
      f[i] = beta[i] * du;
      gb[i] = gbar;
      p[i] = buoyancy_term(du, gbar, beta[i]);
    }
  }

  /// The cells of a row: f, g, p at the row's first cell's half point (index -1 the one before
  /// it), fzr / gzr the z rows r - R .. r + R - 1, pzb / pza the buoyancy terms of z rows r - 1
  /// and r; last_x the index of the grid's last column, last_z whether r is its last row.
  static void cells(const Coefficients<T, Order>& c, const T* PWAVE_RESTRICT u,
                    T* PWAVE_RESTRICT un, const T* PWAVE_RESTRICT g, T* PWAVE_RESTRICT gp,
                    const T* PWAVE_RESTRICT w, T* PWAVE_RESTRICT acc, T* PWAVE_RESTRICT img,
                    const T* PWAVE_RESTRICT f, const T* PWAVE_RESTRICT gb,
                    const T* PWAVE_RESTRICT p, const T* const* fzr, const T* const* gzr,
                    const T* PWAVE_RESTRICT pzb, const T* PWAVE_RESTRICT pza, int n, int last_x,
                    bool last_z) {
    PWAVE_SIMD
    for (int i = 0; i < n; ++i) {
      const T hu = d_minus<R>(c.x, [&](int j) { return f[i + j]; }) +
                   d_minus<R>(c.z, [&](int j) { return fzr[j + R][i]; });
      reverse_leapfrog(u[i], un[i], w[i], hu, g[i], acc[i]);
      const T hg = d_minus<R>(c.x, [&](int j) { return gb[i + j]; }) +
                   d_minus<R>(c.z, [&](int j) { return gzr[j + R][i]; });
      gp[i] = adjoint_leapfrog(g[i], gp[i], w[i], hg);
      img[i] += cell_share(p[i - 1], p[i], i == last_x) + cell_share(pzb[i], pza[i], last_z);
    }
  }
};

/// dJ/ds(t_n) = sum_k h_k G^{n+1}(x_k) b(x_k) / V over the source's taps (the source is scaled
/// by v^2 dt^2 = w b): the adjoint of the injection, and dJ/db(x_k) += h_k G^{n+1}(x_k) s(t_n) / V,
/// the injection's share of the buoyancy gradient at fixed w. One thread per shot.
template <class T>
struct SourceAdjoint {
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> out;  ///< [shot][time], may be empty
  Field<T> g, img_b;
  GridView<T> v2dt2, w;
  PointTaps<T> source;      ///< [shot][0][tap]
  SlotWavelets<T> wavelet;  ///< [shot][time]: s(t_n) / V
  ColumnMap column;
  T inv_volume;
  int first_shot, n;
  KOKKOS_INLINE_FUNCTION void operator()(int s) const {
    T sum = T(0);
    for (int k = 0; k < source.taps(); ++k) {
      const GridTap<T> t = source.at(first_shot + s, 0, k, column);
      if (t.h == T(0)) continue;
      const T gs = g(s, t.z, t.x);
      const T ds = gs * v2dt2(t.iz, t.q) / w(t.iz, t.q) * inv_volume * t.h;
      sum = k == 0 ? ds : sum + ds;
      img_b(s, t.iz, t.q) += gs * (wavelet(first_shot + s, n) * t.h);
    }
    if (out.extent(0) > 0) out(s, n) = sum;
  }
};

/// Row 0 of G after a free-surface step: u_0 is held at zero, so its adjoint is dropped.
template <class T>
struct ZeroSurface {
  Field<T> g;
  int halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int x) const { g(s, halo, x) = T(0); }
};

}  // namespace pwave::physics::acoustic_vd
