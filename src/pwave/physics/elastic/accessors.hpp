#pragma once
// How an elastic kernel reads and writes: the accessors its apply() is written against
// (kernels.hpp).

#include "backends/host_vector.hpp"
#include "pwave/physics/elastic/state.hpp"

namespace pwave::physics::elastic {

// Accessors. A kernel states its arithmetic once, in apply(at), for an accessor `at` that reads
// and writes either one point (CellAccess: operator(), the GPU and cell-wise paths) or the W
// consecutive x points [i, i + W) of an x line as host vectors (LineAccess: line(), the host
// paths). Value is T or the host vector; every field, memory variable and x profile is
// contiguous along an x line of a strip box, so the vector loads are plain loads.

/// D+ or D- (`Plus`) of radius R with coefficients k of the values tap(j) at offsets j.
template <int R, bool Plus, class V, class Tap>
KOKKOS_FORCEINLINE_FUNCTION V staggered(const V* k, const Tap& tap) {
  if constexpr (Plus) {
    return acoustic_vd::d_plus<R>(k, tap);
  } else {
    return acoustic_vd::d_minus<R>(k, tap);
  }
}

/// Stores host vector v at `at`; a `Tail` vector (the last of a line, overlapping the one before
/// it) only its lanes [lo, W): the others keep what that vector wrote.
template <class H, bool Tail, class T>
PWAVE_HOST_INLINE void put_lanes(T* at, typename H::type v, int lo) {
  if constexpr (Tail) v = H::lanes_from(lo, v, H::load(at));
  H::store(at, v);
}

/// One point p.
template <class T, int Order>
struct CellAccess {
  using Value = T;
  static constexpr int R = StaggeredStencil<Order>::radius;
  const State<T>& st;
  const Coefficients<T, Order>& c;
  Point p;

  KOKKOS_FORCEINLINE_FUNCTION T load(const Field<T>& f) const { return f(p.s, p.z, p.x); }
  KOKKOS_FORCEINLINE_FUNCTION void store(const Field<T>& f, T v) const { f(p.s, p.z, p.x) = v; }
  /// A [nz][ny nx] coefficient array at p's cell.
  KOKKOS_FORCEINLINE_FUNCTION T coefficient(const GridView<T>& g) const { return g(p.iz, p.q); }
  /// A [shot][nz][ny nx] (halo-free) field at p: kept update terms.
  KOKKOS_FORCEINLINE_FUNCTION T load_halo_free(const Field<T>& f) const {
    return f(p.s, p.iz, p.q);
  }
  KOKKOS_FORCEINLINE_FUNCTION void store_halo_free(const Field<T>& f, T v) const {
    f(p.s, p.iz, p.q) = v;
  }
  /// image(s, iz, q) += v: a [shot][nz][ny nx] image.
  KOKKOS_FORCEINLINE_FUNCTION void add_image(const Field<T>& image, T v) const {
    image(p.s, p.iz, p.q) += v;
  }
  /// The staggered coefficients along Axis.
  template <int Axis>
  KOKKOS_FORCEINLINE_FUNCTION const T* coefficients() const {
    return Axis == X ? c.x : Axis == Y ? c.y : c.z;
  }
  /// This accessor at the point j cells along Axis (derivative_of()'s taps).
  template <int Axis>
  KOKKOS_FORCEINLINE_FUNCTION CellAccess moved(int j) const {
    return CellAccess{st, c, st.template moved<Axis>(p, j)};
  }
  /// derivative_of(): value(at') at each tap's point.
  template <int Axis, bool Plus, class F>
  KOKKOS_FORCEINLINE_FUNCTION T derivative_of(const F& value) const {
    return staggered<R, Plus>(coefficients<Axis>(), [&](int j) { return value(moved<Axis>(j)); });
  }
  /// The staggered derivative of f along Axis at p, D+ or D-, without the CPML term.
  template <int Axis, bool Plus>
  KOKKOS_FORCEINLINE_FUNCTION T stencil(const Field<T>& f) const {
    const T* k = coefficients<Axis>();
    const auto at = [&](int j) -> T {
      if constexpr (Axis == X) return f(p.s, p.z, p.x + j);
      if constexpr (Axis == Y) return f(p.s, p.z, p.x + j * st.ys);
      return f(p.s, p.z + j, p.x);
    };
    if constexpr (Plus) {
      return acoustic_vd::d_plus<R>(k, at);
    } else {
      return acoustic_vd::d_minus<R>(k, at);
    }
  }
  template <int Axis>
  KOKKOS_FORCEINLINE_FUNCTION T load_memory(const Field<T>& memory) const {
    return memory_at<Axis>(st, memory, p);
  }
  template <int Axis>
  KOKKOS_FORCEINLINE_FUNCTION void store_memory(const Field<T>& memory, T v) const {
    memory_at<Axis>(st, memory, p) = v;
  }
  /// The CPML profile's a and b at p for a derivative along Axis (D+: the half points').
  template <int Axis, bool Plus>
  KOKKOS_FORCEINLINE_FUNCTION T profile_a() const {
    return profile_of<Axis, Plus>(st).a(position<Axis>(p));
  }
  template <int Axis, bool Plus>
  KOKKOS_FORCEINLINE_FUNCTION T profile_b() const {
    return profile_of<Axis, Plus>(st).b(position<Axis>(p));
  }
};

/// The W points [i, i + W) of the x line (s, iz, iy), W = H::width (host paths only). `Tail`:
/// the line's last vector, overlapping the one before it: only lanes [lo, W) are written (the
/// others were, by that vector; their values here are discarded).
template <class H, class T, int Order, bool Tail = false>
struct LineAccess {
  using Value = typename H::type;
  static constexpr int R = StaggeredStencil<Order>::radius;
  const State<T>& st;
  const Value* cx;  ///< the coefficients, broadcast
  const Value* cz;
  const Value* cy;
  long zs;  ///< elements between rows
  Point p;  ///< the first point
  int lo;   ///< Tail: the first lane written

  PWAVE_HOST_INLINE void put(T* at, Value v) const { put_lanes<H, Tail>(at, v, lo); }
  PWAVE_HOST_INLINE Value load(const Field<T>& f) const { return H::load(&f(p.s, p.z, p.x)); }
  PWAVE_HOST_INLINE void store(const Field<T>& f, Value v) const { put(&f(p.s, p.z, p.x), v); }
  PWAVE_HOST_INLINE Value coefficient(const GridView<T>& g) const { return H::load(&g(p.iz, p.q)); }
  PWAVE_HOST_INLINE Value load_halo_free(const Field<T>& f) const {
    return H::load(&f(p.s, p.iz, p.q));
  }
  PWAVE_HOST_INLINE void store_halo_free(const Field<T>& f, Value v) const {
    put(&f(p.s, p.iz, p.q), v);
  }
  PWAVE_HOST_INLINE void add_image(const Field<T>& image, Value v) const {
    T* const at = &image(p.s, p.iz, p.q);
    put(at, H::load(at) + v);
  }
  template <int Axis>
  PWAVE_HOST_INLINE const Value* coefficients() const {
    return Axis == X ? cx : Axis == Y ? cy : cz;
  }
  /// These W points moved j cells along Axis (derivative_of()'s taps; loads only).
  template <int Axis>
  PWAVE_HOST_INLINE LineAccess moved(int j) const {
    LineAccess a = *this;
    a.p = st.template moved<Axis>(p, j);
    return a;
  }
  /// derivative_of(): along x, value() of the vectors W points before, at and after these
  /// (loads only: the rows around a point of the inline box are in the arrays), each tap's
  /// vector shifted out of them (the same lanes' values, three computations instead of 2R);
  /// along y and z value(at') at each tap's W points.
  template <int Axis, bool Plus, class F>
  PWAVE_HOST_INLINE Value derivative_of(const F& value) const {
    constexpr int W = H::width;
    if constexpr (Axis == X && W > 1 && W >= R) {
      const Value before = value(moved<X>(-W)), here = value(*this), after = value(moved<X>(W));
      return staggered<R, Plus>(coefficients<X>(), [&](int j) {
        return j < 0 ? H::shifted(W + j, before, here) : H::shifted(j, here, after);
      });
    } else {
      return staggered<R, Plus>(coefficients<Axis>(), [&](int j) { return value(moved<Axis>(j)); });
    }
  }
  template <int Axis, bool Plus>
  PWAVE_HOST_INLINE Value stencil(const Field<T>& f) const {
    const T* u = &f(p.s, p.z, p.x);
    const long step = Axis == X ? 1 : Axis == Y ? st.ys : zs;
    return staggered<R, Plus>(coefficients<Axis>(), [&](int j) { return H::load(u + j * step); });
  }
  template <int Axis>
  PWAVE_HOST_INLINE Value load_memory(const Field<T>& memory) const {
    return H::load(&memory_at<Axis>(st, memory, p));
  }
  template <int Axis>
  PWAVE_HOST_INLINE void store_memory(const Field<T>& memory, Value v) const {
    put(&memory_at<Axis>(st, memory, p), v);
  }
  /// x: the profile varies along the line; y, z: the line's value.
  template <int Axis, bool Plus>
  PWAVE_HOST_INLINE Value profile_a() const {
    const CpmlAxis<T>& profile = profile_of<Axis, Plus>(st);
    if constexpr (Axis == X) return H::load(&profile.a(p.ix));
    return H::splat(profile.a(position<Axis>(p)));
  }
  template <int Axis, bool Plus>
  PWAVE_HOST_INLINE Value profile_b() const {
    const CpmlAxis<T>& profile = profile_of<Axis, Plus>(st);
    if constexpr (Axis == X) return H::load(&profile.b(p.ix));
    return H::splat(profile.b(position<Axis>(p)));
  }
};

/// The values of NB consecutive depths (x lines (iz + b, iy), b < NB) at the W points of a host
/// x line: DepthsAccess's Value. Each operation is the host vector's, depth by depth, so that a
/// kernel's apply() computes at every depth exactly what it computes on one line.
template <class V, int NB>
struct Depths {
  V d[NB];
};
template <class V, int NB>
PWAVE_HOST_INLINE Depths<V, NB> operator+(const Depths<V, NB>& a, const Depths<V, NB>& b) {
  Depths<V, NB> r;
  for (int i = 0; i < NB; ++i) r.d[i] = a.d[i] + b.d[i];
  return r;
}
template <class V, int NB>
PWAVE_HOST_INLINE Depths<V, NB> operator-(const Depths<V, NB>& a, const Depths<V, NB>& b) {
  Depths<V, NB> r;
  for (int i = 0; i < NB; ++i) r.d[i] = a.d[i] - b.d[i];
  return r;
}
template <class V, int NB>
PWAVE_HOST_INLINE Depths<V, NB> operator*(const Depths<V, NB>& a, const Depths<V, NB>& b) {
  Depths<V, NB> r;
  for (int i = 0; i < NB; ++i) r.d[i] = a.d[i] * b.d[i];
  return r;
}
template <class V, int NB>
PWAVE_HOST_INLINE Depths<V, NB>& operator+=(Depths<V, NB>& a, const Depths<V, NB>& b) {
  for (int i = 0; i < NB; ++i) a.d[i] += b.d[i];
  return a;
}

/// The W points [i, i + W) of the NB x lines (s, iz + b, iy), b < NB, at once (host paths only):
/// LineAccess at every depth, but a z stencil loads each of the NB + 2R - 1 rows its NB depths
/// tap once, for all of them, where the depths one by one load 2R rows each (order 8, NB = 4:
/// 11 loads instead of 32). `Tail` as LineAccess's.
template <class H, class T, int Order, int NB, bool Tail = false>
struct DepthsAccess {
  using Vector = typename H::type;
  using Value = Depths<Vector, NB>;
  static constexpr int R = StaggeredStencil<Order>::radius;
  const State<T>& st;
  const Vector* cx;  ///< the coefficients, broadcast
  const Vector* cz;
  const Vector* cy;
  long zs;  ///< elements between rows of the wavefields
  Point p;  ///< the first point, at the first depth
  int lo;   ///< Tail: the first lane written

  PWAVE_HOST_INLINE void put(T* at, Vector v) const { put_lanes<H, Tail>(at, v, lo); }
  /// The NB vectors at `at` + b `stride`.
  PWAVE_HOST_INLINE Value load_at(const T* at, long stride) const {
    Value r;
    for (int b = 0; b < NB; ++b) r.d[b] = H::load(at + b * stride);
    return r;
  }
  PWAVE_HOST_INLINE void put_at(T* at, long stride, const Value& v) const {
    for (int b = 0; b < NB; ++b) put(at + b * stride, v.d[b]);
  }
  PWAVE_HOST_INLINE Value load(const Field<T>& f) const { return load_at(&f(p.s, p.z, p.x), zs); }
  PWAVE_HOST_INLINE void store(const Field<T>& f, const Value& v) const {
    put_at(&f(p.s, p.z, p.x), zs, v);
  }
  PWAVE_HOST_INLINE Value coefficient(const GridView<T>& g) const {
    return load_at(&g(p.iz, p.q), long(g.stride(0)));
  }
  PWAVE_HOST_INLINE Value load_halo_free(const Field<T>& f) const {
    return load_at(&f(p.s, p.iz, p.q), long(f.stride(1)));
  }
  PWAVE_HOST_INLINE void store_halo_free(const Field<T>& f, const Value& v) const {
    put_at(&f(p.s, p.iz, p.q), long(f.stride(1)), v);
  }
  template <int Axis>
  PWAVE_HOST_INLINE const Vector* coefficients() const {
    return Axis == X ? cx : Axis == Y ? cy : cz;
  }
  /// LineAccess::stencil at each depth; along z from the rows loaded once.
  template <int Axis, bool Plus>
  PWAVE_HOST_INLINE Value stencil(const Field<T>& f) const {
    if constexpr (Axis == Z) {
      const T* u = &f(p.s, p.z, p.x);
      return z_from_rows<Plus>([&](int j) { return H::load(u + j * zs); });
    } else {
      Value r;
      for (int b = 0; b < NB; ++b) r.d[b] = line(b).template stencil<Axis, Plus>(f);
      return r;
    }
  }
  /// The LineAccess of depth b.
  PWAVE_HOST_INLINE LineAccess<H, T, Order, Tail> line(int b) const {
    return LineAccess<H, T, Order, Tail>{st, cx, cz, cy, zs, st.template moved<Z>(p, b), lo};
  }
  /// derivative_of(): LineAccess's at each depth; along z from value() of each of the
  /// NB + 2R - 1 rows the depths tap, computed once for all of them (the inline gathers).
  template <int Axis, bool Plus, class F>
  PWAVE_HOST_INLINE Value derivative_of(const F& value) const {
    if constexpr (Axis == Z) {
      return z_from_rows<Plus>([&](int j) { return value(line(0).template moved<Z>(j)); });
    } else {
      Value r;
      for (int b = 0; b < NB; ++b) r.d[b] = line(b).template derivative_of<Axis, Plus>(value);
      return r;
    }
  }
  template <int Axis>
  PWAVE_HOST_INLINE Value load_memory(const Field<T>& memory) const {
    Value r;
    for (int b = 0; b < NB; ++b) {
      r.d[b] = H::load(&memory_at<Axis>(st, memory, st.template moved<Z>(p, b)));
    }
    return r;
  }
  template <int Axis>
  PWAVE_HOST_INLINE void store_memory(const Field<T>& memory, const Value& v) const {
    for (int b = 0; b < NB; ++b)
      put(&memory_at<Axis>(st, memory, st.template moved<Z>(p, b)), v.d[b]);
  }
  /// x: the profile varies along the line (the same at every depth); y: the line's value; z:
  /// each depth's.
  template <int Axis, bool Plus>
  PWAVE_HOST_INLINE Value profile_a() const {
    return profile<Axis>(profile_of<Axis, Plus>(st).a);
  }
  template <int Axis, bool Plus>
  PWAVE_HOST_INLINE Value profile_b() const {
    return profile<Axis>(profile_of<Axis, Plus>(st).b);
  }
  template <int Axis, class P>
  PWAVE_HOST_INLINE Value profile(const P& values) const {
    Value r;
    for (int b = 0; b < NB; ++b) {
      if constexpr (Axis == X) {
        r.d[b] = H::load(&values(p.ix));
      } else if constexpr (Axis == Y) {
        r.d[b] = H::splat(values(p.iy));
      } else {
        r.d[b] = H::splat(values(p.iz + b));
      }
    }
    return r;
  }

 private:
  /// The z derivative (D+ or D-) at each depth from the rows its NB depths tap, row_at(j)
  /// giving row j relative to the first depth, each called once: D+ taps rows [1 - R, R] of a
  /// depth, D- rows [-R, R - 1], so NB + 2R - 1 rows in all.
  template <bool Plus, class Row>
  PWAVE_HOST_INLINE Value z_from_rows(const Row& row_at) const {
    constexpr int first = Plus ? 1 - R : -R, rows = NB + 2 * R - 1;
    Vector row[rows];
    for (int i = 0; i < rows; ++i) row[i] = row_at(first + i);
    Value r;
    for (int b = 0; b < NB; ++b) {
      r.d[b] = staggered<R, Plus>(coefficients<Z>(), [&](int j) { return row[b + j - first]; });
    }
    return r;
  }
};

}  // namespace pwave::physics::elastic
