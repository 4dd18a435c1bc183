#pragma once
// The transpose of the free surface (free_surface.hpp) and its share of the imaging.
//
// A forward step with the surface is, on the interior state (the halo values are functions of
// the interior: the stress images of sigma, the mirrored vz of v):
//   V reading sigma^n and its images, S_f, M (MirrorVelocity), E reading v and its mirror, S_m,
//   G (szz(0) = 0; the stress images).
// The transposes the backward step adds to adjoint_kernels.hpp's, in its order:
//   G^T   szzbar(0) = 0 (SurfaceStressTranspose), first: the stress imaging and E^T read
//         sigmabar^{n+1} as G's input saw it.
//   M^T   after E^T's gather, the mirror's share: ezz(k) reads vz(-1 - i) = vz(i) with -c_m,
//         m = i + k + 1, so vzbar(i) -= sum_k c_{i+k+1} bar_zz(k) (MirrorTranspose).
//   V     the images' share: with V's stencils reading szz(-k) = -szz(k) and sxz(-k) =
//         -sxz(k - 1), after the VelocityGather (ImagesTranspose)
//           szzbar(k)     += sum_{m = k+1..R} c_m bar_zz(m - k - 1)   (k = 1 .. R - 1)
//           sxzbar(k - 1) += sum_{m = k..R}   c_m bar_zx(m - k)       (k = 1 .. R), syz with
//           bar_zy.
// Imaging needs nothing more: the stored states hold the mirrored vz, so ImageStress's ezz is
// the update's (0 on row 0), and szzbar(0) = 0. MaterialGradient chains row 0's lambda' to
// lambda and mu.

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

/// M^T, the transpose of MirrorVelocity's ghosts as the stress update read them: ezz(k) of
/// rows k < R takes -c_m vz(-1 - i) = -c_m vz(i) for m = i + k + 1, so after E^T's gather
/// vzbar(i) -= sum_k c_{i+k+1} bar_zz(k) (i = 0 .. R - 1, k = 0 .. R - 1 - i; bar[Z][Z] is the
/// stencil's input there: no CPML at the top). Launched over (shot, iy, ix).
template <class T, int Order>
struct MirrorTranspose {
  Field<T> bar_zz, vz;  ///< bar_zz read, vzbar updated
  State<T> geometry;
  Coefficients<T, Order> c;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iy, int ix) const {
    constexpr int R = StaggeredStencil<Order>::radius;
    const int z = geometry.halo, x = geometry.column(iy, ix);
    for (int i = 0; i < R; ++i) {
      T sum = 0;
      for (int k = 0; i + k + 1 <= R; ++k) sum += c.z[i + k + 1] * bar_zz(s, z + k, x);
      vz(s, z + i, x) -= sum;
    }
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
    for (int k = 1; k < R; ++k) {
      T zz = 0;
      for (int m = k + 1; m <= R; ++m) zz += c.z[m] * a.bar[Z][Z](s, z + m - k - 1, x);
      st.szz(s, z + k, x) += zz;
    }
    for (int k = 1; k <= R; ++k) {
      T xz = 0, yz = 0;
      for (int m = k; m <= R; ++m) {
        xz += c.z[m] * a.bar[Z][X](s, z + m - k, x);
        if constexpr (Dim == 3) yz += c.z[m] * a.bar[Z][Y](s, z + m - k, x);
      }
      st.sxz(s, z + k - 1, x) += xz;
      if constexpr (Dim == 3) st.syz(s, z + k - 1, x) += yz;
    }
  }
};

/// The backward step's free-surface launches (the header's order).
template <class T, int Order, int Dim>
class AdjointFreeSurface {
 public:
  AdjointFreeSurface(const AdjointState<T>& a, const Coefficients<T, Order>& c)
      : ny_(a.st.ny),
        nx_(a.st.nx),
        stress_{a.st},
        mirror_{a.bar[Z][Z], a.st.vz, a.st, c},
        images_{a, c} {}

  /// G^T, before the stress imaging and E^T.
  void stress(const ExecSpace& exec, int count) const {
    for_each_surface_column("pwave::physics::elastic::free_surface_stress_transpose", exec, count,
                            ny_, nx_, stress_);
  }
  /// After E^T's two launches.
  void mirror(const ExecSpace& exec, int count) const {
    for_each_surface_column("pwave::physics::elastic::free_surface_mirror_transpose", exec, count,
                            ny_, nx_, mirror_);
  }
  /// After V^T's two launches.
  void images(const ExecSpace& exec, int count) const {
    for_each_surface_column("pwave::physics::elastic::free_surface_images_transpose", exec, count,
                            ny_, nx_, images_);
  }

 private:
  int ny_, nx_;
  SurfaceStressTranspose<T> stress_;
  MirrorTranspose<T, Order> mirror_;
  ImagesTranspose<T, Order, Dim> images_;
};

}  // namespace pwave::physics::elastic
