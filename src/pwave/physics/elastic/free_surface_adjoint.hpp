#pragma once
// The transpose of the free surface (free_surface.hpp) and its share of the imaging.
//
// A forward step with the surface is, on the interior state (the halo images are a function of
// the interior stresses, which the velocity update reads as sigma + I(sigma)):
//   V reading sigma^n and its images, S_f, P (SurfaceStrain), E, S_m, G (szz(0) = 0; images).
// The transposes the backward step adds to adjoint_kernels.hpp's, in its order:
//   G^T   szzbar(0) = 0 (SurfaceStressTranspose), first: the stress imaging and E^T read
//         sigmabar^{n+1} as G's input saw it.
//   P, E  at row 0 the two together give ezz to szz(0) alone, whose adjoint is 0 there:
//         ebar_zz(0) = 0, i.e. row 0 of bar[Z][Z] is zeroed between StressBar and StressGather
//         (SurfaceStrainTranspose). bar[Z][Z] is the stencil's input there: no CPML at the top.
//   V     the images' share: with V's stencils reading szz(-k) = -szz(k) and sxz(-k) =
//         -sxz(k - 1), after the VelocityGather (ImagesTranspose)
//           szzbar(k)     += sum_{m = k+1..R} c_m bar_zz(m - k - 1)   (k = 1 .. R - 1)
//           sxzbar(k - 1) += sum_{m = k..R}   c_m bar_zx(m - k)       (k = 1 .. R), syz with
//           bar_zy.
// Imaging: row 0's lambda' multiplies tr(e) without ezz, so its image is tr(sigmabar) (exx +
// eyy): ImageStress's tr(sigmabar) tr(e) less tr(sigmabar) ezz (SurfaceImage). mu's needs
// nothing (szzbar(0) = 0). MaterialGradient chains lambda' to lambda and mu.

#include "pwave/physics/elastic/adjoint_kernels.hpp"
#include "pwave/physics/elastic/free_surface.hpp"

namespace pwave::physics::elastic {

/// G^T: szzbar = 0 on row 0. Launched over (shot, iy, ix).
template <class T>
struct SurfaceStressTranspose {
  State<T> adjoint;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iy, int ix) const {
    adjoint.szz(s, adjoint.halo, adjoint.column(iy, ix)) = T(0);
  }
};

/// (P E)^T at row 0: bar[Z][Z] = 0 there. Launched over (shot, iy, ix).
template <class T>
struct SurfaceStrainTranspose {
  Field<T> bar_zz;
  State<T> geometry;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iy, int ix) const {
    bar_zz(s, geometry.halo, geometry.column(iy, ix)) = T(0);
  }
};

/// The images' share of V^T (the header's sums). Launched over (shot, iy, ix).
template <class T, int Order, int Dim>
struct ImagesTranspose {
  AdjointState<T> a;
  Coefficients<T, Order> c;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iy, int ix) const {
    constexpr int R = StaggeredStencil<Order>::radius;
    const State<T>& st = a.st;
    const int z = st.halo, x = st.column(iy, ix);
    for (int k = 1; k <= R; ++k) {
      T zz = 0, xz = 0, yz = 0;
      for (int m = k; m <= R; ++m) {
        if (m > k) zz += c.z[m] * a.bar[Z][Z](s, z + m - k - 1, x);
        xz += c.z[m] * a.bar[Z][X](s, z + m - k, x);
        if constexpr (Dim == 3) yz += c.z[m] * a.bar[Z][Y](s, z + m - k, x);
      }
      if (k < R) st.szz(s, z + k, x) += zz;
      st.sxz(s, z + k - 1, x) += xz;
      if constexpr (Dim == 3) st.syz(s, z + k - 1, x) += yz;
    }
  }
};

/// Row 0's lambda image less tr(sigmabar) ezz (ezz of `forward`, the state the stress update
/// wrote). Launched over (shot, iy, ix) after ImageStress.
template <class T, int Order, int Dim>
struct SurfaceImage {
  ImagingState<T> i;
  Coefficients<T, Order> c;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iy, int ix) const {
    const State<T>& adj = i.adjoint;
    const int z = adj.halo, x = adj.column(iy, ix);
    T trace = adj.sxx(s, z, x) + adj.szz(s, z, x);
    if constexpr (Dim == 3) trace += adj.syy(s, z, x);
    i.image[lambda_ch](s, 0, adj.plane(iy, ix)) -= trace * surface_ezz(i.forward, c, s, iy, ix);
  }
};

/// The backward step's free-surface launches (the header's order).
template <class T, int Order, int Dim>
class AdjointFreeSurface {
 public:
  AdjointFreeSurface(const AdjointState<T>& a, const Coefficients<T, Order>& c)
      : ny_(a.st.ny), nx_(a.st.nx), stress_{a.st}, strain_{a.bar[Z][Z], a.st}, images_{a, c} {}

  /// G^T, before the stress imaging and E^T.
  void stress(const ExecSpace& exec, int count) const {
    for_each_surface_column("pwave::physics::elastic::free_surface_stress_transpose", exec, count,
                            ny_, nx_, stress_);
  }
  /// Between E^T's two launches.
  void strain(const ExecSpace& exec, int count) const {
    for_each_surface_column("pwave::physics::elastic::free_surface_strain_transpose", exec, count,
                            ny_, nx_, strain_);
  }
  /// After V^T's two launches.
  void images(const ExecSpace& exec, int count) const {
    for_each_surface_column("pwave::physics::elastic::free_surface_images_transpose", exec, count,
                            ny_, nx_, images_);
  }

 private:
  int ny_, nx_;
  SurfaceStressTranspose<T> stress_;
  SurfaceStrainTranspose<T> strain_;
  ImagesTranspose<T, Order, Dim> images_;
};

}  // namespace pwave::physics::elastic
