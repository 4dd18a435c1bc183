#pragma once
// The 3D left and right CPML strips between the z and y strips (CpmlStep<T, Order, true, false,
// 3>: the x term only) with a host path over blocks of depths, so that on host backends they run
// in the interior's work items (backends/launch.hpp for_each_box_3d: left strip, interior, right
// strip of the same block of depths and y line) rather than in sweeps of their own.
//
// Their lines are short (the CPML width plus R, 24 cells for a 20-cell layer), so the line path
// (CpmlStep::line: one line per call, a scalar remainder, a branchy zero-guarded copy of psi) and
// the sweep down the grid, where each line's z taps come from beyond L2, made them 6x the
// interior's time per cell (bench/README, 3D with CPML on one core). Here each vector of the z
// column is loaded once for the block's lines, the remainder is one overlapping vector that
// stores only its new lanes, and psi's zero guard is two block copies. Same formulas, same order
// of operations as CpmlStep's: the bits are those of the cell-wise kernel
// (tests/propagation/test_x_strip_lines.cpp).

#include <algorithm>
#include <type_traits>

#include "pwave/physics/acoustic/kernels.hpp"

namespace pwave::physics {

/// The x strips' host path (XStripLines, AdjointXStripLines) for the lines of n <= Block depths,
/// `cells` cells each: with the vector extension and W <= cells <= MaxCells, block(NR, r) over
/// one block of NR = Block depths (r = 0) when n == Block, else over each depth r alone (NR = 1,
/// the remainder of a slab); otherwise line(r) for each depth r < n (the cell-wise arithmetic's
/// line path). NR is a std::integral_constant.
template <class T, int Block, int MaxCells, class BlockF, class LineF>
PWAVE_HOST_INLINE void for_strip_blocks(int n, int cells, const BlockF& block, const LineF& line) {
#ifdef PWAVE_HOST_VECTOR_EXT
  if (cells >= host::Vec<T>::width && cells <= MaxCells) {
    if (n == Block) {
      block(std::integral_constant<int, Block>{}, 0);
    } else {
      for (int r = 0; r < n; ++r) block(std::integral_constant<int, 1>{}, r);
    }
    return;
  }
#else
  (void)cells, (void)block;
#endif
  for (int r = 0; r < n; ++r) line(r);
}

#ifdef PWAVE_HOST_VECTOR_EXT
/// The x strips' vector loop (XStripLines, AdjointXStripLines): f(i, lo, partial) for vectors
/// of W = H::width lanes covering [0, n), n >= W: whole vectors at i = 0, W, 2W, ... (`partial`
/// std::false_type, lo 0), then, when W does not divide n, one at n - W overlapping the one
/// before (std::true_type), whose lanes [0, lo) that one covered.
template <class H, class F>
PWAVE_HOST_INLINE void for_each_strip_vector(int n, const F& f) {
  constexpr int W = H::width;
  int i = 0;
  for (; i + W <= n; i += W) f(i, 0, std::false_type{});
  if (i < n) f(n - W, i - (n - W), std::true_type{});
}

/// Stores v at p, or with Partial (for_each_strip_vector()'s overlapping last vector) only its
/// lanes [lo, W): p keeps lanes [0, lo), which the vector before stored.
template <bool Partial, class H, class T>
PWAVE_HOST_INLINE void store_strip_lanes(T* p, const typename H::type& v, int lo) {
  H::store(p, Partial ? H::lanes_from(lo, v, H::load(p)) : v);
}
#endif

template <class T, int Order>
struct XStripLines {
  using Step = CpmlStep<T, Order, true, false, 3, false>;
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static constexpr int R = Step::R;
  /// Depths per lines() call: the interior's, whose work items these lines join.
  static constexpr int block_lines = InteriorStep<T, Order, 3>::block_lines;
  /// Widest line the vector path takes (its zero-guarded psi copy is on the stack); wider
  /// strips take CpmlStep::line().
  static constexpr int max_cells = 256;
  Step k;

  XStripLines(const AcousticState<T>& st, const ScaledStencil<T, Order>& c) : k(st, c) {}

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const { k(s, iz, iy, ix); }

  /// Host path: cells [x0, x1) (all in the left or all in the right strip) of the x lines
  /// (iz + r, iy), r < n <= block_lines.
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    for_strip_blocks<T, block_lines, max_cells>(
        n, x1 - x0,
        [&](auto nr, int r) { this->template block<decltype(nr)::value>(s, iz + r, iy, x0, x1); },
        [&](int r) { k.line(s, iz + r, iy, x0, x1); });
  }

#ifdef PWAVE_HOST_VECTOR_EXT

 private:
  using H = host::Vec<T>;
  using V = typename H::type;
  static constexpr int W = H::width;

  /// What the vectors of a block read and write, from the block's first column x0.
  template <int NR>
  struct Block {
    const T* uc;  ///< u^n, depth iz
    T* un;        ///< u^{n-1} in, u^{n+1} out
    const T* vv;  ///< v^2 dt^2
    long zs, ys, vs;
    const T* psi[NR];          ///< psi_x^{n-1} of depth iz + r, zero-guarded from column x0 - R
    const T* psc[NR];          ///< psi_x^{n-1} of depth iz + r
    T* psi_next[NR];           ///< psi_x^n
    T* zeta[NR];               ///< zeta_x
    const T *a, *b, *ab, *db;  ///< the x profile
  };

  template <int NR>
  void block(int s, int iz, int iy, int x0, int x1) const {
    const AcousticState<T>& st = k.st;
    const int h = st.halo, n = x1 - x0;
    Block<NR> p;
    p.zs = long(st.u_cur.stride(1));
    p.ys = st.ys;
    p.vs = long(st.v2dt2.stride(0));
    p.uc = &st.u_cur(s, iz + h, st.column(iy, x0));
    p.un = &st.u_prev(s, iz + h, st.column(iy, x0));
    p.vv = &st.v2dt2(iz, st.plane(iy, x0));
    // Strip storage: grid columns [sx0, sx1) at (grid column - xoff) of the depth's row.
    const bool left = x0 < st.strip_left;
    const int sx0 = left ? 0 : st.nx - st.strip_right, sx1 = left ? st.strip_left : st.nx;
    const int xoff = (left ? 0 : sx0 - st.strip_left) - iy * (st.strip_left + st.strip_right);
    // psi_x at grid columns [x0 - R, x1 + R), zero outside the strip.
    T guarded[NR][max_cells + 2 * R];
    const int g0 = x0 - R, lo = std::max(g0, sx0), hi = std::min(x1 + R, sx1);
    for (int r = 0; r < NR; ++r) {
      const T* row = &st.psi_x(s, iz + r, 0) - xoff;
      std::fill(guarded[r], guarded[r] + n + 2 * R, T(0));
      std::copy(row + lo, row + hi, guarded[r] + (lo - g0));
      p.psi[r] = guarded[r] + R;
      p.psc[r] = row + x0;
      p.psi_next[r] = &st.psi_x_next(s, iz + r, 0) - xoff + x0;
      p.zeta[r] = &st.zeta_x(s, iz + r, 0) - xoff + x0;
    }
    p.a = st.cx.a.data() + x0, p.b = st.cx.b.data() + x0;
    p.ab = st.cx.ab.data() + x0, p.db = st.cx.db.data() + x0;
    for_each_strip_vector<H>(
        n, [&](int i, int lo, auto partial) { vec<NR, decltype(partial)::value>(p, i, lo); });
  }

  /// Cells [i, i + W) of the block's NR lines (offsets from x0), CpmlStep::line's arithmetic.
  template <int NR, bool Partial>
  PWAVE_HOST_INLINE void vec(const Block<NR>& p, int i, int lo) const {
    const ScaledStencil<T, Order>& c = k.c;
    V col[NR + 2 * R];
    PWAVE_UNROLL
    for (int q = 0; q < NR + 2 * R; ++q) col[q] = H::load(p.uc + (q - R) * p.zs + i);
    PWAVE_UNROLL
    for (int r = 0; r < NR; ++r) {
      const T* ur = p.uc + r * p.zs + i;
      const V u = col[r + R];
      V d2x = c.d2x[0] * u, d2z = c.d2z[0] * u, d2y = c.d2y[0] * u, d1x = V{};
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) {
        const V xp = H::load(ur + j), xm = H::load(ur - j);
        d2x += c.d2x[j] * (xp + xm);
        d2z += c.d2z[j] * (col[r + R + j] + col[r + R - j]);
        d1x += c.d1x[j] * (xp - xm);
        d2y += c.d2y[j] * (H::load(ur + j * p.ys) + H::load(ur - j * p.ys));
      }
      V dpsi = V{};
      const T* g = p.psi[r] + i;
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) dpsi += c.d1x[j] * (H::load(g + j) - H::load(g - j));
      V zeta = H::load(p.zeta[r] + i), psi_next;
      const CpmlAt<V> prof{H::load(p.a + i), H::load(p.b + i), H::load(p.ab + i),
                           H::load(p.db + i)};
      const V lap_x = cpml_axis<V, T>(d2x, d1x, dpsi, prof, zeta, H::load(p.psc[r] + i), psi_next);
      store_strip_lanes<Partial, H>(p.zeta[r] + i, zeta, lo);
      store_strip_lanes<Partial, H>(p.psi_next[r] + i, psi_next, lo);
      T* o = p.un + r * p.zs + i;
      const V old = H::load(o);
      const V next = T(2) * u - old + H::load(p.vv + r * p.vs + i) * (lap_x + d2z + d2y);
      store_strip_lanes<Partial, H>(o, next, lo);
    }
  }
#endif
};

}  // namespace pwave::physics
