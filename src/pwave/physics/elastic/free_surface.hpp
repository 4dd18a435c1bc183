#pragma once
// A stress-free surface at padded row 0 (the model's top, no CPML above it: strip_top = 0): the
// stress image method of Levander (1988), the surface on the normal stresses' row.
//
//   szz = 0 on row 0, and above it the stresses mirror antisymmetrically about the surface:
//   szz(-k) = -szz(k), sxz(-k + 1/2) = -sxz(k - 1/2) (index -k = -(index k - 1)), as syz in 3D,
//   so that every vertical derivative of the velocity update sees a traction that vanishes at
//   z = 0 (Levander 1988; Graves 1996 in 3D; Bohlen's SOFI codes do the same).
//   On row 0 the normal stresses are updated with the vertical strain that keeps szz = 0,
//   ezz = -lambda (exx + eyy) / (lambda + 2 mu): sxx gains (lambda' + 2 mu) exx + lambda' eyy,
//   lambda' = 2 mu lambda / (lambda + 2 mu) (the plane-stress modulus). Written as the bulk
//   update with row 0's lambda replaced by lambda' (BuildMaterial::free_surface,
//   surface_lambda()) and its vertical strain left out: vz is mirrored evenly into the halo rows
//   above (MirrorVelocity), which makes D-z vz exactly 0 on row 0. Every operation is linear in
//   the fields and local to the top rows, so the adjoint is a few small launches too
//   (free_surface_adjoint.hpp).
//
// Why the image method rather than the vacuum formulation (Zeng et al. 2012, a vacuum layer with
// rho -> 0, lambda = mu = 0 above the surface and the parameter averaging doing the rest): the
// image method keeps the surface exactly on a grid row with szz = 0 there, needs no density
// floor (the vacuum's b = 1/rho is unbounded and its averages set the stability), and it is two
// small launches over the surface's columns that leave the bulk kernels as they are. Its
// Rayleigh speed is within 0.64 % at 12 cells per Rayleigh wavelength and 0.15 % at 25, the
// same for orders 4 and 8 (tests/physics/test_elastic_free_surface.cpp, docs/physics.md). The
// vacuum method handles topography, which a flat top does not need.
//
// The velocities above the surface: vz mirrored evenly (the stress updates of rows 1 .. R - 1
// read it through their vertical stencils), vx (vy) zero. The even vz is the acoustic image in
// a fluid (a fluid under the surface gives the variable-density acoustic equation's free-surface
// traces) and halves the Rayleigh speed's error against zero velocities there (Levander's
// original, as SOFI2D), making it second order in h.

#include "pwave/physics/elastic/step.hpp"

namespace pwave::physics::elastic {

/// After the velocity update and the force sources, before the stress update: vz mirrored
/// evenly above the surface, vz(-1/2 - j) = vz(1/2 + j) (index -1 - j = index j), so that row
/// 0's ezz = D-z vz is exactly 0 (the update's lambda' tr(eps) leaves the vertical strain out)
/// and in a fluid the stress update sees the acoustic image (the pressure odd about the
/// surface, its vertical gradient even). Launched over (shot, iy, ix).
template <class T, int Order, int Dim>
struct MirrorVelocity {
  State<T> st;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iy, int ix) const {
    constexpr int R = StaggeredStencil<Order>::radius;
    const int z = st.halo, x = st.column(iy, ix);
    for (int j = 0; j < R; ++j) st.vz(s, z - 1 - j, x) = st.vz(s, z + j, x);
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

/// A launch over the surface's columns (shot, iy, ix), shots [0, count).
template <class F>
void for_each_surface_column(const char* name, const ExecSpace& exec, int count, int ny, int nx,
                             const F& f) {
  Kokkos::parallel_for(
      name, Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>(exec, {0, 0, 0}, {count, ny, nx}), f);
}

/// The surface's two launches around a Step's stress update: prepare() before it, images() after
/// it and the explosive sources. The state's coefficients must come from a BuildMaterial with
/// free_surface set.
template <class T, int Order, int Dim>
class FreeSurface {
 public:
  explicit FreeSurface(const State<T>& st) : ny_(st.ny), nx_(st.nx), mirror_{st}, images_{st} {}

  void prepare(const ExecSpace& exec, int count) const {
    for_each_surface_column("pwave::physics::elastic::free_surface_mirror", exec, count, ny_, nx_,
                            mirror_);
  }
  void images(const ExecSpace& exec, int count) const {
    for_each_surface_column("pwave::physics::elastic::free_surface_images", exec, count, ny_, nx_,
                            images_);
  }
  /// Host wavefronts: prepare() and images() of shot s alone, on the calling thread.
  void prepare(int s) const { each_column(s, mirror_); }
  void images(int s) const { each_column(s, images_); }

 private:
  template <class F>
  void each_column(int s, const F& f) const {
    for (int iy = 0; iy < ny_; ++iy)
      for (int ix = 0; ix < nx_; ++ix) f(s, iy, ix);
  }

  int ny_, nx_;
  MirrorVelocity<T, Order, Dim> mirror_;
  FreeSurfaceImages<T, Order, Dim> images_;
};

}  // namespace pwave::physics::elastic
