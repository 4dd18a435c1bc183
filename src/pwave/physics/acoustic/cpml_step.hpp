#pragma once
// Cell updates of the constant-density acoustic scheme (leapfrog in time, order-`Order`
// central differences in space, CPML in the frame around the model):
//
//   u^{n+1} = 2 u^n - u^{n-1} + v^2 dt^2 (L_x u^n + L_z u^n)
//
// In the interior L_x = D2x. In a CPML strip along x (same for z and y), with psi and zeta the
// memory variables of the recursive convolutions, D1x/D2x the first/second-derivative stencils
// and a, b, ab = a b, db = D1x b the axis profile (physics/cpml.hpp):
//   t        = (1 + b) D2x u^n + db D1x u^n + D1x psi^{n-1}
//   L_x u^n  = (1 + b) t + a zeta^{n-1}
//   zeta^n   = a zeta^{n-1} + b t
//   psi^n    = a psi^{n-1} + ab D1x u^n
// t discretises d/dx (d/dx u + Psi^n), Psi^n = a Psi^{n-1} + b du/dx^n the convolution memory
// (psi^n = a Psi^n is what is stored, so that D1x psi^{n-1} = D1x (a Psi^{n-1})), with the
// current step's part d/dx (b du/dx) expanded as b D2x u + db D1x u: a D1x D1x product would be
// blind at the Nyquist wavenumber. A strip is the layer plus the stencil radius of model cells
// next to it, where db and D1x psi are still nonzero (a = b = ab = 0 there, so psi and zeta
// stay zero). Every step is linear in (u^n, u^{n-1}, psi^{n-1}, zeta^{n-1}), which keeps the
// exact discrete adjoint a transposition of these formulas.
//
// Storage: wavefields [shot][z][x] with a zero halo of `radius` cells on every side (so the
// stencil never branches); v^2 dt^2 on the padded grid [z][x]; psi/zeta only on the CPML strips:
// x-strips [shot][z][left + right columns], z-strips [shot][top + bottom rows][x].

#include <algorithm>

#include "backends/host_vector.hpp"
#include "pwave/core/types.hpp"
#include "pwave/physics/acoustic/acoustic_state.hpp"
#include "pwave/physics/acoustic/interior_step.hpp"
#include "pwave/physics/acoustic/scaled_stencil.hpp"
#include "pwave/physics/cpml.hpp"

namespace pwave::physics {

/// The CPML profile of one axis at one cell (physics/cpml.hpp).
template <class T>
struct CpmlAt {
  T a, b, ab, db;
  /// Cell i of an axis profile (device views).
  KOKKOS_INLINE_FUNCTION static CpmlAt at(const CpmlAxis<T>& p, int i) {
    return {p.a(i), p.b(i), p.ab(i), p.db(i)};
  }
  /// Cell i of an axis profile given as raw pointers.
  KOKKOS_INLINE_FUNCTION static CpmlAt at(const T* a, const T* b, const T* ab, const T* db, int i) {
    return {a[i], b[i], ab[i], db[i]};
  }
};

/// One axis of the CPML update of a cell (the formulas at the top of this file): from D2 u^n
/// (`d2`), D1 u^n (`d1`) and D1 psi^{n-1} (`dpsi`) returns L u^n along the axis, and advances
/// zeta^{n-1} -> zeta^n in place and psi^{n-1} (`psi`) -> psi^n (`psi_next`). Every scalar
/// path (cell-wise, 2D rows, 3D lines) calls this one, so they agree to the bit. T may be a
/// host vector of scalars S (x_strip_lines.hpp).
template <class T, class S = T>
KOKKOS_FORCEINLINE_FUNCTION T cpml_axis(T d2, T d1, T dpsi, const CpmlAt<T>& k, T& zeta, T psi,
                                        T& psi_next) {
  const T t = (S(1) + k.b) * d2 + k.db * d1 + dpsi;
  const T z = zeta;
  zeta = k.a * z + k.b * t;
  psi_next = k.a * psi + k.ab * d1;
  return (S(1) + k.b) * t + k.a * z;
}

/// Update in the CPML frame: as InteriorStep plus the memory-variable terms of the axes whose
/// strips contain the launched region: `InX` for the left/right strips, `InZ` for the top/bottom
/// ones, `InY` for the front/back ones (3D; all that apply in edges and corners). The caller
/// launches each region with the matching flags, so no cell tests which strip it is in.
/// psi^{n-1} is read from psi_*, psi^n written to psi_*_next. The host row paths are 2D.
template <class T, int Order, bool InX, bool InZ, int Dim = 2, bool InY = false>
struct CpmlStep {
  static constexpr bool host_rows = true;   ///< promises row()/rows() (backends/launch.hpp)
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static_assert(Dim == 3 || !InY, "a y strip needs a 3D grid");
  static constexpr int R = Stencil<Order>::radius;
  AcousticState<T> st;
  ScaledStencil<T, Order> c;

  /// Rows ahead whose strip memory variables row() prefetches.
  static constexpr int strip_prefetch_rows = 8;

  CpmlStep(const AcousticState<T>& state, const ScaledStencil<T, Order>& coef)
      : st(state), c(coef) {}

  // Memory variables at padded cell (iz, iy, ix), zero outside their strip.
  KOKKOS_INLINE_FUNCTION T psi_x_at(int s, int iz, int iy, int ix) const {
    const int col = x_strip_column(st, ix);
    return col < 0 ? T(0) : st.psi_x(s, iz, iy * (st.strip_left + st.strip_right) + col);
  }
  KOKKOS_INLINE_FUNCTION T psi_z_at(int s, int iz, int iy, int ix) const {
    const int row = z_strip_row(st, iz);
    return row < 0 ? T(0) : st.psi_z(s, row, st.plane(iy, ix));
  }
  KOKKOS_INLINE_FUNCTION T psi_y_at(int s, int iz, int iy, int ix) const {
    const int line = y_strip_line(st, iy);
    return line < 0 ? T(0) : st.psi_y(s, iz, line * st.nx + ix);
  }

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys;
    const T u = st.u_cur(s, z, x);
    T d2x = c.d2x[0] * u, d2z = c.d2z[0] * u, d1x = 0, d1z = 0;
    T d2y = 0, d1y = 0;
    if constexpr (Dim == 3) d2y = c.d2y[0] * u;
    PWAVE_UNROLL
    for (int j = 1; j <= R; ++j) {
      const T xp = st.u_cur(s, z, x + j), xm = st.u_cur(s, z, x - j);
      const T zp = st.u_cur(s, z + j, x), zm = st.u_cur(s, z - j, x);
      d2x += c.d2x[j] * (xp + xm);
      d2z += c.d2z[j] * (zp + zm);
      d1x += c.d1x[j] * (xp - xm);
      d1z += c.d1z[j] * (zp - zm);
      if constexpr (Dim == 3) {
        const T yp = st.u_cur(s, z, x + j * ys), ym = st.u_cur(s, z, x - j * ys);
        d2y += c.d2y[j] * (yp + ym);
        d1y += c.d1y[j] * (yp - ym);
      }
    }
    T lap_x = d2x, lap_z = d2z, lap_y = d2y;
    if constexpr (InX) {
      const int col = iy * (st.strip_left + st.strip_right) + x_strip_column(st, ix);
      T dpsi = 0;
      for (int j = 1; j <= R; ++j)
        dpsi += c.d1x[j] * (psi_x_at(s, iz, iy, ix + j) - psi_x_at(s, iz, iy, ix - j));
      lap_x = cpml_axis(d2x, d1x, dpsi, CpmlAt<T>::at(st.cx, ix), st.zeta_x(s, iz, col),
                        st.psi_x(s, iz, col), st.psi_x_next(s, iz, col));
    }
    if constexpr (InZ) {
      const int row = z_strip_row(st, iz), col = st.plane(iy, ix);
      T dpsi = 0;
      for (int j = 1; j <= R; ++j)
        dpsi += c.d1z[j] * (psi_z_at(s, iz + j, iy, ix) - psi_z_at(s, iz - j, iy, ix));
      lap_z = cpml_axis(d2z, d1z, dpsi, CpmlAt<T>::at(st.cz, iz), st.zeta_z(s, row, col),
                        st.psi_z(s, row, col), st.psi_z_next(s, row, col));
    }
    if constexpr (InY) {
      const int col = y_strip_line(st, iy) * st.nx + ix;
      T dpsi = 0;
      for (int j = 1; j <= R; ++j)
        dpsi += c.d1y[j] * (psi_y_at(s, iz, iy + j, ix) - psi_y_at(s, iz, iy - j, ix));
      lap_y = cpml_axis(d2y, d1y, dpsi, CpmlAt<T>::at(st.cy, iy), st.zeta_y(s, iz, col),
                        st.psi_y(s, iz, col), st.psi_y_next(s, iz, col));
    }
    T lap = lap_x + lap_z;
    if constexpr (Dim == 3) lap += lap_y;
    st.u_prev(s, z, x) = T(2) * u - st.u_prev(s, z, x) + st.v2dt2(iz, st.plane(iy, ix)) * lap;
  }

  /// 3D host path: cells [x0, x1) of the x line (iz, iy), all inside one box of this functor's
  /// kind (for InX all in the left or all in the right strip). The operator() formulas on raw
  /// pointers: the strip lookups are resolved once per line, psi values outside their strip
  /// (zero by definition) come from zero rows or zero-guarded copies, so the x loop has no
  /// branch and vectorises.
  void line(int s, int iz, int iy, int x0, int x1) const {
    if (x1 <= x0) return;
    constexpr int CH = 128;  // cells per chunk: bounds the zero-guarded copy on the stack
    static const T zeros[CH] = {};
    const int h = st.halo, ys = st.ys, nx = st.nx;
    const long zs = long(st.u_cur.stride(1));
    const T* uc = &st.u_cur(s, iz + h, st.column(iy, 0));
    T* un = &st.u_prev(s, iz + h, st.column(iy, 0));
    const T* vv = &st.v2dt2(iz, st.plane(iy, 0));
    // x strip: grid columns [sx0, sx1) of this line, stored from psx[grid column - xoff].
    const int xcols = st.strip_left + st.strip_right;
    const bool left = x0 < st.strip_left;
    const int sx0 = left ? 0 : nx - st.strip_right, sx1 = left ? st.strip_left : nx;
    const int xoff = (left ? 0 : sx0 - st.strip_left) - iy * xcols;
    const T* psx = InX ? &st.psi_x(s, iz, 0) - xoff : nullptr;
    T* psxn = InX ? &st.psi_x_next(s, iz, 0) - xoff : nullptr;
    T* zx = InX ? &st.zeta_x(s, iz, 0) - xoff : nullptr;
    // z strip: psi_z of rows iz +- j at this y line, or zeros outside the strip.
    const T* zup[R + 1] = {};
    const T* zdn[R + 1] = {};
    const T *pzc = nullptr, *yc = nullptr;
    T *pzn = nullptr, *zz = nullptr, *pyn = nullptr, *zy = nullptr;
    CpmlAt<T> kz{}, ky{};
    if constexpr (InZ) {
      const int row = z_strip_row(st, iz);
      pzc = &st.psi_z(s, row, st.plane(iy, 0));
      pzn = &st.psi_z_next(s, row, st.plane(iy, 0));
      zz = &st.zeta_z(s, row, st.plane(iy, 0));
      for (int j = 1; j <= R; ++j) {
        const int up = z_strip_row(st, iz + j), dn = z_strip_row(st, iz - j);
        zup[j] = up >= 0 ? &st.psi_z(s, up, st.plane(iy, 0)) : nullptr;
        zdn[j] = dn >= 0 ? &st.psi_z(s, dn, st.plane(iy, 0)) : nullptr;
      }
      kz = CpmlAt<T>::at(st.cz, iz);
    }
    // y strip: psi_y of lines iy +- j at this depth, or zeros outside the strip.
    const T* yup[R + 1] = {};
    const T* ydn[R + 1] = {};
    if constexpr (InY) {
      const int l = y_strip_line(st, iy);
      yc = &st.psi_y(s, iz, l * nx);
      pyn = &st.psi_y_next(s, iz, l * nx);
      zy = &st.zeta_y(s, iz, l * nx);
      for (int j = 1; j <= R; ++j) {
        const int up = y_strip_line(st, iy + j), dn = y_strip_line(st, iy - j);
        yup[j] = up >= 0 ? &st.psi_y(s, iz, up * nx) : nullptr;
        ydn[j] = dn >= 0 ? &st.psi_y(s, iz, dn * nx) : nullptr;
      }
      ky = CpmlAt<T>::at(st.cy, iy);
    }
    const T* ax = st.cx.a.data();
    const T* bx = st.cx.b.data();
    const T* abx = st.cx.ab.data();
    const T* dbx = st.cx.db.data();
    T pbuf[CH + 2 * R];
    for (int c0 = x0; c0 < x1; c0 += CH) {
      const int n = std::min(CH, x1 - c0);
      if constexpr (InX) {  // pbuf[k] = psi_x at grid column c0 - R + k, zero outside the strip
        for (int k = 0; k < n + 2 * R; ++k) {
          const int gx = c0 - R + k;
          pbuf[k] = gx >= sx0 && gx < sx1 ? psx[gx] : T(0);
        }
      }
      const T* zu[R + 1];
      const T* zd[R + 1];
      const T* yu[R + 1];
      const T* yd[R + 1];
      for (int j = 1; j <= R; ++j) {
        zu[j] = zup[j] ? zup[j] + c0 : zeros;
        zd[j] = zdn[j] ? zdn[j] + c0 : zeros;
        yu[j] = yup[j] ? yup[j] + c0 : zeros;
        yd[j] = ydn[j] ? ydn[j] + c0 : zeros;
      }
      const T* pb = pbuf + R;
      PWAVE_SIMD
      for (int i = 0; i < n; ++i) {
        const int ix = c0 + i;
        const T u = uc[ix];
        T d2x = c.d2x[0] * u, d2z = c.d2z[0] * u, d1x = 0, d1z = 0;
        T d2y = c.d2y[0] * u, d1y = 0;
        PWAVE_UNROLL
        for (int j = 1; j <= R; ++j) {
          const T xp = uc[ix + j], xm = uc[ix - j];
          const T zp = uc[ix + j * zs], zm = uc[ix - j * zs];
          const T yp = uc[ix + j * ys], ym = uc[ix - j * ys];
          d2x += c.d2x[j] * (xp + xm);
          d2z += c.d2z[j] * (zp + zm);
          d1x += c.d1x[j] * (xp - xm);
          d1z += c.d1z[j] * (zp - zm);
          d2y += c.d2y[j] * (yp + ym);
          d1y += c.d1y[j] * (yp - ym);
        }
        T lap_x = d2x, lap_z = d2z, lap_y = d2y;
        if constexpr (InX) {
          T dpsi = 0;
          PWAVE_UNROLL
          for (int j = 1; j <= R; ++j) dpsi += c.d1x[j] * (pb[i + j] - pb[i - j]);
          lap_x = cpml_axis(d2x, d1x, dpsi, CpmlAt<T>::at(ax, bx, abx, dbx, ix), zx[ix], psx[ix],
                            psxn[ix]);
        }
        if constexpr (InZ) {
          T dpsi = 0;
          PWAVE_UNROLL
          for (int j = 1; j <= R; ++j) dpsi += c.d1z[j] * (zu[j][i] - zd[j][i]);
          lap_z = cpml_axis(d2z, d1z, dpsi, kz, zz[ix], pzc[ix], pzn[ix]);
        }
        if constexpr (InY) {
          T dpsi = 0;
          PWAVE_UNROLL
          for (int j = 1; j <= R; ++j) dpsi += c.d1y[j] * (yu[j][i] - yd[j][i]);
          lap_y = cpml_axis(d2y, d1y, dpsi, ky, zy[ix], yc[ix], pyn[ix]);
        }
        un[ix] = T(2) * u - un[ix] + vv[ix] * (lap_x + lap_z + lap_y);
      }
    }
  }

  /// Rows one rows() call may take (host path).
  static constexpr int block_rows = 8;

  /// Host path: rows [iz, iz + n) (n <= block_rows), cells [x0, x1), as row() does for each.
  /// The left/right strips (InX only) of at least one vector's width take a vector path: their
  /// rows are 2 x (CPML width) cells, so a plain loop would spend most of its time in setup
  /// and a scalar remainder.
  void rows(int s, int iz, int n, int x0, int x1) const {
#ifdef PWAVE_HOST_VECTOR_EXT
    if constexpr (InX && !InZ) {
      if (x1 - x0 >= host::Vec<T>::width && x1 - x0 <= strip_max && n <= block_rows) {
        strip_rows(s, iz, n, x0, x1);
        return;
      }
    }
#endif
    for (int r = iz; r < iz + n; ++r) row(s, r, x0, x1);
  }

  /// Host path: cells [x0, x1) of row iz, all inside one region of this functor's kind (for InX,
  /// all in the left or all in the right strip). The same formulas as operator() on raw
  /// pointers: the strip lookups are resolved once per row, and psi values outside the strip
  /// (zero by definition) come from zero-guarded copies, so the x loop has no branch.
  void row(int s, int iz, int x0, int x1) const {
    if (x1 <= x0) return;
    constexpr int CH = 128;  // cells per chunk: bounds the zero-guarded copies on the stack
    static const T zeros[CH] = {};
    const int h = st.halo;
    Row p;
    p.zs = long(st.u_cur.stride(1));
    p.uc = &st.u_cur(s, iz + h, h);
    p.un = &st.u_prev(s, iz + h, h);
    p.vv = &st.v2dt2(iz, 0);
    p.ax = st.cx.a.data();
    p.bx = st.cx.b.data();
    p.abx = st.cx.ab.data();
    p.dbx = st.cx.db.data();

    // x strip: grid columns [sx0, sx1), stored at column (grid column - xoff) of psi_x/zeta_x.
    int sx0 = 0, sx1 = 0, xoff = 0;
    if constexpr (InX) {
      const bool left = x0 < st.strip_left;
      sx0 = left ? 0 : st.nx - st.strip_right;
      sx1 = left ? st.strip_left : st.nx;
      xoff = left ? 0 : sx0 - st.strip_left;
      p.xoff = xoff;
      p.psx = &st.psi_x(s, iz, 0);
      p.psxn = &st.psi_x_next(s, iz, 0);
      p.zx = &st.zeta_x(s, iz, 0);
    }
    // z strip: the psi_z rows of iz +- j, or none (zero) outside the strip.
    const T* up[R + 1] = {};
    const T* dn[R + 1] = {};
    if constexpr (InZ) {
      const bool top = iz < st.strip_top;
      const int sz0 = top ? 0 : st.nz - st.strip_bottom, sz1 = top ? st.strip_top : st.nz;
      const int zoff = top ? 0 : sz0 - st.strip_top;
      p.pzc = &st.psi_z(s, iz - zoff, 0);
      p.pzn = &st.psi_z_next(s, iz - zoff, 0);
      p.zz = &st.zeta_z(s, iz - zoff, 0);
      for (int j = 1; j <= R; ++j) {
        if (iz + j < sz1) up[j] = &st.psi_z(s, iz + j - zoff, 0);
        if (iz - j >= sz0) dn[j] = &st.psi_z(s, iz - j - zoff, 0);
      }
      p.kz = CpmlAt<T>::at(st.cz, iz);
    }

#ifdef PWAVE_HOST_VECTOR_EXT
    if constexpr (InX) {  // the strip rows a later call will read: few bytes, a scattered stream
      const int ahead = iz + strip_prefetch_rows;
      if (ahead < st.nz) {
        const long c = x0 - xoff, bytes = long(x1 - x0) * long(sizeof(T));
        for (long b = 0; b < bytes + host::cache_line - 1; b += host::cache_line) {
          __builtin_prefetch(reinterpret_cast<const char*>(&st.psi_x(s, ahead, c)) + b, 0, 3);
          __builtin_prefetch(reinterpret_cast<const char*>(&st.zeta_x(s, ahead, c)) + b, 1, 3);
          __builtin_prefetch(reinterpret_cast<const char*>(&st.psi_x_next(s, ahead, c)) + b, 1, 3);
        }
      }
    }
#endif
    T pbuf[CH + 2 * R];
    for (int c0 = x0; c0 < x1; c0 += CH) {
      const int n = std::min(CH, x1 - c0);
      if constexpr (InX) {  // pbuf[k] = psi_x at grid column c0 - R + k, zero outside the strip
        for (int k = 0; k < n + 2 * R; ++k) {
          const int gx = c0 - R + k;
          pbuf[k] = gx >= sx0 && gx < sx1 ? p.psx[gx - xoff] : T(0);
        }
      }
      ZRows z;
      for (int j = 1; j <= R; ++j) {
        z.up[j] = up[j] ? up[j] + c0 : zeros;
        z.dn[j] = dn[j] ? dn[j] + c0 : zeros;
      }
      cells(p, z, pbuf + R, c0, n);
    }
  }

 private:
#ifdef PWAVE_HOST_VECTOR_EXT
  static constexpr int strip_max = 128;  ///< widest strip the vector path takes

  /// The vector path of rows() for a left or right strip [x0, x1), W <= x1 - x0 <= strip_max:
  /// whole vectors from x0, the last one ending at x1 and storing only the lanes not yet done.
  /// psi_x with its zero guards is staged for all n rows before any is computed, so the staging
  /// stores have drained when the (overlapping, unaligned) vector loads read them.
  void strip_rows(int s, int iz, int n, int x0, int x1) const {
    using H = host::Vec<T>;
    constexpr int W = H::width;
    const bool left = x0 < st.strip_left;
    const int sx0 = left ? 0 : st.nx - st.strip_right, sx1 = left ? st.strip_left : st.nx;
    const int xoff = left ? 0 : sx0 - st.strip_left;  // storage column = grid column - xoff
    const int w = x1 - x0;
    // The next block's strip rows: few bytes per row, which the hardware prefetchers miss.
    for (int r = iz + n; r < std::min(iz + 2 * n, st.nz); ++r) {
      for (long b = 0; b < long(w) * long(sizeof(T)) + host::cache_line - 1;
           b += host::cache_line) {
        __builtin_prefetch(reinterpret_cast<const char*>(&st.psi_x(s, r, x0 - xoff)) + b, 0, 3);
        __builtin_prefetch(reinterpret_cast<const char*>(&st.zeta_x(s, r, x0 - xoff)) + b, 1, 3);
        __builtin_prefetch(reinterpret_cast<const char*>(&st.psi_x_next(s, r, x0 - xoff)) + b, 1,
                           3);
      }
    }
    T pbuf[block_rows][strip_max + 2 * R];  // pbuf[r][R + i] = psi_x at column x0 + i
    const long ps = long(st.psi_x.stride(1));
    const T* psx0 = &st.psi_x(s, iz, x0 - xoff);
    for (int r = 0; r < n; ++r) {
      if (x0 == sx0 && x1 == sx1) {  // the whole strip: zero guards around a plain copy
        for (int k = 0; k < R; ++k) pbuf[r][k] = pbuf[r][R + w + k] = T(0);
        for (int k = 0; k < w; ++k) pbuf[r][R + k] = psx0[r * ps + k];
      } else {
        for (int k = 0; k < w + 2 * R; ++k) {
          const int gx = x0 - R + k;
          pbuf[r][k] = gx >= sx0 && gx < sx1 ? psx0[r * ps + gx - x0] : T(0);
        }
      }
    }
    Strip p;
    for (int jj = 0; jj <= R; ++jj) {
      p.cx2[jj] = H::splat(c.d2x[jj]), p.cz2[jj] = H::splat(c.d2z[jj]);
      p.cx1[jj] = H::splat(c.d1x[jj]);
    }
    p.zs = long(st.u_cur.stride(1)), p.vs = long(st.v2dt2.stride(0)), p.ps = ps;
    const int h = st.halo;
    p.uc = &st.u_cur(s, iz + h, h + x0);  // row iz at column x0; row r is r strides further
    p.un = &st.u_prev(s, iz + h, h + x0);
    p.vv = &st.v2dt2(iz, x0);
    p.psx = psx0;
    p.psxn = &st.psi_x_next(s, iz, x0 - xoff);
    p.zx = &st.zeta_x(s, iz, x0 - xoff);
    p.ax = &st.cx.a(x0);
    p.bx = &st.cx.b(x0);
    p.abx = &st.cx.ab(x0);
    p.dbx = &st.cx.db(x0);
    p.pb = &pbuf[0][R];
    p.pbs = strip_max + 2 * R;
    // Vector positions: whole vectors from cell 0, the last one ending at cell w and storing its
    // lanes from `lo` (the cells before are done).
    for (int i = 0, done = 0; done < w; i = std::min(i + W, w - W)) {
      if (n == block_rows) {
        strip_vec<block_rows>(p, i, done - i);
      } else {
        for (int r = 0; r < n; ++r) strip_vec<1>(p.row(r), i, done - i);
      }
      done = i + W;
    }
  }

  /// Pointers and broadcast coefficients of strip_rows(), at column x0 of its first row.
  struct Strip {
    using V = typename host::Vec<T>::type;
    V cx2[R + 1], cz2[R + 1], cx1[R + 1];
    long zs = 0, vs = 0, ps = 0, pbs = 0;  ///< row strides: u, v^2 dt^2, psi_x/zeta_x, pbuf
    const T* uc;
    T* un;
    const T* vv;
    const T* psx;
    T* psxn;
    T* zx;
    const T *ax, *bx, *abx, *dbx, *pb;
    Strip row(int r) const {  ///< the same at row r
      Strip q = *this;
      q.uc += r * zs, q.un += r * zs, q.vv += r * vs, q.psx += r * ps, q.psxn += r * ps;
      q.zx += r * ps, q.pb += r * pbs;
      return q;
    }
  };

  /// Cells [i, i + W) of NR strip rows, storing lanes [lo, W) (lo > 0 for the last vector,
  /// which overlaps cells already updated). Like InteriorStep::vec, the u^n vectors of the
  /// NR + 2R rows are loaded once for the z taps of all NR rows.
  template <int NR>
  PWAVE_HOST_INLINE void strip_vec(const Strip& p, int i, int lo) const {
    using H = host::Vec<T>;
    using V = typename H::type;
    const long zs = p.zs;
    V col[NR + 2 * R];
    PWAVE_UNROLL
    for (int q = 0; q < NR + 2 * R; ++q) col[q] = H::load(p.uc + (q - R) * zs + i);
    const V a = H::load(p.ax + i), b = H::load(p.bx + i), one_b = H::splat(T(1)) + b;
    const V ab = H::load(p.abx + i), db = H::load(p.dbx + i);
    PWAVE_UNROLL
    for (int r = 0; r < NR; ++r) {
      const T* ur = p.uc + r * zs + i;
      const T* pb = p.pb + r * p.pbs + i;  // psi_x at the cells, zero outside the strip
      const V u = col[r + R];
      V d2x = p.cx2[0] * u, d2z = p.cz2[0] * u, d1x = H::splat(T(0)), dpsi = H::splat(T(0));
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) {
        const V xp = H::load(ur + j), xm = H::load(ur - j);
        d2x += p.cx2[j] * (xp + xm);
        d2z += p.cz2[j] * (col[r + R + j] + col[r + R - j]);
        d1x += p.cx1[j] * (xp - xm);
      }
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) dpsi += p.cx1[j] * (H::load(pb + j) - H::load(pb - j));
      T* zx = p.zx + r * p.ps + i;
      T* psxn = p.psxn + r * p.ps + i;
      T* un = p.un + r * zs + i;
      const V t = one_b * d2x + db * d1x + dpsi;
      const V zeta = H::load(zx);
      const V lap_x = one_b * t + a * zeta;
      const V zeta_next = a * zeta + b * t;
      const V psi_next = a * H::load(p.psx + r * p.ps + i) + ab * d1x;
      const V u_old = H::load(un);
      const V u_next = H::splat(T(2)) * u - u_old + H::load(p.vv + r * p.vs + i) * (lap_x + d2z);
      if (lo == 0) {
        H::store(zx, zeta_next);
        H::store(psxn, psi_next);
        H::store(un, u_next);
      } else {  // lanes [lo, W) only: the others keep what memory holds (already updated)
        H::store(zx, H::lanes_from(lo, zeta_next, zeta));
        H::store(psxn, H::lanes_from(lo, psi_next, H::load(psxn)));
        H::store(un, H::lanes_from(lo, u_next, u_old));
      }
    }
  }
#endif

  /// Row-relative pointers (index = grid column) of one row() call.
  struct Row {
    long zs = 0;
    int xoff = 0;  ///< x strip storage column = grid column - xoff
    const T* uc = nullptr;
    T* un = nullptr;
    const T* vv = nullptr;
    const T* ax = nullptr;
    const T* bx = nullptr;
    const T* abx = nullptr;
    const T* dbx = nullptr;
    const T* psx = nullptr;
    T* psxn = nullptr;
    T* zx = nullptr;
    const T* pzc = nullptr;
    T* pzn = nullptr;
    T* zz = nullptr;
    CpmlAt<T> kz{};
  };
  /// psi_z at rows iz +- j for the chunk's columns (chunk-relative), zeros outside the strip.
  struct ZRows {
    const T* up[R + 1];
    const T* dn[R + 1];
  };

  /// Cells [c0, c0 + n) of the row; pb[i] = psi_x at column c0 + i (zero-guarded, i in [-R, n +
  /// R)).
  void cells(const Row& p, const ZRows& z, const T* PWAVE_RESTRICT pb, int c0, int n) const {
    const long zs = p.zs;
    const T* PWAVE_RESTRICT uc = p.uc + c0;
    T* PWAVE_RESTRICT un = p.un + c0;
    const T* PWAVE_RESTRICT vv = p.vv + c0;
    const T* PWAVE_RESTRICT ax = p.ax + c0;
    const T* PWAVE_RESTRICT bx = p.bx + c0;
    const T* PWAVE_RESTRICT abx = p.abx + c0;
    const T* PWAVE_RESTRICT dbx = p.dbx + c0;
    const T* PWAVE_RESTRICT psx = InX ? p.psx + (c0 - p.xoff) : nullptr;
    T* PWAVE_RESTRICT psxn = InX ? p.psxn + (c0 - p.xoff) : nullptr;
    T* PWAVE_RESTRICT zx = InX ? p.zx + (c0 - p.xoff) : nullptr;
    const T* PWAVE_RESTRICT pzc = InZ ? p.pzc + c0 : nullptr;
    T* PWAVE_RESTRICT pzn = InZ ? p.pzn + c0 : nullptr;
    T* PWAVE_RESTRICT zz = InZ ? p.zz + c0 : nullptr;
    const CpmlAt<T> kz = p.kz;
    const T* up[R + 1];
    const T* dn[R + 1];
    for (int j = 1; j <= R; ++j) up[j] = z.up[j], dn[j] = z.dn[j];
    PWAVE_SIMD
    for (int i = 0; i < n; ++i) {
      const T u = uc[i];
      T d2x = c.d2x[0] * u, d2z = c.d2z[0] * u, d1x = 0, d1z = 0;
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) {
        const T xp = uc[i + j], xm = uc[i - j];
        const T zp = uc[i + j * zs], zm = uc[i - j * zs];
        d2x += c.d2x[j] * (xp + xm);
        d2z += c.d2z[j] * (zp + zm);
        d1x += c.d1x[j] * (xp - xm);
        d1z += c.d1z[j] * (zp - zm);
      }
      T lap_x = d2x, lap_z = d2z;
      if constexpr (InX) {
        T dpsi = 0;
        PWAVE_UNROLL
        for (int j = 1; j <= R; ++j) dpsi += c.d1x[j] * (pb[i + j] - pb[i - j]);
        lap_x =
            cpml_axis(d2x, d1x, dpsi, CpmlAt<T>::at(ax, bx, abx, dbx, i), zx[i], psx[i], psxn[i]);
      }
      if constexpr (InZ) {
        T dpsi = 0;
        PWAVE_UNROLL
        for (int j = 1; j <= R; ++j) dpsi += c.d1z[j] * (up[j][i] - dn[j][i]);
        lap_z = cpml_axis(d2z, d1z, dpsi, kz, zz[i], pzc[i], pzn[i]);
      }
      un[i] = T(2) * u - un[i] + vv[i] * (lap_x + lap_z);
    }
  }
};

}  // namespace pwave::physics
