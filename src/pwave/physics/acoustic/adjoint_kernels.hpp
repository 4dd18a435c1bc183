#pragma once
// The exact discrete adjoint of one step of the constant-density acoustic scheme (2D and 3D)
// (acoustic/kernels.hpp).
//
// Forward step n, per axis, with chi the indicator of the axis' CPML strip, w = v^2 dt^2 and
// a, b, ab, db the axis profile (physics/cpml.hpp):
//   T       = (1 + b) D2 u^n + db D1 u^n + chi D1 psi^{n-1}
//   L       = (1 + b) T + a zeta^{n-1}
//   u^{n+1} = S[2 u^n - u^{n-1} + w (L_x + L_z + f^n)]      (S zeroes the free-surface row)
//   zeta^n  = a zeta^{n-1} + b T,   psi^n = a psi^{n-1} + ab D1 u^n
// Transposing it (D2^T = D2, D1^T y_i = sum_j c1_j (y_{i-j} - y_{i+j}), the free-surface mirror
// keeps D2z symmetric) and writing the adjoint field as G = w lambda gives, with primes for the
// values of step n+1 (psi^, zeta^ the adjoint memory variables):
//   T^     = (1 + b) G^{n+1} + b zeta^'
//   G^n    = S[2 G^{n+1} - G^{n+2} + w sum_axes (D2 ((1 + b) T^) + D1^T (db T^ + ab psi^'))
//              + w r^n]
//   zeta^  = a (G^{n+1} + zeta^'),   psi^ = chi (a psi^' + D1^T (chi T^))
// Away from the strips (b = db = ab = 0) T^ = G and this is exactly the forward interior update
// applied to G, so the interior kernel is InteriorStep itself (vectorised, 16 bytes per cell).

#include <algorithm>

#include "pwave/physics/acoustic/kernels.hpp"
#include "pwave/physics/point_sources.hpp"

namespace pwave::physics {

/// Which halo-layout indices of one axis (z rows, y lines, or the columns of an x line) that
/// axis' adjoint memory variables store: [0, lo) and [lo + gap, n), at [0, lo) and [lo, n - gap).
/// The gap is what the stencils of no cell in that axis' strips reach (they reach a stencil radius
/// past the frame: FrameRegion's band), so nothing reads or writes it. The default, lo = gap = 0,
/// stores every index.
struct StripLines {
  int lo = 0, gap = 0;
  /// How far halo-layout index i (not in the gap) lies past its storage index.
  KOKKOS_INLINE_FUNCTION int shift(int i) const { return i < lo ? 0 : gap; }
  /// The storage index of halo-layout index i.
  KOKKOS_INLINE_FUNCTION int operator()(int i) const { return i - shift(i); }
  /// An axis of n cells with a halo of h (= the stencil radius) on either side, whose frame
  /// (strips and band) is [0, band_lo) and [band_hi, n) (band_lo = 0, band_hi = n: no strip
  /// on that side).
  static StripLines of(int n, int h, int band_lo, int band_hi) {
    const int lo = band_lo > 0 ? band_lo + 2 * h : 0;
    const int hi = band_hi < n ? band_hi : n + 2 * h;
    if (hi <= lo) return {n + 2 * h, 0};
    return {lo, hi - lo};
  }
};

/// Device data of a backward (adjoint) run. G has the wavefields' halo layout; its halo is zero,
/// or the antisymmetric mirror under a free surface, like the forward field's. The adjoint
/// memory variables have the same halo layout, and the CPML coefficients are on halo-padded
/// axes (zero outside the strips), so that the frame kernel needs no test of which strip a
/// neighbour lies in: outside the strips b = a = chi = 0 and the memory variables stay zero.
/// Each axis' memory variables store only the rows (z), y lines (y) or columns of each x line
/// (x) that the frame's stencils reach (`zrows`, `ylines`, `xcols`: StripLines): on either side
/// the halo, the strip, its band and the stencil radius beyond (3R + the strip; 160^3 + a
/// 20-cell CPML, order 8: strips of 24, 72 of 208). The x ones: x lines of `xs` values,
/// halo-layout rows and y lines (x_column()).
template <class T>
struct AcousticAdjointState {
  int nz = 0, nx = 0;
  int strip_top = 0, strip_bottom = 0, strip_left = 0, strip_right = 0;
  int halo = 0;
  int ny = 1, strip_front = 0, strip_back = 0, hy = 0, ys = 0;  ///< y axis as in AcousticState
  Field<T> g_prev, g_cur;  ///< G^{n+2} (overwritten by G^n) and G^{n+1}
  GridView<T> v2dt2;
  CpmlAxis<T> cx;                                   ///< [nx + 2 halo] x profile
  CpmlAxis<T> cz;                                   ///< [nz + 2 halo] z profile
  CpmlAxis<T> cy;                                   ///< [ny + 2 halo] y profile (3D)
  Kokkos::View<T*, MemSpace> chix, chiz, chiy;      ///< 1 on the axis' strips (halo-padded)
  Field<T> psi_x, psi_x_next, zeta_x, zeta_x_next;  ///< psi^, zeta^ (x), halo layout
  Field<T> psi_z, psi_z_next, zeta_z, zeta_z_next;  ///< psi^, zeta^ (z), halo layout
  Field<T> psi_y, psi_y_next, zeta_y, zeta_y_next;  ///< psi^, zeta^ (y), halo layout (3D)
  StripLines zrows;   ///< the rows psi_z, zeta_z store (halo-layout row z at zrows(z))
  StripLines ylines;  ///< the y lines psi_y, zeta_y store (3D)
  StripLines xcols;   ///< the columns of each x line psi_x, zeta_x store
  int xs = 0;         ///< values per x line of psi_x, zeta_x: nx + 2 halo - xcols.gap

  KOKKOS_INLINE_FUNCTION int column(int iy, int ix) const { return (iy + hy) * ys + ix + halo; }
  /// Where the y memory variables store halo-layout column x of y line iy (column(iy, ix)).
  KOKKOS_INLINE_FUNCTION int y_column(int iy, int x) const {
    return x - ylines.shift(iy + hy) * ys;
  }
  /// Where the x memory variables store grid column ix of y line iy. The x neighbours of a
  /// cell whose stencil reaches an x strip lie on the same side of xcols' gap: j columns away.
  KOKKOS_INLINE_FUNCTION int x_column(int iy, int ix) const {
    return (iy + hy) * xs + xcols(ix + halo);
  }

  /// The same fields viewed as a forward state, to run InteriorStep on G.
  AcousticState<T> as_forward() const {
    AcousticState<T> f;
    f.nz = nz, f.nx = nx, f.strip_top = strip_top, f.strip_bottom = strip_bottom;
    f.strip_left = strip_left, f.strip_right = strip_right, f.halo = halo;
    f.ny = ny, f.strip_front = strip_front, f.strip_back = strip_back, f.hy = hy, f.ys = ys;
    f.u_prev = g_prev, f.u_cur = g_cur, f.v2dt2 = v2dt2;
    return f;
  }
};

/// Backward step in the frame (CPML strips and a stencil radius around them), with the memory
/// variables, branch-free. `InX` / `InZ` / `InY` say whether the launched region's stencils can
/// reach an x / z / y strip at all (the side columns cannot reach a z strip, the top and bottom
/// bands no x strip); where not, that axis is a plain stencil on G. `Dim` 2 or 3.
template <class T, int Order, bool InX, bool InZ, int Dim = 2, bool InY = false>
struct AdjointFrameStep {
  static constexpr bool host_rows = true;   ///< promises row()/rows() (backends/launch.hpp)
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static_assert(Dim == 3 || !InY, "a y strip needs a 3D grid");
  static constexpr int R = Stencil<Order>::radius;
  AcousticAdjointState<T> st;
  ScaledStencil<T, Order> c;

  AdjointFrameStep(const AcousticAdjointState<T>& state, const ScaledStencil<T, Order>& coef)
      : st(state), c(coef) {}

  /// What the adjoint update of one strip axis reads at one neighbour (offset j along the
  /// axis): G^{n+1}, zeta^', psi^', the profile and chi there.
  struct AxisCell {
    T g, zeta, psi;
    CpmlAt<T> k;
    T chi;
    /// T^ = (1 + b) G + b zeta^ at this cell.
    KOKKOS_INLINE_FUNCTION T t_hat() const { return AdjointFrameStep::t_hat(k.b, g, zeta); }
  };

  /// T^ = (1 + b) G^{n+1} + b zeta^' from a cell's b, G^{n+1} and zeta^'.
  KOKKOS_FORCEINLINE_FUNCTION static T t_hat(T b, T g, T zeta) { return (T(1) + b) * g + b * zeta; }

  /// The host paths' buffered products of one cell (x_buffers(), z_buffers()): e = (1 + b) T^,
  /// y = db T^ + ab psi^', ct = chi T^.
  KOKKOS_FORCEINLINE_FUNCTION static void buffered_products(T b, T db, T ab, T chi, T g, T zeta,
                                                            T psi, T& e, T& y, T& ct) {
    const T t = t_hat(b, g, zeta);
    e = (T(1) + b) * t;
    y = db * t + ab * psi;
    ct = chi * t;
  }

  /// strip_axis's sums over buffered products (buffered_products()) of an axis whose
  /// neighbour j lies +- j Stride away from this cell's e, y, ct: adds D2 ((1 + b) T^) + D1^T
  /// (db T^ + ab psi^') to `acc` and returns D1^T (chi T^).
  template <long Stride>
  KOKKOS_FORCEINLINE_FUNCTION static T buffered_axis(const T* d2, const T* d1, const T* e,
                                                     const T* y, const T* ct, T& acc) {
    T dchi = 0;
    acc += d2[0] * e[0];
    PWAVE_UNROLL
    for (int j = 1; j <= R; ++j) {
      acc += d2[j] * (e[j * Stride] + e[-j * Stride]);
      acc += d1[j] * (y[-j * Stride] - y[j * Stride]);
      dchi += d1[j] * (ct[-j * Stride] - ct[j * Stride]);
    }
    return dchi;
  }

  /// The adjoint terms of one strip axis at a cell (the formulas at the top of this file):
  /// adds D2 ((1 + b) T^) + D1^T (db T^ + ab psi^') to `acc` and returns the cell's zeta^ and
  /// psi^. `at(j)` gives the AxisCell at offset j in [-R, R]; d2 and d1 are the axis' scaled
  /// stencils. The cell-wise path and the host lines' z and y terms call this one and agree to
  /// the bit; the host lines' x term sums line buffers of the same products, rounded before
  /// the sums (agrees to rounding: tests/propagation/test_adjoint_frame_lines.cpp).
  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION static void strip_axis(const T* d2, const T* d1, const At& at, T& acc,
                                                     T& zeta_next, T& psi_next) {
    const AxisCell m = at(0);
    const T t0 = m.t_hat();
    T dchi = 0;
    acc += d2[0] * ((T(1) + m.k.b) * t0);
    PWAVE_UNROLL
    for (int j = 1; j <= R; ++j) {
      const AxisCell p = at(j), q = at(-j);
      const T tp = p.t_hat(), tm = q.t_hat();
      acc += d2[j] * ((T(1) + p.k.b) * tp + (T(1) + q.k.b) * tm);
      acc += d1[j] * ((q.k.db * tm + q.k.ab * q.psi) - (p.k.db * tp + p.k.ab * p.psi));
      dchi += d1[j] * (q.chi * tm - p.chi * tp);
    }
    zeta_next = m.k.a * (m.g + m.zeta);
    psi_next = m.chi * (m.k.a * m.psi + dchi);
  }

  /// An x line's rows of G^{n+1}, the halo-padded x profile and chi_x, indexed by grid column,
  /// and of zeta_x^', psi_x^' from the buffers' first column (x_buffers()).
  struct XLine {
    const T *g, *b, *db, *ab, *chi, *zeta, *psi;
  };

  /// The host x term's line buffers at grid columns [c, c + count) of line `l`: ex = (1 + b) T^,
  /// yx = db T^ + ab psi^', ctx = chi T^ (T^ = (1 + b) G^{n+1} + b zeta^'). line() and
  /// AdjointXStripLines (adjoint_x_strip_lines.hpp) both fill them here.
  static void x_buffers(const XLine& l, int c, int count, T* PWAVE_RESTRICT ex,
                        T* PWAVE_RESTRICT yx, T* PWAVE_RESTRICT ctx) {
    const T* PWAVE_RESTRICT g = l.g;
    const T* PWAVE_RESTRICT zeta = l.zeta;
    const T* PWAVE_RESTRICT psi = l.psi;
    PWAVE_SIMD
    for (int k = 0; k < count; ++k) {
      const int ix = c + k;
      buffered_products(l.b[ix], l.db[ix], l.ab[ix], l.chi[ix], g[ix], zeta[k], psi[k], ex[k],
                        yx[k], ctx[k]);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }

  // Below, (z, x) index the halo-layout fields (x = column), and the halo-padded axis arrays
  // are indexed by xa = ix + halo, z, ya = iy + halo.
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const int z = iz + st.halo, x = st.column(iy, ix), xa = ix + st.halo;
    const T gc = st.g_cur(s, z, x);
    T acc = 0;
    if constexpr (InX) {
      const int xm = st.x_column(iy, ix);
      const auto at = [&](int j) {
        return AxisCell{st.g_cur(s, z, x + j), st.zeta_x(s, z, xm + j), st.psi_x(s, z, xm + j),
                        CpmlAt<T>::at(st.cx, xa + j), st.chix(xa + j)};
      };
      strip_axis(c.d2x, c.d1x, at, acc, st.zeta_x_next(s, z, xm), st.psi_x_next(s, z, xm));
    } else {
      acc += c.d2x[0] * gc;
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j)
        acc += c.d2x[j] * (st.g_cur(s, z, x + j) + st.g_cur(s, z, x - j));
    }
    if constexpr (InZ) {
      const auto at = [&](int j) {
        const int r = st.zrows(z + j);
        return AxisCell{st.g_cur(s, z + j, x), st.zeta_z(s, r, x), st.psi_z(s, r, x),
                        CpmlAt<T>::at(st.cz, z + j), st.chiz(z + j)};
      };
      const int r = st.zrows(z);
      strip_axis(c.d2z, c.d1z, at, acc, st.zeta_z_next(s, r, x), st.psi_z_next(s, r, x));
    } else {
      acc += c.d2z[0] * gc;
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j)
        acc += c.d2z[j] * (st.g_cur(s, z + j, x) + st.g_cur(s, z - j, x));
    }
    if constexpr (InY) {
      const int ya = iy + st.halo, ys = st.ys;
      const auto at = [&](int j) {
        const int q = x + j * ys, qy = st.y_column(iy + j, q);
        return AxisCell{st.g_cur(s, z, q), st.zeta_y(s, z, qy), st.psi_y(s, z, qy),
                        CpmlAt<T>::at(st.cy, ya + j), st.chiy(ya + j)};
      };
      const int xy = st.y_column(iy, x);
      strip_axis(c.d2y, c.d1y, at, acc, st.zeta_y_next(s, z, xy), st.psi_y_next(s, z, xy));
    } else if constexpr (Dim == 3) {
      const int ys = st.ys;
      acc += c.d2y[0] * gc;
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) {
        acc += c.d2y[j] * (st.g_cur(s, z, x + j * ys) + st.g_cur(s, z, x - j * ys));
      }
    }
    st.g_prev(s, z, x) = T(2) * gc - st.g_prev(s, z, x) + st.v2dt2(iz, iy * st.nx + ix) * acc;
  }

  /// Host path (2D and 3D): cells [x0, x1) of the x line (iz, iy) (where the stencils reach
  /// an x strip: all on one side of xcols' gap), the operator() formulas in the same order on
  /// raw pointers. Along a strip axis each neighbour's T^ would be rebuilt
  /// 2R + 1 times by the cell formula, from several arrays; here, along x, (1 + b) T^,
  /// db T^ + ab psi^' and chi T^ are first written once per cell into line buffers, and along z
  /// and y the profile is per-line scalars, so the cell loop reads contiguous arrays and
  /// vectorises. (In 3D, lines() also buffers the z strips' products.)
  void line(int s, int iz, int iy, int x0, int x1) const {
    constexpr int CH = 256;  // cells per chunk: bounds the line buffers on the stack
    for (int c0 = x0; c0 < x1; c0 += CH) {
      cells<CH, false>(s, iz, iy, c0, std::min(CH, x1 - c0), nullptr, nullptr, nullptr);
    }
  }

  /// Depths per lines() call: a block of a z strip's depths shares its row buffers.
  static constexpr int block_lines = 8;

  /// Host path (3D z strips): cells [x0, x1) of the x lines (iz + r, iy), r < n <=
  /// block_lines, as line() runs each, but the z term's products at each row, (1 + b) T^,
  /// db T^ + ab psi^' and chi T^, are first written once per block into row buffers
  /// (z_buffers()) that the depths reading each row share: (n + 2R) / n builds per cell
  /// instead of 2R + 1. Rounded before the sums, as the x term's line buffers are, so it agrees
  /// with the cell formula to rounding; each buffer value is its cell's whatever the block, so
  /// the bits do not depend on how depths are blocked. (Only in z strips: elsewhere blocks of
  /// depths of a y line would cost the y taps' reuse across the y lines that follow.)
  template <int D = Dim, std::enable_if_t<D == 3 && InZ, int> = 0>
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    constexpr int CH = 128;  // columns per chunk: the row buffers stay in L1 (24 KB in float)
    T ez[block_lines + 2 * R][CH], yz[block_lines + 2 * R][CH], cz[block_lines + 2 * R][CH];
    for (int c0 = x0; c0 < x1; c0 += CH) {
      const int m = std::min(CH, x1 - c0);
      for (int q = 0; q < n + 2 * R; ++q) {
        z_buffers(s, iz + st.halo - R + q, iy, c0, m, ez[q], yz[q], cz[q]);
      }
      for (int r = 0; r < n; ++r) {
        cells<CH, true>(s, iz + r, iy, c0, m, ez[r + R], yz[r + R], cz[r + R]);
      }
    }
  }

  /// Host row path (2D): line 0.
  void row(int s, int iz, int x0, int x1) const { line(s, iz, 0, x0, x1); }

 private:
  /// lines()' row buffers of halo-layout row z (a z strip's) on y line iy at grid columns
  /// [c0, c0 + m): e = (1 + b) T^, y = db T^ + ab psi_z^', ct = chi T^, with T^ = (1 + b) G^{n+1}
  /// + b zeta_z^' (AxisCell::t_hat) and the z profile of row z.
  void z_buffers(int s, int z, int iy, int c0, int m, T* PWAVE_RESTRICT e, T* PWAVE_RESTRICT y,
                 T* PWAVE_RESTRICT ct) const {
    const int col = st.column(iy, c0), r = st.zrows(z);
    const T* PWAVE_RESTRICT g = &st.g_cur(s, z, col);
    const T* PWAVE_RESTRICT zeta = &st.zeta_z(s, r, col);
    const T* PWAVE_RESTRICT psi = &st.psi_z(s, r, col);
    const CpmlAt<T> k = CpmlAt<T>::at(st.cz, z);
    const T b = k.b, db = k.db, ab = k.ab, chi = st.chiz(z);
    PWAVE_SIMD
    for (int i = 0; i < m; ++i)
      buffered_products(b, db, ab, chi, g[i], zeta[i], psi[i], e[i], y[i], ct[i]);
  }

  /// The cells [c0, c0 + n) (n <= CH) of the x line (iz, iy) for line() and lines(). With
  /// `ZBuffered` (lines() in a z strip) the z term sums the row buffers ez, yz, cz of this row
  /// (chunk offset i; row j away at +- j CH); else it is built here per neighbour.
  template <int CH, bool ZBuffered>
  void cells(int s, int iz, int iy, int c0, int n, const T* PWAVE_RESTRICT ez,
             const T* PWAVE_RESTRICT yz, const T* PWAVE_RESTRICT cz) const {
    const int h = st.halo, z = iz + h, col0 = st.column(iy, 0);
    const long zs = long(st.g_cur.stride(1));
    const long ys = Dim == 3 ? long(st.ys) : 0;
    const T* PWAVE_RESTRICT gc = &st.g_cur(s, z, col0);
    T* PWAVE_RESTRICT gp = &st.g_prev(s, z, col0);
    const T* PWAVE_RESTRICT ww = &st.v2dt2(iz, iy * st.nx);
    // Along x: halo-padded profile axes indexed by grid column ix.
    const T* axp = InX ? st.cx.a.data() + h : nullptr;
    const T* bxp = InX ? st.cx.b.data() + h : nullptr;
    const T* abxp = InX ? st.cx.ab.data() + h : nullptr;
    const T* dbxp = InX ? st.cx.db.data() + h : nullptr;
    const T* chixp = InX ? st.chix.data() + h : nullptr;
    // Along z and y: the profile of the rows / lines +- j around this one.
    CpmlAt<T> kz[2 * R + 1] = {}, ky[2 * R + 1] = {};
    T chiz[2 * R + 1] = {}, chiy[2 * R + 1] = {};
    for (int j = -R; j <= R; ++j) {
      if constexpr (InZ) kz[j + R] = CpmlAt<T>::at(st.cz, z + j), chiz[j + R] = st.chiz(z + j);
      if constexpr (InY) {
        ky[j + R] = CpmlAt<T>::at(st.cy, iy + h + j), chiy[j + R] = st.chiy(iy + h + j);
      }
    }
    // The z and y memory-variable rows of this line (null for the axes not in a strip here),
    // indexed by grid column like G's, at their stored row / y line (StripLines), whose z / y
    // neighbours are the same strides away; the x ones from the chunk's first column.
    const auto at = [&](const Field<T>& f, int zr, int col) {
      return f.extent(0) ? &f(s, zr, col) : nullptr;
    };
    const auto row_z = [&](const Field<T>& f) { return at(f, st.zrows(z), col0); };
    const auto row_y = [&](const Field<T>& f) { return at(f, z, st.y_column(iy, col0)); };
    const T* PWAVE_RESTRICT zz = InZ ? row_z(st.zeta_z) : nullptr;
    const T* PWAVE_RESTRICT pz = InZ ? row_z(st.psi_z) : nullptr;
    T* PWAVE_RESTRICT zzn = InZ ? row_z(st.zeta_z_next) : nullptr;
    T* PWAVE_RESTRICT pzn = InZ ? row_z(st.psi_z_next) : nullptr;
    const T* PWAVE_RESTRICT zy = InY ? row_y(st.zeta_y) : nullptr;
    const T* PWAVE_RESTRICT py = InY ? row_y(st.psi_y) : nullptr;
    T* PWAVE_RESTRICT zyn = InY ? row_y(st.zeta_y_next) : nullptr;
    T* PWAVE_RESTRICT pyn = InY ? row_y(st.psi_y_next) : nullptr;
    const int xm = InX ? st.x_column(iy, c0) : 0;  // grid column c0 + i at xm + i
    const T* PWAVE_RESTRICT zx = InX ? &st.zeta_x(s, z, xm) : nullptr;
    const T* PWAVE_RESTRICT px = InX ? &st.psi_x(s, z, xm) : nullptr;
    T* PWAVE_RESTRICT zxn = InX ? &st.zeta_x_next(s, z, xm) : nullptr;
    T* PWAVE_RESTRICT pxn = InX ? &st.psi_x_next(s, z, xm) : nullptr;
    T ex[CH + 2 * R], yx[CH + 2 * R], ctx[CH + 2 * R];
    if constexpr (InX) {  // buffer index k is grid column c0 - R + k
      x_buffers(XLine{gc, bxp, dbxp, abxp, chixp, zx - R, px - R}, c0 - R, n + 2 * R, ex, yx, ctx);
    }
    const T* PWAVE_RESTRICT exc = ex + R;
    const T* PWAVE_RESTRICT yxc = yx + R;
    const T* PWAVE_RESTRICT ctc = ctx + R;
    const T az = kz[R].a, chi0 = chiz[R];
    PWAVE_SIMD
    for (int i = 0; i < n; ++i) {
      const int ix = c0 + i;
      const T g0 = gc[ix];
      T acc = 0;
      if constexpr (InX) {
        const T dchi = buffered_axis<1>(c.d2x, c.d1x, exc + i, yxc + i, ctc + i, acc);
        const T a = axp[ix];
        zxn[i] = a * (g0 + zx[i]);
        pxn[i] = chixp[ix] * (a * px[i] + dchi);
      } else {
        acc += c.d2x[0] * g0;
        PWAVE_UNROLL
        for (int j = 1; j <= R; ++j) acc += c.d2x[j] * (gc[ix + j] + gc[ix - j]);
      }
      if constexpr (InZ && ZBuffered) {
        const T dchi = buffered_axis<CH>(c.d2z, c.d1z, ez + i, yz + i, cz + i, acc);
        zzn[ix] = az * (g0 + zz[ix]);
        pzn[ix] = chi0 * (az * pz[ix] + dchi);
      } else if constexpr (InZ) {
        const auto at = [&](int j) {
          const long o = ix + j * zs;
          const CpmlAt<T>& k = kz[R + j];  // member by member: a struct copy stops GCC
          return AxisCell{gc[o], zz[o], pz[o], {k.a, k.b, k.ab, k.db}, chiz[R + j]};
        };
        strip_axis(c.d2z, c.d1z, at, acc, zzn[ix], pzn[ix]);
      } else {
        acc += c.d2z[0] * g0;
        PWAVE_UNROLL
        for (int j = 1; j <= R; ++j) acc += c.d2z[j] * (gc[ix + j * zs] + gc[ix - j * zs]);
      }
      if constexpr (InY) {
        const auto at = [&](int j) {
          const long o = ix + j * ys;
          const CpmlAt<T>& k = ky[R + j];  // member by member: a struct copy stops GCC
          return AxisCell{gc[o], zy[o], py[o], {k.a, k.b, k.ab, k.db}, chiy[R + j]};
        };
        strip_axis(c.d2y, c.d1y, at, acc, zyn[ix], pyn[ix]);
      } else if constexpr (Dim == 3) {
        acc += c.d2y[0] * g0;
        PWAVE_UNROLL
        for (int j = 1; j <= R; ++j) acc += c.d2y[j] * (gc[ix + j * ys] + gc[ix - j * ys]);
      }
      gp[ix] = T(2) * g0 - gp[ix] + ww[ix] * acc;
    }
  }
};

/// Adds w h_k r^n at every tap k of every receiver: the adjoint of recording u^n (in the
/// scaled variable G). Neighbouring receivers' Hicks taps share cells, so this runs over each
/// slot's distinct cells (CellTaps), one thread per cell: no atomics, and a cell adds its
/// receivers in the same order on every backend and thread count, so gradients are bitwise
/// reproducible. Each contribution is one fused multiply-add onto the running sum, from the
/// cell's value, in ascending receiver order: g <- fma(w r^n_r, h_rk, g) (w kept in every term,
/// not factored out). The fma is explicit so that no compiler's choice to contract or not
/// changes the bits; they are those the atomic adds this replaces gave in the Serial build
/// (GCC with -march=native fused each add the same way, in the same order).
/// Launched over (shot, cell, n); cells past a slot's last have no contributions.
template <class T>
struct InjectResidual {
  Field<T> g;
  Traces<T> residual;  ///< [shot][receiver][time]
  GridView<T> w;
  CellTaps<T> receiver;  ///< the receivers' taps by cell, [shot][cell]
  ColumnMap column;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int c, int n) const {
    const int begin = receiver.start(s, c), end = receiver.start(s, c + 1);
    if (begin == end) return;
    const int iz = receiver.cell(s, c, 0), q = receiver.cell(s, c, 1);
    T& cell = g(s, iz + column.halo, column(q));
    const T wc = w(iz, q);
    T acc = cell;
    for (int i = begin; i < end; ++i) {
      acc = math::fma(wc * residual(s, receiver.point(s, i), n), receiver.weight(s, i), acc);
    }
    cell = acc;
  }
};

/// Stores u^k (padded grid, halo dropped) as snapshot k of a forward history [k][shot][z][x].
template <class T>
struct StoreSnapshot {
  static constexpr bool host_rows = true;   ///< promises row() (backends/launch.hpp)
  static constexpr bool host_lines = true;  ///< promises line() (backends/launch.hpp)
  Kokkos::View<T****, Kokkos::LayoutRight, MemSpace> history;
  Field<T> u;
  int k, halo;
  int hy = 0, ys = 0, nx = 0;  ///< 3D: y halo, column stride of y, padded nx
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    history(k, s, iz, ix) = u(s, iz + halo, ix + halo);
  }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    history(k, s, iz, iy * nx + ix) = u(s, iz + halo, (iy + hy) * ys + ix + halo);
  }
  /// Host paths: cells [x0, x1) of row iz (2D) or of x line (iz, iy) (3D), one copy each.
  void row(int s, int iz, int x0, int x1) const {
    std::copy_n(&u(s, iz + halo, x0 + halo), x1 - x0, &history(k, s, iz, x0));
  }
  void line(int s, int iz, int iy, int x0, int x1) const {
    std::copy_n(&u(s, iz + halo, (iy + hy) * ys + x0 + halo), x1 - x0,
                &history(k, s, iz, iy * nx + x0));
  }
};

/// Imaging condition for the `full` history. dJ/dw = sum_n lambda^{n+1} (u^{n+1} - 2u^n +
/// u^{n-1}) / w (since w (L + f) is that second difference); with G = w lambda this is
/// sum_n G^{n+1} (u^{n+1} - 2u^n + u^{n-1}) / w^2. The sum is accumulated here per shot, the
/// division done once at the end. One buffer per shot: no atomics, and shots are summed in
/// order at the end, so any batch split gives the same result.
template <class T>
struct AccumulateGradient {
  Field<T> acc;                                                ///< [shot][nz][nx] padded grid
  Field<T> g;                                                  ///< G^{n+1}, halo layout
  Kokkos::View<T****, Kokkos::LayoutRight, MemSpace> history;  ///< u^k at slot k - base
  int n, halo;  ///< step n uses u^{n+1}, u^n and u^{n-1} (u^{-1} = 0)
  int base;     ///< time index of slot 0 (0 for a full history, n0 - 1 for a segment)

  int hy = 0, ys = 0, nx = 0;  ///< 3D: y halo, column stride of y, padded nx

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    const int k = n - base;
    const T prev = k > 0 ? history(k - 1, s, iz, ix) : T(0);
    acc(s, iz, ix) += g(s, iz + halo, ix + halo) *
                      (history(k + 1, s, iz, ix) - T(2) * history(k, s, iz, ix) + prev);
  }
  /// 3D: the same at padded cell (iz, iy, ix); acc and history use plane index iy nx + ix.
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const int k = n - base, q = iy * nx + ix;
    const T prev = k > 0 ? history(k - 1, s, iz, q) : T(0);
    acc(s, iz, q) += g(s, iz + halo, (iy + hy) * ys + ix + halo) *
                     (history(k + 1, s, iz, q) - T(2) * history(k, s, iz, q) + prev);
  }
  /// Host paths: cells [x0, x1) of row iz (2D) or of x line (iz, iy) (3D), the same arithmetic
  /// in one vector loop.
  static constexpr bool host_rows = true;   ///< promises row() (backends/launch.hpp)
  static constexpr bool host_lines = true;  ///< promises line() (backends/launch.hpp)
  void row(int s, int iz, int x0, int x1) const {
    cells(s, iz, x0, &g(s, iz + halo, x0 + halo), x1 - x0);
  }
  void line(int s, int iz, int iy, int x0, int x1) const {
    cells(s, iz, iy * nx + x0, &g(s, iz + halo, (iy + hy) * ys + x0 + halo), x1 - x0);
  }

 private:
  /// `count` cells from plane index q0 of depth iz, G^{n+1} from `gg`.
  void cells(int s, int iz, int q0, const T* PWAVE_RESTRICT gg, int count) const {
    const int k = n - base;
    T* PWAVE_RESTRICT a = &acc(s, iz, q0);
    const T* PWAVE_RESTRICT next = &history(k + 1, s, iz, q0);
    const T* PWAVE_RESTRICT now = &history(k, s, iz, q0);
    if (k > 0) {
      const T* PWAVE_RESTRICT before = &history(k - 1, s, iz, q0);
      PWAVE_SIMD
      for (int i = 0; i < count; ++i) a[i] += gg[i] * (next[i] - T(2) * now[i] + before[i]);
    } else {
      PWAVE_SIMD
      for (int i = 0; i < count; ++i) a[i] += gg[i] * (next[i] - T(2) * now[i] + T(0));
    }
  }
};

}  // namespace pwave::physics
