#pragma once
// A stress-free surface at padded row 0 (the model's top, no CPML above it: strip_top = 0): the
// stress image method of Levander (1988), the surface on the normal stresses' row.
//
//   szz = 0 on row 0, and above it the stresses mirror antisymmetrically about the surface:
//   szz(-k) = -szz(k), sxz(-k + 1/2) = -sxz(k - 1/2) (index -k = -(index k - 1)), as syz in 3D,
//   so that every vertical derivative of the velocity update sees a traction that vanishes at
//   z = 0 (Levander 1988; Graves 1996 in 3D; Bohlen's SOFI codes do the same).
//   On row 0 the normal stresses are updated with the vertical strain that keeps szz = 0,
//   ezz = -lambda (exx + eyy) / (lambda + 2 mu): sxx gets 4 mu (lambda + mu) / (lambda + 2 mu)
//   exx in 2D, the plane-stress modulus, instead of reading the velocities above the surface.
//
// Why the image method rather than the vacuum formulation (Zeng et al. 2012, a vacuum layer with
// rho -> 0, lambda = mu = 0 above the surface and the parameter averaging doing the rest): the
// image method keeps the surface exactly on a grid row with szz = 0 there, needs no density
// floor (the vacuum's b = 1/rho is unbounded and its averages set the stability), and it is two
// small launches over the surface's columns that leave the bulk kernels as they are. Its
// Rayleigh speed is within 1.0 % at 12 cells per Rayleigh wavelength and 0.37 % at 25, the same
// for orders 4 and 8 (tests/physics/test_elastic_free_surface.cpp, docs/physics.md). The
// vacuum method handles topography, which a flat top does not need.
//
// The velocities above the surface (the halo rows) stay zero: the stress updates of rows
// 1 .. R - 1 read them through the vertical stencils (Levander's scheme, as SOFI2D). Forward
// only: the adjoint step does not have the surface yet.

#include "pwave/physics/elastic/step.hpp"

namespace pwave::physics::elastic {

/// Before UpdateStress of each step, on row 0 (launched over (shot, 0, iy, ix) with the x and y
/// strip flags of the column): takes lambda (ezz - ezz_free) off sxx (and syy) in advance, so
/// that the update's lambda tr(eps) uses the surface's ezz_free; its memory variables are read,
/// not advanced (the update advances them).
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct FreeSurfaceStress {
  State<T> st;
  Coefficients<T, Order> c;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const Point p = st.point(s, iz, iy, ix);
    const Strains<T> e = strains<T, Order, Dim, InX, false, InY, Memory::peek>(st, c, p);
    const T lambda = st.lambda(iz, p.q), mu = st.mu(iz, p.q);
    const T ezz_free = -lambda * (e.xx + e.yy) / (lambda + T(2) * mu);
    const T correction = lambda * (e.zz - ezz_free);
    st.sxx(s, p.z, p.x) -= correction;
    if constexpr (Dim == 3) st.syy(s, p.z, p.x) -= correction;
  }
};

/// After the stress update and the sources: szz = 0 on row 0 and the antisymmetric images of
/// szz, sxz (and syz) in the halo rows above. Launched over (shot, iy, ix) of the padded plane.
template <class T, int Order, int Dim>
struct FreeSurfaceImages {
  State<T> st;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iy, int ix) const {
    constexpr int R = StaggeredStencil<Order>::radius;
    const int z = st.halo, x = st.column(iy, ix);
    st.szz(s, z, x) = T(0);
    for (int k = 1; k <= R; ++k) {
      st.szz(s, z - k, x) = -st.szz(s, z + k, x);
      st.sxz(s, z - k, x) = -st.sxz(s, z + k - 1, x);
      if constexpr (Dim == 3) st.syz(s, z - k, x) = -st.syz(s, z + k - 1, x);
    }
  }
};

/// The surface's two launches around a Step's stress update: prepare() before it, images() after
/// it and the explosive sources.
template <class T, int Order, int Dim>
class FreeSurface {
 public:
  FreeSurface(const State<T>& st, const Coefficients<T, Order>& c)
      : cuts_{{0, 0, 1, 1},
              {0, st.strip_front, st.ny - st.strip_back, st.ny},
              {0, st.strip_left, st.nx - st.strip_right, st.nx}},
        ny_(st.ny),
        nx_(st.nx),
        stress_(st, c),
        images_{st} {}

  void prepare(const ExecSpace& exec, int count) const {
    backend::for_each_box_3d(
        "pwave::physics::elastic::free_surface_stress", exec, count,
        cuts_, [&](auto in_x, auto in_y, auto in_z) -> const auto& {
          return stress_
              .template get<decltype(in_x)::value, decltype(in_y)::value, decltype(in_z)::value>();
        });
  }
  void images(const ExecSpace& exec, int count) const {
    Kokkos::parallel_for(
        "pwave::physics::elastic::free_surface_images",
        Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>(exec, {0, 0, 0}, {count, ny_, nx_}),
        images_);
  }

 private:
  backend::BoxCuts cuts_;
  int ny_, nx_;
  StripInstances<FreeSurfaceStress, T, Order, Dim> stress_;
  FreeSurfaceImages<T, Order, Dim> images_;
};

}  // namespace pwave::physics::elastic
