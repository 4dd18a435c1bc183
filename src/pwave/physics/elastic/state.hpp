#pragma once
// What the elastic kernels update (kernels.hpp has the equations and where each field lives): the
// state of one shot batch, a point of it and its indices in every layout, and the CPML's data by
// axis.

#include <array>
#include <cstddef>
#include <vector>

#include "pwave/physics/acoustic_vd/kernels.hpp"

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

}  // namespace pwave::physics::elastic
