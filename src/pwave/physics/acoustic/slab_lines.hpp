#pragma once
// The 3D x lines of the z and y CPML slabs (the boxes of CpmlStep<T, Order, x, InZ, 3, InY> with
// InZ or InY) with a host path over a whole x line: its left edge (the x term too), its middle
// and its right edge in one call, on host vectors.
//
// Each line of such a slab crosses three boxes: an edge of the CPML width plus R cells (24 for a
// 20-cell layer) with two or three CPML terms, the slab's inner box, the other edge. Run box by
// box (CpmlStep::line per box) each piece resolved its strip lookups again, the edges' 24 cells
// ran as one vector and a scalar remainder, and their psi_x zero guard was a branchy copy: the
// edges cost 15 ns per cell against 2.5 for the middle (bench/README, 3D with CPML on one core).
// Here the line's lookups are made once, the z and y taps outside their strips (zero psi) come
// from a vector of zeros through an index mask instead of zero-row pointers per chunk, each piece
// ends with one overlapping vector that stores only its new lanes (XStripLines' scheme), and
// psi_x's zero guard is two block copies. Same formulas, same order of operations as CpmlStep's:
// the bits are those of the cell-wise kernel (tests/propagation/test_x_strip_lines.cpp).

#include <algorithm>

#include "pwave/physics/acoustic/x_strip_lines.hpp"

namespace pwave::physics {

template <class T, int Order, bool InZ, bool InY>
struct SlabLines {
  static_assert(InZ || InY, "the x strips beside the interior are XStripLines'");
  using Edge = CpmlStep<T, Order, true, InZ, 3, InY>;     ///< the edges' kernel (x term too)
  using Middle = CpmlStep<T, Order, false, InZ, 3, InY>;  ///< the slab's inner box's kernel
  static constexpr bool host_lines = true;                ///< promises line() (backends/launch.hpp)
  static constexpr int R = Edge::R;
  /// Widest edge the vector path takes (its zero-guarded psi_x copy is on the stack); wider
  /// edges take CpmlStep::line().
  static constexpr int max_edge = 256;
  Edge edge;
  Middle middle;

  SlabLines(const AcousticState<T>& st, const ScaledStencil<T, Order>& c)
      : edge(st, c), middle(st, c) {}

  /// The GPU path (and any launch of the edge boxes alone): the edges' cell-wise kernel.
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    edge(s, iz, iy, ix);
  }
  /// Host path of the edge boxes launched on their own.
  void line(int s, int iz, int iy, int x0, int x1) const { edge.line(s, iz, iy, x0, x1); }

  /// Host path: the whole x line (iz, iy) of the slab: edge cells [x0, x1) and [x2, x3) (the
  /// left and the right strip), the inner box's [x1, x2).
  void slab_line(int s, int iz, int iy, int x0, int x1, int x2, int x3) const {
#ifdef PWAVE_HOST_VECTOR_EXT
    const Line p = line_setup(s, iz, iy);
    edge_part(p, s, iz, iy, x0, x1);
    if (x2 - x1 >= W) {
      for_each_strip_vector<H>(x2 - x1, [&](int i, int lo, auto partial) {
        vec<false, decltype(partial)::value>(p, nullptr, x1 + i, lo);
      });
    } else {
      middle.line(s, iz, iy, x1, x2);
    }
    edge_part(p, s, iz, iy, x2, x3);
#else
    edge.line(s, iz, iy, x0, x1);
    middle.line(s, iz, iy, x1, x2);
    edge.line(s, iz, iy, x2, x3);
#endif
  }

#ifdef PWAVE_HOST_VECTOR_EXT

 private:
  using H = host::Vec<T>;
  using V = typename H::type;
  static constexpr int W = H::width;

  /// One vector of zeros: the psi taps of rows or lines outside their strip read it.
  alignas(64) static constexpr T zeros[W] = {};

  /// What the vectors of one line read and write, indexed by grid column. A psi tap j of the z
  /// (y) strip is read at zu[j][ix & zm[j]]: zm is all ones where the row is in the strip, 0
  /// where it is not and zu[j] is `zeros`.
  struct Line {
    const T* uc;  ///< u^n
    T* un;        ///< u^{n-1} in, u^{n+1} out
    const T* vv;  ///< v^2 dt^2
    long zs, ys;
    const T* pz;  ///< psi_z^{n-1} of the line's row
    T* pz_next;   ///< psi_z^n
    T* zeta_z;
    const T *zu[R + 1], *zd[R + 1];  ///< psi_z^{n-1} of rows iz + j, iz - j
    int zmu[R + 1], zmd[R + 1];
    CpmlAt<V> kz;
    const T* py;  ///< psi_y^{n-1} of the line
    T* py_next;   ///< psi_y^n
    T* zeta_y;
    const T *yu[R + 1], *yd[R + 1];  ///< psi_y^{n-1} of lines iy + j, iy - j
    int ymu[R + 1], ymd[R + 1];
    CpmlAt<V> ky;
  };

  /// One edge's x-strip storage, indexed by grid column.
  struct EdgeCells {
    const T* psi;  ///< psi_x^{n-1}, zero-guarded (valid from the edge's first column - R)
    const T* psc;  ///< psi_x^{n-1}
    T* psi_next;   ///< psi_x^n
    T* zeta;       ///< zeta_x
    const T *a, *b, *ab, *db;
  };

  static CpmlAt<V> splat(const CpmlAt<T>& k) {
    return {H::splat(k.a), H::splat(k.b), H::splat(k.ab), H::splat(k.db)};
  }

  Line line_setup(int s, int iz, int iy) const {
    const AcousticState<T>& st = edge.st;
    const int h = st.halo, nx = st.nx;
    Line p{};
    p.zs = long(st.u_cur.stride(1));
    p.ys = st.ys;
    p.uc = &st.u_cur(s, iz + h, st.column(iy, 0));
    p.un = &st.u_prev(s, iz + h, st.column(iy, 0));
    p.vv = &st.v2dt2(iz, st.plane(iy, 0));
    const auto tap = [](int row, const T* at, const T*& ptr, int& mask) {
      ptr = row >= 0 ? at : zeros;
      mask = row >= 0 ? ~0 : 0;
    };
    if constexpr (InZ) {
      const int row = z_strip_row(st, iz), col = st.plane(iy, 0);
      p.pz = &st.psi_z(s, row, col);
      p.pz_next = &st.psi_z_next(s, row, col);
      p.zeta_z = &st.zeta_z(s, row, col);
      for (int j = 1; j <= R; ++j) {
        const int up = z_strip_row(st, iz + j), dn = z_strip_row(st, iz - j);
        tap(up, up >= 0 ? &st.psi_z(s, up, col) : nullptr, p.zu[j], p.zmu[j]);
        tap(dn, dn >= 0 ? &st.psi_z(s, dn, col) : nullptr, p.zd[j], p.zmd[j]);
      }
      p.kz = splat(CpmlAt<T>::at(st.cz, iz));
    }
    if constexpr (InY) {
      const int l = y_strip_line(st, iy);
      p.py = &st.psi_y(s, iz, l * nx);
      p.py_next = &st.psi_y_next(s, iz, l * nx);
      p.zeta_y = &st.zeta_y(s, iz, l * nx);
      for (int j = 1; j <= R; ++j) {
        const int up = y_strip_line(st, iy + j), dn = y_strip_line(st, iy - j);
        tap(up, up >= 0 ? &st.psi_y(s, iz, up * nx) : nullptr, p.yu[j], p.ymu[j]);
        tap(dn, dn >= 0 ? &st.psi_y(s, iz, dn * nx) : nullptr, p.yd[j], p.ymd[j]);
      }
      p.ky = splat(CpmlAt<T>::at(st.cy, iy));
    }
    return p;
  }

  /// Edge cells [x0, x1) (all in the left or all in the right strip).
  void edge_part(const Line& p, int s, int iz, int iy, int x0, int x1) const {
    const int n = x1 - x0;
    if (n <= 0) return;
    if (n < W || n > max_edge) {
      edge.line(s, iz, iy, x0, x1);
      return;
    }
    const AcousticState<T>& st = edge.st;
    // Strip storage: grid columns [sx0, sx1) at (grid column - xoff) of the depth's row.
    const bool left = x0 < st.strip_left;
    const int sx0 = left ? 0 : st.nx - st.strip_right, sx1 = left ? st.strip_left : st.nx;
    const int xoff = (left ? 0 : sx0 - st.strip_left) - iy * (st.strip_left + st.strip_right);
    const T* row = &st.psi_x(s, iz, 0) - xoff;
    // psi_x at grid columns [x0 - R, x1 + R), zero outside the strip.
    T guarded[max_edge + 2 * R];
    const int g0 = x0 - R, lo = std::max(g0, sx0), hi = std::min(x1 + R, sx1);
    std::fill(guarded, guarded + n + 2 * R, T(0));
    std::copy(row + lo, row + hi, guarded + (lo - g0));
    EdgeCells e;
    e.psi = guarded - g0;
    e.psc = row;
    e.psi_next = &st.psi_x_next(s, iz, 0) - xoff;
    e.zeta = &st.zeta_x(s, iz, 0) - xoff;
    e.a = st.cx.a.data(), e.b = st.cx.b.data(), e.ab = st.cx.ab.data(), e.db = st.cx.db.data();
    for_each_strip_vector<H>(n, [&](int i, int lo_lane, auto partial) {
      vec<true, decltype(partial)::value>(p, &e, x0 + i, lo_lane);
    });
  }

  /// The z or y strip's term of cells [ix, ix + W) (cpml_axis), advancing its zeta and psi:
  /// psi tap j read at up[j][ix & mu[j]] and dn[j][ix & md[j]] (Line), d1 the axis' D1.
  template <bool Partial>
  PWAVE_HOST_INLINE static V strip_term(const V& d2, const V& d1, const T* d1c, const T* const* up,
                                        const int* mu, const T* const* dn, const int* md,
                                        const CpmlAt<V>& k, T* zeta, const T* psi, T* psi_next,
                                        int ix, int lo) {
    V dpsi = V{};
    PWAVE_UNROLL
    for (int j = 1; j <= R; ++j)
      dpsi += d1c[j] * (H::load(up[j] + (ix & mu[j])) - H::load(dn[j] + (ix & md[j])));
    V z = H::load(zeta + ix), next;
    const V lap = cpml_axis<V, T>(d2, d1, dpsi, k, z, H::load(psi + ix), next);
    store_strip_lanes<Partial, H>(zeta + ix, z, lo);
    store_strip_lanes<Partial, H>(psi_next + ix, next, lo);
    return lap;
  }

  /// Cells [ix, ix + W) of the line (grid columns), with the x term where InX (edge `e`),
  /// storing lanes [lo, W) only where Partial. CpmlStep::line's arithmetic.
  template <bool InX, bool Partial>
  PWAVE_HOST_INLINE void vec(const Line& p, const EdgeCells* e, int ix, int lo) const {
    const ScaledStencil<T, Order>& c = edge.c;
    const T* ur = p.uc + ix;
    const V u = H::load(ur);
    V d2x = c.d2x[0] * u, d2z = c.d2z[0] * u, d2y = c.d2y[0] * u;
    V d1x = V{}, d1z = V{}, d1y = V{};
    PWAVE_UNROLL
    for (int j = 1; j <= R; ++j) {
      const V xp = H::load(ur + j), xm = H::load(ur - j);
      const V zp = H::load(ur + j * p.zs), zm = H::load(ur - j * p.zs);
      const V yp = H::load(ur + j * p.ys), ym = H::load(ur - j * p.ys);
      d2x += c.d2x[j] * (xp + xm);
      d2z += c.d2z[j] * (zp + zm);
      d1x += c.d1x[j] * (xp - xm);
      d1z += c.d1z[j] * (zp - zm);
      d2y += c.d2y[j] * (yp + ym);
      d1y += c.d1y[j] * (yp - ym);
    }
    V lap_x = d2x, lap_z = d2z, lap_y = d2y;
    if constexpr (InX) {
      V dpsi = V{};
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j)
        dpsi += c.d1x[j] * (H::load(e->psi + ix + j) - H::load(e->psi + ix - j));
      V zeta = H::load(e->zeta + ix), psi_next;
      const CpmlAt<V> k{H::load(e->a + ix), H::load(e->b + ix), H::load(e->ab + ix),
                        H::load(e->db + ix)};
      lap_x = cpml_axis<V, T>(d2x, d1x, dpsi, k, zeta, H::load(e->psc + ix), psi_next);
      store_strip_lanes<Partial, H>(e->zeta + ix, zeta, lo);
      store_strip_lanes<Partial, H>(e->psi_next + ix, psi_next, lo);
    }
    if constexpr (InZ) {
      lap_z = strip_term<Partial>(d2z, d1z, c.d1z, p.zu, p.zmu, p.zd, p.zmd, p.kz, p.zeta_z, p.pz,
                                  p.pz_next, ix, lo);
    }
    if constexpr (InY) {
      lap_y = strip_term<Partial>(d2y, d1y, c.d1y, p.yu, p.ymu, p.yd, p.ymd, p.ky, p.zeta_y, p.py,
                                  p.py_next, ix, lo);
    }
    T* o = p.un + ix;
    const V old = H::load(o);
    const V next = T(2) * u - old + H::load(p.vv + ix) * (lap_x + lap_z + lap_y);
    store_strip_lanes<Partial, H>(o, next, lo);
  }
#endif
};

}  // namespace pwave::physics
