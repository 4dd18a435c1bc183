#pragma once
// Isotropic elastic equation, velocity-stress form on a staggered grid (Virieux 1986 for P-SV,
// Levander 1988 for the higher orders, Graves 1996 in 3D):
//
//   rho dv_i/dt     = sum_j d sigma_ij / dx_j + f_i(t) delta(x - x_s)
//   d sigma_ij / dt = lambda div(v) delta_ij + mu (dv_i/dx_j + dv_j/dx_i)
//                     + m(t) delta_ij delta(x - x_s)
//
// Where each field lives. Index (iz, [iy,] ix) of every field is cell (iz, iy, ix) of the padded
// grid, its value taken half a cell further along some axes (acoustic_vd's convention: index j
// of a half-point field is the point j + 1/2):
//
//   field           point                                 coefficient there (all times dt)
//   sxx, syy, szz   (iz,       iy,       ix)              lambda, mu of the cell
//   vx              (iz,       iy,       ix + 1/2)        bx = (b_ix + b_ix+1) / 2, b = 1/rho
//   vy              (iz,       iy + 1/2, ix)              by (3D)
//   vz              (iz + 1/2, iy,       ix)              bz
//   sxz             (iz + 1/2, iy,       ix + 1/2)        mu_xz = harmonic mean of 4 cells' mu
//   sxy, syz        (iz, iy + 1/2, ix + 1/2), (iz + 1/2, iy + 1/2, ix)   mu_xy, mu_yz (3D)
//
// The averages are those of the variable-density acoustic equation and of Moczo et al. (2002):
// the arithmetic mean of the buoyancy (the harmonic mean of the density) keeps b dsigma/dx
// continuous across an interface; the harmonic mean of mu is the effective shear modulus of
// the four cells in series (stress continuous across them), and it is 0 as soon as one of them
// has mu = 0: a fluid cell (vs = 0) makes the shear stress vanish on every shear point it
// touches, which is the fluid-solid condition (no shear traction), and in a fluid region sxz
// stays 0, so that sxx = szz = -p and the scheme is the variable-density acoustic one exactly
// (tests/physics/test_elastic_kernels.cpp). The last point of an axis (beyond it the halo)
// takes the last cell's values (clamped neighbours), as acoustic_vd's buoyancy does.
//
// One step n -> n+1 is two launches, each over the whole padded grid:
//   UpdateVelocity:  v^{n+1/2}   = v^{n-1/2} + dt b (div sigma^n)          (then force sources)
//   UpdateStress:    sigma^{n+1} = sigma^n + dt (lambda tr(eps) I + 2 mu eps)(v^{n+1/2})
//                                                                          (then explosive ones)
// with D+ (whole points to half points) and D- (half points to whole points) the staggered
// first derivatives of order `Order` (acoustic_vd::d_plus, d_minus):
//   vx += bx (D+x sxx + D-y sxy + D-z sxz)     sxx += lambda tr + 2 mu D-x vx,  tr = D-x vx
//   vy += by (D-x sxy + D+y syy + D-z syz)     syy += lambda tr + 2 mu D-y vy     + D-y vy
//   vz += bz (D-x sxz + D-y syz + D+z szz)     szz += lambda tr + 2 mu D-z vz     + D-z vz
//   sxz += mu_xz (D+z vx + D+x vz)        sxy += mu_xy (D+y vx + D+x vy)
//   syz += mu_yz (D+z vy + D+y vz)
// (2D: no y terms, no vy, syy, sxy, syz).
//
// CPML (Komatitsch & Martin 2007, the first-order C-PML with kappa = 1): in the strips of axis a
// every derivative along a is stretched, D F -> D F + psi, psi^n = a psi^{n-1} + b D F^n, with
// the profile of the point's position along a: physics::cpml_profile's a, b for D- (results at
// whole points), cpml_profile_half's for D+ (results at half points), the layer of the acoustic
// equations. psi is advanced in place by the point that owns it. Memory per axis a (AxisCpml):
// `stress[c]` for D_a sigma_{a c} (the update of v_c) and `velocity[c]` for D_a v_c (the
// stresses'), one per derivative taken along a: 4 per axis in 2D, 6 in 3D (the acoustic
// equations keep 3), stored only on the strips of AcousticState's layout (x strips [shot][nz][ny
// (left + right)], z strips [shot][top + bottom][ny nx], y strips [shot][nz][(front + back) nx]);
// the launches split the grid at the strips (step.hpp) so that no cell tests where it is.
//
// Fields keep pwave's halo layout (Field<T>: [shot][nz + 2 halo][(ny + 2 hy) ys], halo = stencil
// radius, zero and never written): beyond the CPML the boundary is rigid, as for the acoustic
// equations.
//
// The coefficients are built from vp, vs, rho by material.hpp; the sources and receivers are in
// sources_receivers.hpp, the kept update terms of the gradient in update_terms.hpp.

#include <array>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "backends/host_vector.hpp"
#include "pwave/physics/acoustic_vd/kernels.hpp"
#include "pwave/physics/point_sources.hpp"

namespace pwave::physics::elastic {

using acoustic_vd::Coefficients;

/// Axes and vector components: x, y, z.
inline constexpr int X = 0, Y = 1, Z = 2;

/// The CPML of one axis: its profile at the cells and at the half points, and the memory
/// variables of the derivatives taken along it, by component (empty where unused: y in 2D).
template <class T>
struct AxisCpml {
  CpmlAxis<T> cell, half;  ///< a, b (ab, db unused)
  Field<T> stress[3];      ///< psi of D_a sigma_{a c}, c = x, y, z (the update of v_c)
  Field<T> velocity[3];    ///< psi of D_a v_c
};

/// A point the kernels update: shot, padded cell, and its indices in the halo layout.
struct Point {
  int s, iz, iy, ix;  ///< shot, padded cell
  int z, x, q;        ///< halo-layout row and column; plane index iy nx + ix
};

/// Device data of one shot batch, 2D and 3D (3D packs (y, x) into the column, as AcousticState).
template <class T>
struct State {
  int nz = 0, nx = 0, ny = 1;  ///< padded grid (model + CPML), without halo
  int halo = 0;                ///< stencil radius
  int hy = 0;                  ///< halo along y: `halo` in 3D, 0 in 2D
  int ys = 0;                  ///< column stride between y lines
  int strip_top = 0, strip_bottom = 0, strip_left = 0, strip_right = 0;
  int strip_front = 0, strip_back = 0;
  Field<T> vx, vy, vz;                    ///< velocities (halo layout; vy 3D)
  Field<T> sxx, syy, szz, sxy, sxz, syz;  ///< stresses (halo layout; syy, sxy, syz 3D)
  GridView<T> lambda, mu;                 ///< [nz][ny nx] dt lambda, dt mu at the cells
  GridView<T> bx, by, bz;                 ///< dt b at the velocity points
  GridView<T> mu_xy, mu_xz, mu_yz;        ///< dt mu at the shear-stress points
  AxisCpml<T> cpml[3];                    ///< by axis: x, y, z
  /// The allocations the fields (checkpointed()'s, in its order) and the material grids point
  /// into (propagation::FieldBlock), kept while the views are.
  Kokkos::View<T*, MemSpace> field_memory, material_memory;

  /// Halo-layout column of padded cell (iy, ix).
  KOKKOS_INLINE_FUNCTION int column(int iy, int ix) const { return (iy + hy) * ys + ix + halo; }
  /// Column of the halo-free [z][ny nx] arrays of padded cell (iy, ix).
  KOKKOS_INLINE_FUNCTION int plane(int iy, int ix) const { return iy * nx + ix; }
  KOKKOS_INLINE_FUNCTION Point point(int s, int iz, int iy, int ix) const {
    return Point{s, iz, iy, ix, iz + halo, column(iy, ix), plane(iy, ix)};
  }
  /// Point p moved j cells along `Axis`, its indices in every layout with it.
  template <int Axis>
  KOKKOS_INLINE_FUNCTION Point moved(Point p, int j) const {
    if constexpr (Axis == X) {
      p.ix += j, p.x += j, p.q += j;
    } else if constexpr (Axis == Y) {
      p.iy += j, p.x += j * ys, p.q += j * nx;
    } else {
      p.iz += j, p.z += j;
    }
    return p;
  }
  /// The state a step starts from, which a checkpoint keeps (propagation::CheckpointHistory):
  /// v^{n-1/2}, sigma^n and every memory variable (updated in place: no parity copies). The 3D
  /// ones are empty in 2D (vy, syy, sxy, syz, the y axis' and the y components').
  std::array<Field<T>, 27> checkpointed() const {
    std::array<Field<T>, 27> f;
    std::size_t k = 0;
    for_each_checkpointed(*this, [&](const Field<T>& field) { f[k++] = field; });
    return f;
  }
  /// The wavefields of checkpointed() that exist (2D: vx, vz, sxx, szz, sxz; 3D: all nine), the
  /// velocities first: `boundary` storage keeps their frame.
  std::vector<Field<T>> wavefields() const {
    std::vector<Field<T>> f;
    for (const Field<T>& v : {vx, vy, vz, sxx, syy, szz, sxy, sxz, syz}) {
      if (v.size() > 0) f.push_back(v);
    }
    return f;
  }
  /// The memory variables of checkpointed() that exist (its last 18 fields, empty where unused):
  /// `boundary` storage keeps them whole.
  std::vector<Field<T>> memory_variables() const {
    const std::array<Field<T>, 27> all = checkpointed();
    std::vector<Field<T>> f;
    for (auto m = all.begin() + 9; m != all.end(); ++m) {
      if (m->size() > 0) f.push_back(*m);
    }
    return f;
  }
  /// Whether field k of checkpointed() is one that step n's imaging reads from the state after
  /// the step (the velocities and their memory variables: strains_of, ImageStress) rather than
  /// from the state before it (the stresses and theirs: divergence_of, ImageVelocity).
  static constexpr bool imaged_after(int k) { return k < 3 || (k >= 9 && (k - 9) % 2 == 1); }
  /// f(field) for each field of checkpointed(), in its order: the one statement of the list.
  template <class S, class F>
  static void for_each_checkpointed(S& st, F&& f) {
    for (auto* field :
         {&st.vx, &st.vy, &st.vz, &st.sxx, &st.syy, &st.szz, &st.sxy, &st.sxz, &st.syz}) {
      f(*field);
    }
    for (auto& a : st.cpml) {
      for (int c = 0; c < 3; ++c) f(a.stress[c]), f(a.velocity[c]);
    }
  }

  /// Row and column of point p's memory variable in the strip storage of axis `Axis` (p must
  /// lie in that axis' strips).
  template <int Axis>
  KOKKOS_INLINE_FUNCTION int memory_row(const Point& p) const {
    if constexpr (Axis == Z) return strip_index(p.iz, nz, strip_top, strip_bottom);
    return p.iz;
  }
  template <int Axis>
  KOKKOS_INLINE_FUNCTION int memory_column(const Point& p) const {
    if constexpr (Axis == X)
      return p.iy * (strip_left + strip_right) + strip_index(p.ix, nx, strip_left, strip_right);
    if constexpr (Axis == Y) return strip_index(p.iy, ny, strip_front, strip_back) * nx + p.ix;
    return p.q;
  }
};

/// Which staggered derivative: D+ (`plus`: the field at whole points, the result at the half
/// point after the point) or D- (`minus`: the field at half points, the result at the point).
inline constexpr bool plus = true, minus = false;

/// The CPML memory variable of point p in the strip storage `memory` of axis `Axis` (p must lie in
/// that axis' strips).
template <int Axis, class T>
KOKKOS_FORCEINLINE_FUNCTION T& memory_at(const State<T>& st, const Field<T>& memory,
                                         const Point& p) {
  return memory(p.s, st.template memory_row<Axis>(p), st.template memory_column<Axis>(p));
}

/// The CPML profile a derivative along `Axis` at p takes: the half points' for D+, the cells'
/// for D-.
template <int Axis, bool Plus, class T>
KOKKOS_FORCEINLINE_FUNCTION const CpmlAxis<T>& profile_of(const State<T>& st) {
  return Plus ? st.cpml[Axis].half : st.cpml[Axis].cell;
}
template <int Axis>
KOKKOS_FORCEINLINE_FUNCTION int position(const Point& p) {
  return Axis == X ? p.ix : Axis == Y ? p.iy : p.iz;
}

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

  PWAVE_HOST_INLINE void put(T* at, Value v) const {
    if constexpr (Tail) v = H::lanes_from(lo, v, H::load(at));
    H::store(at, v);
  }
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

/// Host line path of kernel k (its apply(), its cell operator()): the x line (s, iz, iy) from x0
/// to x1 in whole vectors, the last one overlapping the one before (a Tail); a line shorter than
/// a vector cell by cell. `st` gives the layout, `c` the coefficients (broadcast once per line).
template <class K, class T, int Order>
void host_line(const K& k, const State<T>& st, const Coefficients<T, Order>& c, int s, int iz,
               int iy, int x0, int x1) {
  using H = backend::host::Native<T>;
  using V = typename H::type;
  constexpr int R = StaggeredStencil<Order>::radius, W = H::width;
  if (x1 - x0 < W) {
    for (int ix = x0; ix < x1; ++ix) k(s, iz, iy, ix);
    return;
  }
  V cx[R + 1], cz[R + 1], cy[R + 1];
  for (int j = 0; j <= R; ++j)
    cx[j] = H::splat(c.x[j]), cz[j] = H::splat(c.z[j]), cy[j] = H::splat(c.y[j]);
  const long zs = long(st.vx.stride(1));
  int ix = x0;
  for (; ix + W <= x1; ix += W) {
    k.apply(LineAccess<H, T, Order>{st, cx, cz, cy, zs, st.point(s, iz, iy, ix), 0});
  }
  if (ix < x1) {
    k.apply(LineAccess<H, T, Order, true>{st, cx, cz, cy, zs, st.point(s, iz, iy, x1 - W),
                                          ix - (x1 - W)});
  }
}

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

  PWAVE_HOST_INLINE void put(T* at, Vector v) const {
    if constexpr (Tail) v = H::lanes_from(lo, v, H::load(at));
    H::store(at, v);
  }
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
    const T* u = &f(p.s, p.z, p.x);
    const Vector* k = coefficients<Axis>();
    Value r;
    if constexpr (Axis == Z) {
      // D+ taps rows j in [1 - R, R] of each depth, D- rows [-R, R - 1].
      constexpr int first = Plus ? 1 - R : -R, rows = NB + 2 * R - 1;
      Vector row[rows];
      for (int i = 0; i < rows; ++i) row[i] = H::load(u + (first + i) * zs);
      for (int b = 0; b < NB; ++b) {
        r.d[b] = staggered<R, Plus>(k, [&](int j) { return row[b + j - first]; });
      }
    } else {
      const long step = Axis == X ? 1 : st.ys;
      for (int b = 0; b < NB; ++b) {
        const T* ub = u + b * zs;
        r.d[b] = staggered<R, Plus>(k, [&](int j) { return H::load(ub + j * step); });
      }
    }
    return r;
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
};

/// Host path of kernel k over the NB x lines (s, iz + b, iy), b < n, from x0 to x1: n = NB lines
/// in DepthsAccess vectors (the last overlapping the one before it, as host_line's), fewer, or a
/// line shorter than a vector, line by line (host_line).
template <int NB, class K, class T, int Order>
void host_depth_lines(const K& k, const State<T>& st, const Coefficients<T, Order>& c, int s,
                      int iz, int n, int iy, int x0, int x1) {
  using H = backend::host::Native<T>;
  using V = typename H::type;
  constexpr int R = StaggeredStencil<Order>::radius, W = H::width;
  if (n < NB || x1 - x0 < W) {
    for (int b = 0; b < n; ++b) host_line(k, st, c, s, iz + b, iy, x0, x1);
    return;
  }
  V cx[R + 1], cz[R + 1], cy[R + 1];
  for (int j = 0; j <= R; ++j)
    cx[j] = H::splat(c.x[j]), cz[j] = H::splat(c.z[j]), cy[j] = H::splat(c.y[j]);
  const long zs = long(st.vx.stride(1));
  int ix = x0;
  for (; ix + W <= x1; ix += W) {
    k.apply(DepthsAccess<H, T, Order, NB>{st, cx, cz, cy, zs, st.point(s, iz, iy, ix), 0});
  }
  if (ix < x1) {
    k.apply(DepthsAccess<H, T, Order, NB, true>{st, cx, cz, cy, zs, st.point(s, iz, iy, x1 - W),
                                                ix - (x1 - W)});
  }
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

/// What a derivative does with its CPML memory variable psi (stretched()).
enum class Memory {
  advance,  ///< the step: psi advanced in place, D F + psi^n
  peek,     ///< the imaging of the state the update read: the same value, nothing written
  current   ///< the imaging of the state the update wrote: psi already advanced, D F + psi
};

/// The derivative of f along `Axis` at the accessor's point(s), D+ or D- (`Plus`), with the CPML
/// term when they lie in the axis' strips (`InStrip`), `memory` its psi, used as `Psi` says. The
/// one statement of every derivative of both updates and of the imaging.
template <int Axis, bool Plus, bool InStrip, Memory Psi, class A, class T>
KOKKOS_FORCEINLINE_FUNCTION auto stretched(const A& at, const Field<T>& f, const Field<T>& memory) {
  auto g = at.template stencil<Axis, Plus>(f);
  if constexpr (InStrip && Psi == Memory::current) {
    g = g + at.template load_memory<Axis>(memory);
  } else if constexpr (InStrip) {
    auto m = at.template load_memory<Axis>(memory);
    g = acoustic_vd::cpml_memory(m, at.template profile_a<Axis, Plus>(),
                                 at.template profile_b<Axis, Plus>(), g);
    if constexpr (Psi == Memory::advance) at.template store_memory<Axis>(memory, m);
  }
  return g;
}

/// The staggered derivative along `Axis` at the accessor's point(s), D+ or D- (`Plus`), of the
/// values value(at') computes at each tap's accessor at' (at.moved()): the stencil of a field
/// computed on the fly rather than stored.
template <int Axis, bool Plus, class A, class F>
KOKKOS_FORCEINLINE_FUNCTION auto derivative_of(const A& at, const F& value) {
  return at.template derivative_of<Axis, Plus>(value);
}

/// derivative<> at one point p (tests, the free surface).
template <int Axis, bool Plus, bool InStrip, Memory Psi = Memory::advance, class T, int Order>
KOKKOS_FORCEINLINE_FUNCTION T derivative(const State<T>& st, const Coefficients<T, Order>& c,
                                         const Field<T>& f, const Field<T>& memory,
                                         const Point& p) {
  return stretched<Axis, Plus, InStrip, Psi>(CellAccess<T, Order>{st, c, p}, f, memory);
}

/// The staggered stencil alone (no CPML term): derivative<> outside the strips.
template <int Axis, bool Plus, class T, int Order>
KOKKOS_FORCEINLINE_FUNCTION T stencil(const State<T>& st, const Coefficients<T, Order>& c,
                                      const Field<T>& f, const Point& p) {
  return CellAccess<T, Order>{st, c, p}.template stencil<Axis, Plus>(f);
}

/// The normal stress increment of component i: lambda tr(eps) + 2 mu eps_ii (both times dt).
/// The products are named in order: a sum of two operator calls (Depths) may evaluate them in
/// either order, and the first one computed is the one the compiler fuses into the sum (FMA).
template <class V>
KOKKOS_FORCEINLINE_FUNCTION V normal_stress(V lambda, V mu, V trace, V eps) {
  const V volume = lambda * trace;
  const V shear = (mu + mu) * eps;
  return volume + shear;
}

/// div(sigma) at the velocity points of p, one component each (the CPML terms included): what
/// UpdateVelocity multiplies by dt b. Components y in 3D only. V: the accessor's Value.
template <class V>
struct Divergence {
  V x{}, y{}, z{};
};

/// div(sigma) of state st at the accessor's point(s): the one statement of the velocity
/// update's right-hand side, for the update and its imaging.
template <int Dim, bool InX, bool InZ, bool InY, Memory Psi, class A, class T>
KOKKOS_FORCEINLINE_FUNCTION Divergence<typename A::Value> divergence_of(const A& at,
                                                                        const State<T>& st) {
  const AxisCpml<T>& mx = st.cpml[X];
  const AxisCpml<T>& my = st.cpml[Y];
  const AxisCpml<T>& mz = st.cpml[Z];
  Divergence<typename A::Value> f;
  f.x = stretched<X, plus, InX, Psi>(at, st.sxx, mx.stress[X]) +
        stretched<Z, minus, InZ, Psi>(at, st.sxz, mz.stress[X]);
  f.z = stretched<X, minus, InX, Psi>(at, st.sxz, mx.stress[Z]) +
        stretched<Z, plus, InZ, Psi>(at, st.szz, mz.stress[Z]);
  if constexpr (Dim == 3) {
    f.x += stretched<Y, minus, InY, Psi>(at, st.sxy, my.stress[X]);
    f.z += stretched<Y, minus, InY, Psi>(at, st.syz, my.stress[Z]);
    f.y = stretched<X, minus, InX, Psi>(at, st.sxy, mx.stress[Y]) +
          stretched<Y, plus, InY, Psi>(at, st.syy, my.stress[Y]) +
          stretched<Z, minus, InZ, Psi>(at, st.syz, mz.stress[Y]);
  }
  return f;
}

template <class T, int Order, int Dim, bool InX, bool InZ, bool InY, Memory Psi>
KOKKOS_FORCEINLINE_FUNCTION Divergence<T> divergence(const State<T>& st,
                                                     const Coefficients<T, Order>& c,
                                                     const Point& p) {
  return divergence_of<Dim, InX, InZ, InY, Psi>(CellAccess<T, Order>{st, c, p}, st);
}

/// The strains of v at p (the CPML terms included): the normal ones at the cell (D- of each
/// velocity along its own axis), the shear ones eps_ac = D+_c v_a + D+_a v_c (twice the tensor's)
/// at their shear points. What UpdateStress multiplies by dt lambda, dt mu. y terms in 3D only.
template <class V>
struct Strains {
  V xx{}, yy{}, zz{}, xz{}, xy{}, yz{};
  KOKKOS_INLINE_FUNCTION V trace() const { return xx + yy + zz; }
};

/// The strains of state st at the accessor's point(s): the one statement of the stress
/// update's right-hand side, for the update, its imaging and the free surface.
template <int Dim, bool InX, bool InZ, bool InY, Memory Psi, class A, class T>
KOKKOS_FORCEINLINE_FUNCTION Strains<typename A::Value> strains_of(const A& at, const State<T>& st) {
  const AxisCpml<T>& mx = st.cpml[X];
  const AxisCpml<T>& my = st.cpml[Y];
  const AxisCpml<T>& mz = st.cpml[Z];
  Strains<typename A::Value> e;
  e.xx = stretched<X, minus, InX, Psi>(at, st.vx, mx.velocity[X]);
  e.zz = stretched<Z, minus, InZ, Psi>(at, st.vz, mz.velocity[Z]);
  e.xz = stretched<Z, plus, InZ, Psi>(at, st.vx, mz.velocity[X]) +
         stretched<X, plus, InX, Psi>(at, st.vz, mx.velocity[Z]);
  if constexpr (Dim == 3) {
    e.yy = stretched<Y, minus, InY, Psi>(at, st.vy, my.velocity[Y]);
    e.xy = stretched<Y, plus, InY, Psi>(at, st.vx, my.velocity[X]) +
           stretched<X, plus, InX, Psi>(at, st.vy, mx.velocity[Y]);
    e.yz = stretched<Z, plus, InZ, Psi>(at, st.vy, mz.velocity[Y]) +
           stretched<Y, plus, InY, Psi>(at, st.vz, my.velocity[Z]);
  }
  return e;
}

template <class T, int Order, int Dim, bool InX, bool InZ, bool InY, Memory Psi>
KOKKOS_FORCEINLINE_FUNCTION Strains<T> strains(const State<T>& st, const Coefficients<T, Order>& c,
                                               const Point& p) {
  return strains_of<Dim, InX, InZ, InY, Psi>(CellAccess<T, Order>{st, c, p}, st);
}

/// Which way in time an update runs: forward, or reversed (the `boundary` storage's rebuild of
/// the interior, the state before a step from the state after it).
enum class Direction { forward, reverse };

/// old + increment forward, old - increment reversed: the one place the direction enters an
/// update.
template <Direction Dir, class V>
KOKKOS_FORCEINLINE_FUNCTION V advanced(V old, V increment) {
  if constexpr (Dir == Direction::forward) {
    return old + increment;
  } else {
    return old - increment;
  }
}

/// v += dt b f at the accessor's point(s) (`Dir`: or -=): the one statement of the velocity
/// update, f its divergence_of().
template <Direction Dir, int Dim, class A, class T, class F>
KOKKOS_FORCEINLINE_FUNCTION void add_velocity(const A& at, const State<T>& st, const F& f) {
  if constexpr (Dim == 3)
    at.store(st.vy, advanced<Dir>(at.load(st.vy), at.coefficient(st.by) * f.y));
  at.store(st.vx, advanced<Dir>(at.load(st.vx), at.coefficient(st.bx) * f.x));
  at.store(st.vz, advanced<Dir>(at.load(st.vz), at.coefficient(st.bz) * f.z));
}

/// sigma += dt (lambda tr(e) I + 2 mu e) at the accessor's point(s) (`Dir`: or -=): the one
/// statement of the stress update, e its strains_of().
template <Direction Dir, int Dim, class A, class T, class E>
KOKKOS_FORCEINLINE_FUNCTION void add_stress(const A& at, const State<T>& st, const E& e) {
  const auto lambda = at.coefficient(st.lambda), mu = at.coefficient(st.mu);
  const auto trace = e.trace();
  at.store(st.sxx, advanced<Dir>(at.load(st.sxx), normal_stress(lambda, mu, trace, e.xx)));
  at.store(st.szz, advanced<Dir>(at.load(st.szz), normal_stress(lambda, mu, trace, e.zz)));
  at.store(st.sxz, advanced<Dir>(at.load(st.sxz), at.coefficient(st.mu_xz) * e.xz));
  if constexpr (Dim == 3) {
    at.store(st.syy, advanced<Dir>(at.load(st.syy), normal_stress(lambda, mu, trace, e.yy)));
    at.store(st.sxy, advanced<Dir>(at.load(st.sxy), at.coefficient(st.mu_xy) * e.xy));
    at.store(st.syz, advanced<Dir>(at.load(st.syz), at.coefficient(st.mu_yz) * e.yz));
  }
}

/// First launch of a step: v^{n+1/2} = v^{n-1/2} + dt b div(sigma^n) at every point of the
/// launched box, advancing the stress memory variables of the strips it lies in (InX, InZ, InY).
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct UpdateVelocity
    : DepthKernel<UpdateVelocity<T, Order, Dim, InX, InZ, InY>, T, Order, host_depths<Dim>> {
  State<T> st;
  Coefficients<T, Order> c;

  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const A& at) const {
    add_velocity<Direction::forward, Dim>(
        at, st, divergence_of<Dim, InX, InZ, InY, Memory::advance>(at, st));
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return st; }
};

/// Second launch: sigma^{n+1} = sigma^n + dt (lambda tr(eps) I + 2 mu eps)(v^{n+1/2}) at every
/// point of the launched box, advancing the velocity memory variables of its strips.
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct UpdateStress
    : DepthKernel<UpdateStress<T, Order, Dim, InX, InZ, InY>, T, Order, host_depths<Dim>> {
  State<T> st;
  Coefficients<T, Order> c;

  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const A& at) const {
    add_stress<Direction::forward, Dim>(at, st,
                                        strains_of<Dim, InX, InZ, InY, Memory::advance>(at, st));
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return st; }
};

}  // namespace pwave::physics::elastic
