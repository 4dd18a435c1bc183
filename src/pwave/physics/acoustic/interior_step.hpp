#pragma once
// The interior cell update of the constant-density acoustic scheme, away from the CPML
// (leapfrog in time, order-`Order` central differences in space):
//
//   u^{n+1} = 2 u^n - u^{n-1} + v^2 dt^2 (D2x u^n + D2z u^n [+ D2y u^n])
//
// cell by cell (GPUs) and in blocks of rows or lines (hosts); the CPML frame is cpml_step.hpp.

#include <algorithm>

#include "backends/host_vector.hpp"
#include "pwave/core/types.hpp"
#include "pwave/physics/acoustic/acoustic_state.hpp"
#include "pwave/physics/acoustic/scaled_stencil.hpp"

namespace pwave::physics {

// ---------------------------------------------------------------------------------------------
// Host row paths. GPU backends call operator() cell by cell; host backends call the row methods
// below (through backends/launch.hpp), which compute the same formulas, in the same order, on
// raw pointers. They are plain host functions, never compiled for a device.
//
// The vector types and prefetches they use are the host backend's (backends/host_vector.hpp).
namespace host = backend::host;

/// Interior update: no CPML term, so only u^n, u^{n-1} and v^2 dt^2 are touched (16 bytes per
/// cell in float32 when u^n rows stay in cache). Writes u^{n+1} over u^{n-1}. `Dim` 2 or 3; the
/// host row paths (rows/row) are 2D, the 3D host path is lines() (blocks of depths).
template <class T, int Order, int Dim = 2>
struct InteriorStep {
  static constexpr bool host_rows = true;   ///< promises row()/rows() (backends/launch.hpp)
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static constexpr int R = Stencil<Order>::radius;
  static constexpr int radius = R;
  using value_type = T;
  /// Rows the host path updates together: each u^n vector loaded serves up to 2R + 1 of them,
  /// which divides the load and cache traffic of the z taps by about block_rows / (2R + 1).
  static constexpr int block_rows = 8;
  /// Depths the 3D host path updates together. Fewer than block_rows: a 3D block also reads the
  /// y taps of 2R y lines per depth, and with few depths the lines the block of the previous y
  /// line loaded are still in L1/L2. Measured (AVX-512, 160^3, order 8): 1.23 Gcell/s with 4,
  /// 1.10-1.21 with 2, 3, 5 or 6, 0.98 with 8, 0.60 with 16; order 4 and 100^3 within 8 %.
  static constexpr int block_lines = 4;
  /// Rows rows_reverse_and_adjoint() updates together (two fields' z columns in registers).
  /// Measured (AVX-512, 2D 2000^2 order 8, boundary gradient): 4 as fast as 8 or faster.
  static constexpr int pair_rows = 4;
  static_assert(block_rows % pair_rows == 0, "block_rows is a multiple of pair_rows");
  Field<T> u_next;  // holds u^{n-1} on entry
  Field<T> u_cur;
  GridView<T> v2dt2;
  ScaledStencil<T, Order> c;
  int halo;
  int hy, ys, nx;  ///< y halo, column stride of y, padded nx (3D; hy = 0 in 2D)

  InteriorStep(const AcousticState<T>& st, const ScaledStencil<T, Order>& coef)
      : u_next(st.u_prev),
        u_cur(st.u_cur),
        v2dt2(st.v2dt2),
        c(coef),
        halo(st.halo),
        hy(st.hy),
        ys(st.ys),
        nx(st.nx) {}
  /// The same update on given fields: u_next (u^{n-1} on entry) is overwritten by u^{n+1}.
  InteriorStep(const Field<T>& next, const Field<T>& cur, const GridView<T>& w,
               const ScaledStencil<T, Order>& coef, int halo_, int hy_ = 0, int ys_ = 0,
               int nx_ = 0)
      : u_next(next), u_cur(cur), v2dt2(w), c(coef), halo(halo_), hy(hy_), ys(ys_), nx(nx_) {}

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const int z = iz + halo, x = (iy + hy) * ys + ix + halo;
    update(s, iz, iy, ix, ViewTaps<T, Field<T>>{u_cur, s, z, x, ys});
  }
  /// The cell update with u^n's taps taken from `t` (see ScaledStencil::laplacian_of):
  /// operator() reads them from u_cur, the z-marching launch (backends/z_march.hpp) from
  /// registers and team scratch.
  template <class Taps>
  KOKKOS_INLINE_FUNCTION void update(int s, int iz, int iy, int ix, const Taps& t) const {
    const int z = iz + halo, x = (iy + hy) * ys + ix + halo;
    u_next(s, z, x) = T(2) * t.center() - u_next(s, z, x) +
                      v2dt2(iz, iy * nx + ix) * c.template laplacian_of<Dim>(t);
  }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }

  /// 3D host path: cells [x0, x1) of the x lines (iz + r, iy), r < n (n <= block_lines), of
  /// shot s: the operator() formula on raw pointers, with every u^n vector of the z column loaded
  /// once for the z taps of all n lines. Launched with iy varying fastest, so the lines the y taps
  /// read (2R + 1 y lines of n + 2R depths) are still in cache from the neighbouring calls.
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    lines_impl<false>(s, iz, n, iy, x0, x1, Imaging{});
  }
  /// lines() with the imaging term of `g` added into `acc`, as rows_imaging() (3D).
  void lines_imaging(int s, int iz, int n, int iy, int x0, int x1, const Field<T>& g,
                     const Field<T>& acc) const {
    lines_impl<true>(s, iz, n, iy, x0, x1,
                     Imaging{&g(s, iz + halo, (iy + hy) * ys + halo), &acc(s, iz, iy * nx)});
  }

  /// Host path: cells [x0, x1) of rows [iz, iz + n) of shot s (n <= block_rows), prefetching
  /// the rows the next block [iz + n, iz + 2n) will stream in.
  void rows(int s, int iz, int n, int x0, int x1) const {
    rows_impl<false>(s, iz, n, x0, x1, Imaging{});
  }

  /// Where the reversed step of the boundary storage adds its imaging term: acc += g w D2 u at
  /// every updated cell. g has the wavefields' halo layout, acc the [shot][nz][ny nx] layout of
  /// v^2 dt^2.
  struct Imaging {
    const T* g = nullptr;  ///< at (shot, row iz, grid column 0)
    T* acc = nullptr;      ///< at (shot, row iz, grid column 0)
    /// The same for row (3D: depth) iz + r, given the z strides of g and acc; none stays none.
    Imaging below(int r, long zs, long vs) const {
      return g ? Imaging{g + r * zs, acc + r * vs} : *this;
    }
  };
  /// rows() with the imaging term of `g` added into `acc` (propagation::ReconstructImage): the
  /// reversed step u^{n-1} = 2 u^n - u^{n+1} + w D2 u^n is this same update.
  void rows_imaging(int s, int iz, int n, int x0, int x1, const Field<T>& g,
                    const Field<T>& acc) const {
    rows_impl<true>(s, iz, n, x0, x1, Imaging{&g(s, iz + halo, halo), &acc(s, iz, 0)});
  }

  /// Host path for one row (launch.hpp's generic row interface).
  void row(int s, int iz, int x0, int x1) const { rows(s, iz, 1, x0, x1); }

  /// rows_imaging() with `adjoint.u_cur` as its g (the reversed step of the boundary storage
  /// and its imaging term) and adjoint.rows() (this update on the adjoint fields), in one pass
  /// over rows [iz, iz + n): each vector of v^2 dt^2 and of G^{n+1} is loaded once for both.
  /// Neither update reads what the other writes; every cell gets the bits of the two calls.
  void rows_reverse_and_adjoint(int s, int iz, int n, int x0, int x1, const InteriorStep& adjoint,
                                const Field<T>& acc) const {
#ifdef PWAVE_HOST_VECTOR_EXT
    if (n == block_rows && x1 - x0 >= W) {
      const long zs = long(u_cur.stride(1)), vs = long(v2dt2.stride(0));
      for (int z = iz; z < iz + n; z += pair_rows) {
        const Pair p{&adjoint.u_cur(s, z + halo, halo), &adjoint.u_next(s, z + halo, halo),
                     &acc(s, z, 0)};
        pair_block<pair_rows>(&u_cur(s, z + halo, halo), &u_next(s, z + halo, halo), &v2dt2(z, 0),
                              zs, vs, x0, x1, p);
      }
      return;
    }
#endif
    rows_imaging(s, iz, n, x0, x1, adjoint.u_cur, acc);
    adjoint.rows(s, iz, n, x0, x1);
  }

 private:
  template <bool Image>
  void rows_impl(int s, int iz, int n, int x0, int x1, const Imaging& im) const {
    if (n <= 0 || x1 <= x0) return;
    const long zs = long(u_cur.stride(1)), vs = long(v2dt2.stride(0));
    const T* uc = &u_cur(s, iz + halo, halo);
    T* un = &u_next(s, iz + halo, halo);
    const T* vv = &v2dt2(iz, 0);
#ifdef PWAVE_HOST_VECTOR_EXT
    constexpr int W = host::Vec<T>::width;
    if (x1 - x0 >= W) {
      int r = 0;
      if (n == block_rows) {
        block<block_rows, Image>(uc, un, vv, zs, vs, x0, x1, next_block(s, iz, n, x0, x1), im);
        r = n;
      }
      const Prefetches none{{uc, nullptr, 0, 0}, {uc, nullptr, 0, 0}, {uc, nullptr, 0, 0}};
      for (; r < n; ++r) {
        block<1, Image>(uc + r * zs, un + r * zs, vv + r * vs, zs, vs, x0, x1, none,
                        im.below(r, zs, vs));
      }
      return;
    }
#endif
    for (int r = 0; r < n; ++r) {
      scalar_row<Image>(uc + r * zs, un + r * zs, vv + r * vs, zs, x0, x1, im.below(r, zs, vs));
    }
  }

  template <bool Image>
  void lines_impl(int s, int iz, int n, int iy, int x0, int x1, const Imaging& im) const {
    if (n <= 0 || x1 <= x0) return;
    const long zs = long(u_cur.stride(1)), vs = long(v2dt2.stride(0));
    const T* uc = &u_cur(s, iz + halo, (iy + hy) * ys + halo);
    T* un = &u_next(s, iz + halo, (iy + hy) * ys + halo);
    const T* vv = &v2dt2(iz, iy * nx);
#ifdef PWAVE_HOST_VECTOR_EXT
    if (x1 - x0 >= W) {
      const Lines3 p{zs, long(ys), vs, long(nx)};
      if (n == block_lines) {
        block_3d<block_lines, Image>(uc, un, vv, p, x0, x1, im);
      } else {
        for (int r = 0; r < n; ++r) {
          block_3d<1, Image>(uc + r * zs, un + r * zs, vv + r * vs, p, x0, x1, im.below(r, zs, vs));
        }
      }
      return;
    }
#endif
    for (int r = 0; r < n; ++r) {
      scalar_row<Image, Dim>(uc + r * zs, un + r * zs, vv + r * vs, zs, x0, x1, im.below(r, zs, vs),
                             ys);
    }
  }

  /// The update of one row on raw pointers (row-relative, x index 0 = first grid column).
  /// 3D (LineDim 3): one x line, `ys` the stride of a y step.
  template <bool Image, int LineDim = 2>
  void scalar_row(const T* PWAVE_RESTRICT uc, T* PWAVE_RESTRICT un, const T* PWAVE_RESTRICT vv,
                  long zs, int x0, int x1, const Imaging& im, long ys_ = 0) const {
    const T* PWAVE_RESTRICT g = im.g;
    T* PWAVE_RESTRICT acc = im.acc;
    PWAVE_SIMD
    for (int ix = x0; ix < x1; ++ix) {
      const T wlap = vv[ix] * c.template laplacian_at<LineDim>(uc + ix, zs, ys_);
      un[ix] = T(2) * uc[ix] - un[ix] + wlap;
      if constexpr (Image) acc[ix] += g[ix] * wlap;
    }
  }

#ifdef PWAVE_HOST_VECTOR_EXT
  using V = typename host::Vec<T>::type;
  static constexpr int W = host::Vec<T>::width;
  static constexpr int prefetch_ahead = 4;  ///< vectors

  /// The three regions the next block reads for the first time: its new u^n rows (the lower
  /// z taps), its u^{n-1} rows and its v^2 dt^2 rows, clipped to the arrays.
  struct Prefetches {
    host::RegionPrefetch<false> u, v;
    host::RegionPrefetch<true> un;
  };

  Prefetches next_block(int s, int iz, int n, int x0, int x1) const {
    const int fz = int(u_cur.extent(1)), nz = int(v2dt2.extent(0));
    const long iterations = (x1 - x0) / W;
    const long zs = long(u_cur.stride(1)), vs = long(v2dt2.stride(0)), bytes = long(sizeof(T));
    const int zu = iz + n + halo + R, zn = iz + n + halo, zv = iz + n;
    const int ru = std::min(n, fz - zu), rn = std::min(n, fz - zn), rv = std::min(n, nz - zv);
    const T* here = &u_cur(s, iz + halo, halo);
    return {{here, ru > 0 ? &u_cur(s, zu, 0) : nullptr, ru * zs * bytes, iterations},
            {here, rv > 0 ? &v2dt2(zv, 0) : nullptr, rv * vs * bytes, iterations},
            {here, rn > 0 ? &u_next(s, zn, 0) : nullptr, rn * zs * bytes, iterations}};
  }

  /// The stencil coefficients broadcast to vectors, once per block.
  struct Coef {
    V c0, two, cz[R + 1], cx[R + 1], cy[R + 1];
    explicit Coef(const ScaledStencil<T, Order>& c) {
      using H = host::Vec<T>;
      T c00 = c.d2z[0] + c.d2x[0];  // as laplacian_of: the y term added last
      if constexpr (Dim == 3) c00 += c.d2y[0];
      c0 = H::splat(c00);
      two = H::splat(T(2));
      for (int j = 0; j <= R; ++j) {
        cz[j] = H::splat(c.d2z[j]), cx[j] = H::splat(c.d2x[j]), cy[j] = H::splat(c.d2y[j]);
      }
    }
  };

  /// NR rows at once over [x0, x1) (x1 - x0 >= W): vectors aligned on u^n, with one unaligned
  /// vector at each end that stores only the lanes the aligned ones do not cover.
  template <int NR, bool Image>
  void block(const T* uc, T* un, const T* vv, long zs, long vs, int x0, int x1,
             const Prefetches& pf, const Imaging& im) const {
    const Coef k(c);
    long it = 0;  // aligned vectors done
    host::for_each_vector<host::Vec<T>>(uc, x0, x1, [&](int ix, int lo, int hi, auto partial) {
      constexpr bool edge = decltype(partial)::value;
      if constexpr (!edge) {
        // The lines this block reads for the first time (its new u^n rows, u^{n-1}, v^2 dt^2):
        // a few vectors ahead, and linearly over the whole next block, which together keep
        // about twice the traffic in flight that the hardware prefetchers alone manage.
        const int px = std::min(ix + prefetch_ahead * W, x1 - W);
        PWAVE_UNROLL
        for (int r = 0; r < NR; ++r) {
          __builtin_prefetch(uc + (R + r) * zs + px, 0, 3);
          __builtin_prefetch(un + r * zs + px, 1, 3);
          __builtin_prefetch(vv + r * vs + px, 0, 3);
          if constexpr (Image) {
            __builtin_prefetch(im.g + r * zs + px, 0, 3);
            __builtin_prefetch(im.acc + r * vs + px, 1, 3);
          }
        }
        pf.u.template touch<NR>(it);
        pf.un.template touch<NR>(it);
        pf.v.template touch<NR>(it);
        ++it;
      }
      vec<NR, edge, Image>(k, uc, un, vv, zs, 0, vs, ix, lo, hi, im);
    });
  }

  /// Strides of the 3D host path: a z step and a y step of the wavefields, a z step and a y step
  /// of v^2 dt^2.
  struct Lines3 {
    long zs, ys, vs, vy;
  };

  /// NR lines (iz + r, iy) at once over [x0, x1) (x1 - x0 >= W), aligned as block(). The
  /// next call is line iy + 1 of the same depths: its new streams (the u^n line iy + 1 + R of
  /// the z column, u^{n-1} and v^2 dt^2 of its lines) are prefetched at the vector this call
  /// computes, a whole line ahead of their use. With Image, adds the imaging term as block().
  template <int NR, bool Image>
  void block_3d(const T* uc, T* un, const T* vv, const Lines3& p, int x0, int x1,
                const Imaging& im) const {
    const Coef k(c);
    const long zs = p.zs, ys = p.ys, vs = p.vs;
    const T* nu = uc + (R + 1) * ys;
    T* nn = un + ys;
    const T* nv = vv + p.vy;
    host::for_each_vector<host::Vec<T>>(uc, x0, x1, [&](int ix, int lo, int hi, auto partial) {
      constexpr bool edge = decltype(partial)::value;
      if constexpr (!edge) {
        PWAVE_UNROLL
        for (int q = -R; q < NR + R; ++q) __builtin_prefetch(nu + q * zs + ix, 0, 3);
        PWAVE_UNROLL
        for (int r = 0; r < NR; ++r) {
          __builtin_prefetch(nn + r * zs + ix, 1, 3);
          __builtin_prefetch(nv + r * vs + ix, 0, 3);
          if constexpr (Image) {
            __builtin_prefetch(im.g + ys + r * zs + ix, 0, 3);
            __builtin_prefetch(im.acc + p.vy + r * vs + ix, 1, 3);
          }
        }
      }
      vec<NR, edge, Image>(k, uc, un, vv, zs, ys, vs, ix, lo, hi, im);
    });
  }

  /// The Laplacian (laplacian_of's order) of the W cells at `u`, given the vectors of their z
  /// column from R above to R below (`col`, loaded once per block of rows). `ys`: 3D only.
  PWAVE_HOST_INLINE static V row_laplacian(const Coef& k, const V* col, const T* u, long ys) {
    using H = host::Vec<T>;
    V lap = k.c0 * col[R];
    PWAVE_UNROLL
    for (int j = 1; j <= R; ++j) {
      lap += k.cz[j] * (col[R + j] + col[R - j]) + k.cx[j] * (H::load(u + j) + H::load(u - j));
      if constexpr (Dim == 3) lap += k.cy[j] * (H::load(u + j * ys) + H::load(u - j * ys));
    }
    return lap;
  }

  /// What rows_reverse_and_adjoint() adds to a block of the reversed step: the adjoint fields
  /// G^{n+1} (read; also the imaging's g) and G^{n+2} (overwritten by G^n) and the imaging
  /// accumulator, at (shot, first row, grid column 0) as in Imaging.
  struct Pair {
    const T* gc;
    T* gn;
    T* acc;
  };

  /// block<NR, true>() (the reversed step with its imaging, on this functor's fields) and
  /// block<NR, false>() on the adjoint fields of `p`, over the same vectors.
  template <int NR>
  void pair_block(const T* uc, T* un, const T* vv, long zs, long vs, int x0, int x1,
                  const Pair& p) const {
    const Coef k(c);
    host::for_each_vector<host::Vec<T>>(uc, x0, x1, [&](int ix, int lo, int hi, auto partial) {
      constexpr bool edge = decltype(partial)::value;
      if constexpr (!edge) {
        const int px = std::min(ix + prefetch_ahead * W, x1 - W);
        PWAVE_UNROLL
        for (int r = 0; r < NR; ++r) {
          __builtin_prefetch(uc + (R + r) * zs + px, 0, 3);
          __builtin_prefetch(p.gc + (R + r) * zs + px, 0, 3);
          __builtin_prefetch(un + r * zs + px, 1, 3);
          __builtin_prefetch(p.gn + r * zs + px, 1, 3);
          __builtin_prefetch(vv + r * vs + px, 0, 3);
          __builtin_prefetch(p.acc + r * vs + px, 1, 3);
        }
      }
      pair_vec<NR, edge>(k, uc, un, vv, zs, vs, ix, lo, hi, p);
    });
  }

  /// Cells [ix, ix + W) of NR rows of both updates (pair_block()); with Partial, stores lanes
  /// [lo, hi) only. The arithmetic of vec<NR, Partial, true> on u and vec<NR, Partial, false>
  /// on G, cell by cell.
  template <int NR, bool Partial>
  PWAVE_HOST_INLINE void pair_vec(const Coef& k, const T* PWAVE_RESTRICT uc, T* PWAVE_RESTRICT un,
                                  const T* PWAVE_RESTRICT vv, long zs, long vs, int ix, int lo,
                                  int hi, const Pair& p) const {
    using H = host::Vec<T>;
    const T* PWAVE_RESTRICT gc = p.gc;
    T* PWAVE_RESTRICT gn = p.gn;
    T* PWAVE_RESTRICT acc = p.acc;
    V cu[NR + 2 * R], cg[NR + 2 * R];
    PWAVE_UNROLL
    for (int q = 0; q < NR + 2 * R; ++q) {
      cu[q] = H::load(uc + (q - R) * zs + ix);
      cg[q] = H::load(gc + (q - R) * zs + ix);
    }
    const auto put = [lo, hi](T* o, const V& old, const V& v) {
      H::store(o, Partial ? H::lanes_from(hi, old, H::lanes_from(lo, v, old)) : v);
    };
    PWAVE_UNROLL
    for (int r = 0; r < NR; ++r) {
      const V w = H::load(vv + r * vs + ix);
      const V wlap = w * row_laplacian(k, cu + r, uc + r * zs + ix, 0);
      T* ou = un + r * zs + ix;
      const V old_u = H::load(ou);
      put(ou, old_u, k.two * cu[r + R] - old_u + wlap);
      T* a = acc + r * vs + ix;
      const V before = H::load(a);
      put(a, before, before + cg[r + R] * wlap);
      T* og = gn + r * zs + ix;
      const V old_g = H::load(og);
      put(og, old_g, k.two * cg[r + R] - old_g + w * row_laplacian(k, cg + r, gc + r * zs + ix, 0));
    }
  }

  /// Cells [ix, ix + W) of NR rows (3D: NR lines of successive depths); with Partial, stores
  /// lanes [lo, hi) only. `ys` is the stride of a y step (3D only). With Image, also adds
  /// g w D2 u into acc.
  template <int NR, bool Partial, bool Image>
  PWAVE_HOST_INLINE void vec(const Coef& k, const T* PWAVE_RESTRICT uc, T* PWAVE_RESTRICT un,
                             const T* PWAVE_RESTRICT vv, long zs, long ys, long vs, int ix, int lo,
                             int hi, const Imaging& im) const {
    using H = host::Vec<T>;
    V col[NR + 2 * R];
    PWAVE_UNROLL
    for (int q = 0; q < NR + 2 * R; ++q) col[q] = H::load(uc + (q - R) * zs + ix);
    PWAVE_UNROLL
    for (int r = 0; r < NR; ++r) {
      const V lap = row_laplacian(k, col + r, uc + r * zs + ix, ys);
      T* o = un + r * zs + ix;
      const V old = H::load(o);
      const V wlap = H::load(vv + r * vs + ix) * lap;
      const V next = k.two * col[r + R] - old + wlap;
      if (Partial) {  // lanes [lo, hi) only: the others keep what memory holds
        H::store(o, H::lanes_from(hi, old, H::lanes_from(lo, next, old)));
      } else {
        H::store(o, next);
      }
      if constexpr (Image) {
        T* a = im.acc + r * vs + ix;
        const V before = H::load(a);
        const V sum = before + H::load(im.g + r * zs + ix) * wlap;
        H::store(a, Partial ? H::lanes_from(hi, before, H::lanes_from(lo, sum, before)) : sum);
      }
    }
  }
#endif
};

}  // namespace pwave::physics
