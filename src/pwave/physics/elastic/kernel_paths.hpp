#pragma once
// How an elastic kernel's apply() is run (kernels.hpp): at one point (the GPU and cell-wise
// paths), or along host x lines in vectors, one depth or a block of depths at a time.

#include <type_traits>

#include "pwave/physics/elastic/accessors.hpp"

namespace pwave::physics::elastic {

/// LineAccess and DepthsAccess of the host vectors by their Tail flag alone: host_vectors' Access.
template <class T, int Order>
struct LineVectors {
  template <bool Tail>
  using type = LineAccess<backend::host::Native<T>, T, Order, Tail>;
};
template <class T, int Order, int NB>
struct DepthVectors {
  template <bool Tail>
  using type = DepthsAccess<backend::host::Native<T>, T, Order, NB, Tail>;
};

/// k.apply() along the x line(s) starting at (s, iz, iy) from x0 to x1 (at least a vector long)
/// through accessors Access<Tail>: whole vectors, the last one overlapping the one before it (a
/// Tail). `st` gives the layout, `c` the coefficients (broadcast once per call).
template <template <bool> class Access, class K, class T, int Order>
void host_vectors(const K& k, const State<T>& st, const Coefficients<T, Order>& c, int s, int iz,
                  int iy, int x0, int x1) {
  using H = backend::host::Native<T>;
  using V = typename H::type;
  constexpr int R = StaggeredStencil<Order>::radius, W = H::width;
  V cx[R + 1], cz[R + 1], cy[R + 1];
  for (int j = 0; j <= R; ++j)
    cx[j] = H::splat(c.x[j]), cz[j] = H::splat(c.z[j]), cy[j] = H::splat(c.y[j]);
  const long zs = long(st.vx.stride(1));
  int ix = x0;
  for (; ix + W <= x1; ix += W) {
    k.apply(Access<false>{st, cx, cz, cy, zs, st.point(s, iz, iy, ix), 0});
  }
  if (ix < x1) {
    k.apply(Access<true>{st, cx, cz, cy, zs, st.point(s, iz, iy, x1 - W), ix - (x1 - W)});
  }
}

/// Host line path of kernel k (its apply(), its cell operator()): the x line (s, iz, iy) from x0
/// to x1 in LineAccess vectors (host_vectors); a line shorter than a vector cell by cell.
template <class K, class T, int Order>
void host_line(const K& k, const State<T>& st, const Coefficients<T, Order>& c, int s, int iz,
               int iy, int x0, int x1) {
  if (x1 - x0 < backend::host::Native<T>::width) {
    for (int ix = x0; ix < x1; ++ix) k(s, iz, iy, ix);
    return;
  }
  host_vectors<LineVectors<T, Order>::template type>(k, st, c, s, iz, iy, x0, x1);
}

/// Host path of kernel k over the NB x lines (s, iz + b, iy), b < n, from x0 to x1: n = NB lines
/// in DepthsAccess vectors (host_vectors), fewer, or a line shorter than a vector, line by line
/// (host_line).
template <int NB, class K, class T, int Order>
void host_depth_lines(const K& k, const State<T>& st, const Coefficients<T, Order>& c, int s,
                      int iz, int n, int iy, int x0, int x1) {
  if (n < NB || x1 - x0 < backend::host::Native<T>::width) {
    for (int b = 0; b < n; ++b) host_line(k, st, c, s, iz + b, iy, x0, x1);
    return;
  }
  host_vectors<DepthVectors<T, Order, NB>::template type>(k, st, c, s, iz, iy, x0, x1);
}

/// What every elastic kernel's entry points share (CRTP): K states its arithmetic once, in
/// `template <class At> apply(const At&)`, names the state that gives the layout (`grid()`) and
/// holds its coefficients `c`; this base runs apply() at one point (operator(): GPUs, the
/// cell-wise build, 2D launches as iy = 0) or along a host x line (line()). A kernel derived
/// from it is built as K{{}, members...} (the base comes first in aggregate initialisation).
struct PointwiseKernelTag {};
template <class K, class T, int Order>
struct PointwiseKernel : PointwiseKernelTag {
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const K& k = static_cast<const K&>(*this);
    const State<T>& g = k.grid();
    k.apply(CellAccess<T, Order>{g, k.c, g.point(s, iz, iy, ix)});
  }
  void line(int s, int iz, int iy, int x0, int x1) const {
    const K& k = static_cast<const K&>(*this);
    host_line(k, k.grid(), k.c, s, iz, iy, x0, x1);
  }
};

/// PointwiseKernel with a host path over blocks of `Depth` depths of an x line (lines(),
/// block_lines: backends/launch.hpp), DepthsAccess's: the forward updates, whose z stencils
/// share their rows across depths.
template <class K, class T, int Order, int Depth>
struct DepthBlockedKernel : PointwiseKernel<K, T, Order> {
  static constexpr int block_lines = Depth;
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    const K& k = static_cast<const K&>(*this);
    host_depth_lines<Depth>(k, k.grid(), k.c, s, iz, n, iy, x0, x1);
  }
};

/// The depths per block of the forward updates' host lines (DepthsAccess): 4 in 2D (bench/
/// README, "The 2D elastic updates four rows at a time"); one in 3D, where blocks of 2 and 4
/// depths ran slower (three components of every sum per depth).
template <int Dim>
inline constexpr int host_depths = Dim == 2 ? 4 : 1;

/// The base of kernel K: DepthBlockedKernel with `Depth` depths per block, PointwiseKernel for
/// one.
template <class K, class T, int Order, int Depth>
using DepthKernel = std::conditional_t<(Depth > 1), DepthBlockedKernel<K, T, Order, Depth>,
                                       PointwiseKernel<K, T, Order>>;

}  // namespace pwave::physics::elastic
