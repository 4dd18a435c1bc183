#pragma once
// The right-hand sides of the elastic updates kept for the imaging: UpdateTerms (the fields),
// keep_/kept_ helpers (stores and loads at an accessor's points), and the keeping updates
// KeptUpdateVelocity and KeptUpdateStress (kernels.hpp's updates storing their terms where
// they compute them). `full` and `checkpoint` storage run them (propagation/term_history.hpp);
// the imaging reads them back (adjoint_kernels.hpp: ImageKeptVelocity, ImageKeptStress).

#include "pwave/physics/elastic/kernels.hpp"

namespace pwave::physics::elastic {

/// The right-hand sides of one step's two updates at every point of the padded grid, which the
/// step's imaging multiplies: F^n (divergence_of(), at the velocity points) and e^{n+1/2}
/// (strains_of(), at the cells and shear points), the CPML terms included, each a [shot][nz]
/// [ny nx] (halo-free) field; the y ones 3D only. `full` and `checkpoint` storage have the
/// forward updates keep them (KeptUpdateVelocity, KeptUpdateStress) where they compute them,
/// so the imaging is a product (ImageKeptVelocity, ImageKeptStress) instead of the stencils
/// again.
template <class T>
struct UpdateTerms {
  Field<T> fx, fz, exx, ezz, exz, fy, eyy, exy, eyz;
  /// How many a step of dimension `dim` keeps: the first 5 of the list in 2D, all 9 in 3D.
  static constexpr int count(int dim) { return dim == 3 ? 9 : 5; }
  /// f(term) for each term, in the list's order (fx, fz, exx, ezz, exz, fy, eyy, exy, eyz).
  template <class F>
  static void for_each(UpdateTerms& t, F&& f) {
    for (Field<T>* term : {&t.fx, &t.fz, &t.exx, &t.ezz, &t.exz, &t.fy, &t.eyy, &t.exy, &t.eyz})
      f(*term);
  }
};

/// Keeps f (a divergence_of()) at the accessor's point(s) in `kept`.
template <int Dim, class A, class T, class V>
KOKKOS_FORCEINLINE_FUNCTION void keep_divergence(const A& at, const UpdateTerms<T>& kept,
                                                 const Divergence<V>& f) {
  at.store_halo_free(kept.fx, f.x);
  at.store_halo_free(kept.fz, f.z);
  if constexpr (Dim == 3) at.store_halo_free(kept.fy, f.y);
}

/// The divergence keep_divergence() kept at the accessor's point(s).
template <int Dim, class A, class T>
KOKKOS_FORCEINLINE_FUNCTION Divergence<typename A::Value> kept_divergence(
    const A& at, const UpdateTerms<T>& kept) {
  Divergence<typename A::Value> f;
  f.x = at.load_halo_free(kept.fx);
  f.z = at.load_halo_free(kept.fz);
  if constexpr (Dim == 3) f.y = at.load_halo_free(kept.fy);
  return f;
}

/// Keeps e (a strains_of()) at the accessor's point(s) in `kept`.
template <int Dim, class A, class T, class V>
KOKKOS_FORCEINLINE_FUNCTION void keep_strains(const A& at, const UpdateTerms<T>& kept,
                                              const Strains<V>& e) {
  at.store_halo_free(kept.exx, e.xx);
  at.store_halo_free(kept.ezz, e.zz);
  at.store_halo_free(kept.exz, e.xz);
  if constexpr (Dim == 3) {
    at.store_halo_free(kept.eyy, e.yy);
    at.store_halo_free(kept.exy, e.xy);
    at.store_halo_free(kept.eyz, e.yz);
  }
}

/// The strains keep_strains() kept at the accessor's point(s).
template <int Dim, class A, class T>
KOKKOS_FORCEINLINE_FUNCTION Strains<typename A::Value> kept_strains(const A& at,
                                                                    const UpdateTerms<T>& kept) {
  Strains<typename A::Value> e;
  e.xx = at.load_halo_free(kept.exx);
  e.zz = at.load_halo_free(kept.ezz);
  e.xz = at.load_halo_free(kept.exz);
  if constexpr (Dim == 3) {
    e.yy = at.load_halo_free(kept.eyy);
    e.xy = at.load_halo_free(kept.exy);
    e.yz = at.load_halo_free(kept.eyz);
  }
  return e;
}

/// UpdateVelocity keeping its right-hand side F^n in `kept` (set per step: Step).
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct KeptUpdateVelocity
    : DepthKernel<KeptUpdateVelocity<T, Order, Dim, InX, InZ, InY>, T, Order, host_depths<Dim>> {
  State<T> st;
  Coefficients<T, Order> c;
  UpdateTerms<T> kept = {};  ///< set per step

  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const A& at) const {
    const auto f = divergence_of<Dim, InX, InZ, InY, Memory::advance>(at, st);
    keep_divergence<Dim>(at, kept, f);
    add_velocity<Direction::forward, Dim>(at, st, f);
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return st; }
};

/// UpdateStress keeping its right-hand side e^{n+1/2} in `kept` (set per step: Step).
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct KeptUpdateStress
    : DepthKernel<KeptUpdateStress<T, Order, Dim, InX, InZ, InY>, T, Order, host_depths<Dim>> {
  State<T> st;
  Coefficients<T, Order> c;
  UpdateTerms<T> kept = {};  ///< set per step

  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const A& at) const {
    const auto e = strains_of<Dim, InX, InZ, InY, Memory::advance>(at, st);
    keep_strains<Dim>(at, kept, e);
    add_stress<Direction::forward, Dim>(at, st, e);
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return st; }
};

}  // namespace pwave::physics::elastic
