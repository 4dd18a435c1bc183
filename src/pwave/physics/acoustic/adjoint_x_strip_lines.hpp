#pragma once
// The adjoint step's left and right x strips between the z (and y) strips
// (AdjointFrameStep<T, Order, true, false, Dim>: the x term only) with a host path over blocks of
// depths, the backward counterpart of XStripLines (x_strip_lines.hpp): on host backends they run
// in the interior's work items (backends/launch.hpp: for_each_box_3d, left strip, interior, right
// strip of the same block of depths and y line; in 2D for_each_frame_cell, each block of
// interior rows with its strip cells), each vector of the z column loaded once for the block's
// lines, the line's remainder one overlapping vector that stores only its new lanes.
//
// One line at a time (AdjointFrameStep::line) in sweeps of their own, these 24-cell lines cost
// about 4 (3D) to 6 (2D) times a forward x-strip cell (bench/README). Same formulas,
// same order of operations as AdjointFrameStep::line, whose line buffers (x_buffers()) they fill
// the same way: the bits of the line path (tests/propagation/test_adjoint_frame_lines.cpp).

#include <type_traits>

#include "pwave/physics/acoustic/adjoint_kernels.hpp"
#include "pwave/physics/acoustic/x_strip_lines.hpp"

namespace pwave::physics {

template <class T, int Order, int Dim = 3>
struct AdjointXStripLines {
  using Step = AdjointFrameStep<T, Order, true, false, Dim, false>;
  static constexpr bool host_lines = Dim == 3;  ///< promises lines() (backends/launch.hpp)
  static constexpr bool host_rows = Dim == 2;   ///< promises rows()
  static constexpr int R = Step::R;
  /// Depths per lines() or rows() call: the interior's, whose work items these lines join.
  static constexpr int block_lines = InteriorStep<T, Order, 3>::block_lines;
  static constexpr int block_rows = InteriorStep<T, Order, 2>::block_rows;
  /// Widest line the vector path takes (its line buffers are on the stack); wider strips take
  /// AdjointFrameStep::line().
  static constexpr int max_cells = 256;
  Step k;

  AdjointXStripLines(const AcousticAdjointState<T>& st, const ScaledStencil<T, Order>& c)
      : k(st, c) {}

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const { k(s, iz, iy, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { k(s, iz, 0, ix); }

  /// Host path (3D): cells [x0, x1) (all in the left or all in the right strip's reach) of the
  /// x lines (iz + r, iy), r < n <= block_lines.
  template <int D = Dim, std::enable_if_t<D == 3, int> = 0>
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    blocks<block_lines>(s, iz, n, iy, x0, x1);
  }
  /// Host path (2D): cells [x0, x1) of rows [iz, iz + n), n <= block_rows.
  template <int D = Dim, std::enable_if_t<D == 2, int> = 0>
  void rows(int s, int iz, int n, int x0, int x1) const {
    blocks<block_rows>(s, iz, n, 0, x0, x1);
  }

 private:
  template <int Block>
  void blocks(int s, int iz, int n, int iy, int x0, int x1) const {
    for_strip_blocks<T, Block, max_cells>(
        n, x1 - x0,
        [&](auto nr, int r) { this->template block<decltype(nr)::value>(s, iz + r, iy, x0, x1); },
        [&](int r) { k.line(s, iz + r, iy, x0, x1); });
  }

#ifdef PWAVE_HOST_VECTOR_EXT
  using H = host::Vec<T>;
  using V = typename H::type;
  static constexpr int W = H::width;
  static constexpr int B = max_cells + 2 * R;  ///< a line buffer's length

  /// What the vectors of a block read and write, from the block's first column x0.
  template <int NR>
  struct Block {
    const T* gc;  ///< G^{n+1}, depth iz
    T* gp;        ///< G^{n+2} in, G^n out
    const T* w;   ///< v^2 dt^2
    long zs, ys, ws;
    const T* ex[NR];  ///< depth iz + r's line buffers (x_buffers()), from column x0
    const T* yx[NR];
    const T* ctx[NR];
    const T* zeta[NR];  ///< zeta_x^'
    const T* psi[NR];   ///< psi_x^'
    T* zeta_next[NR];   ///< zeta_x^
    T* psi_next[NR];    ///< psi_x^
    const T *a, *chi;   ///< the x profile's a and chi_x
  };

  template <int NR>
  void block(int s, int iz, int iy, int x0, int x1) const {
    const AcousticAdjointState<T>& st = k.st;
    const int h = st.halo, n = x1 - x0, z = iz + h, col0 = st.column(iy, 0);
    Block<NR> p;
    p.zs = long(st.g_cur.stride(1));
    p.ys = st.ys;
    p.ws = long(st.v2dt2.stride(0));
    p.gc = &st.g_cur(s, z, col0) + x0;
    p.gp = &st.g_prev(s, z, col0) + x0;
    p.w = &st.v2dt2(iz, iy * st.nx) + x0;
    p.a = st.cx.a.data() + h + x0, p.chi = st.chix.data() + h + x0;
    T ex[NR][B], yx[NR][B], ctx[NR][B];
    const int xm = st.x_column(iy, x0);  // the x memory variables' column of grid column x0
    for (int r = 0; r < NR; ++r) {
      const auto at_x0 = [&](const Field<T>& f) { return &f(s, z + r, xm); };
      p.zeta[r] = at_x0(st.zeta_x), p.psi[r] = at_x0(st.psi_x);
      p.zeta_next[r] = at_x0(st.zeta_x_next), p.psi_next[r] = at_x0(st.psi_x_next);
      const typename Step::XLine line{
          &st.g_cur(s, z + r, col0), st.cx.b.data() + h, st.cx.db.data() + h, st.cx.ab.data() + h,
          st.chix.data() + h,        p.zeta[r] - R,      p.psi[r] - R};
      Step::x_buffers(line, x0 - R, n + 2 * R, ex[r], yx[r], ctx[r]);
      p.ex[r] = ex[r] + R, p.yx[r] = yx[r] + R, p.ctx[r] = ctx[r] + R;
    }
    for_each_strip_vector<H>(
        n, [&](int i, int lo, auto partial) { vec<NR, decltype(partial)::value>(p, i, lo); });
  }

  /// Cells [i, i + W) of the block's NR lines (offsets from x0), AdjointFrameStep::line's
  /// arithmetic in its order.
  template <int NR, bool Partial>
  PWAVE_HOST_INLINE void vec(const Block<NR>& p, int i, int lo) const {
    const ScaledStencil<T, Order>& c = k.c;
    V col[NR + 2 * R];
    PWAVE_UNROLL
    for (int q = 0; q < NR + 2 * R; ++q) col[q] = H::load(p.gc + (q - R) * p.zs + i);
    const V a = H::load(p.a + i), chi = H::load(p.chi + i);
    PWAVE_UNROLL
    for (int r = 0; r < NR; ++r) {
      const T* gr = p.gc + r * p.zs + i;
      const T *ex = p.ex[r] + i, *yx = p.yx[r] + i, *ctx = p.ctx[r] + i;
      const V g0 = col[r + R];
      V acc = V{}, dchi = V{};
      acc += c.d2x[0] * H::load(ex);
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) {
        acc += c.d2x[j] * (H::load(ex + j) + H::load(ex - j));
        acc += c.d1x[j] * (H::load(yx - j) - H::load(yx + j));
        dchi += c.d1x[j] * (H::load(ctx - j) - H::load(ctx + j));
      }
      store_strip_lanes<Partial, H>(p.zeta_next[r] + i, a * (g0 + H::load(p.zeta[r] + i)), lo);
      store_strip_lanes<Partial, H>(p.psi_next[r] + i, chi * (a * H::load(p.psi[r] + i) + dchi),
                                    lo);
      acc += c.d2z[0] * g0;
      PWAVE_UNROLL
      for (int j = 1; j <= R; ++j) acc += c.d2z[j] * (col[r + R + j] + col[r + R - j]);
      if constexpr (Dim == 3) {
        acc += c.d2y[0] * g0;
        PWAVE_UNROLL
        for (int j = 1; j <= R; ++j) {
          acc += c.d2y[j] * (H::load(gr + j * p.ys) + H::load(gr - j * p.ys));
        }
      }
      T* o = p.gp + r * p.zs + i;
      const V old = H::load(o);
      const V next = T(2) * g0 - old + H::load(p.w + r * p.ws + i) * acc;
      store_strip_lanes<Partial, H>(o, next, lo);
    }
  }
#endif
};

}  // namespace pwave::physics
