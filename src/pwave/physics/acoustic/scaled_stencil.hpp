#pragma once
// The spatial stencil of the acoustic scheme: its coefficients pre-divided by the spacing
// (ScaledStencil) and where its taps are read from (ViewTaps, PointerTaps).

#include "pwave/core/types.hpp"
#include "pwave/physics/stencil.hpp"

namespace pwave::physics {

/// The taps of a stencil around halo-layout cell (z, column x) of shot s of a wavefield view:
/// ScaledStencil::laplacian_of's source when the values are read from memory.
template <class T, class Wavefield>
struct ViewTaps {
  const Wavefield& u;
  int s, zc, xc, ys;
  KOKKOS_INLINE_FUNCTION T center() const { return u(s, zc, xc); }
  KOKKOS_INLINE_FUNCTION T z(int j) const { return u(s, zc + j, xc) + u(s, zc - j, xc); }
  KOKKOS_INLINE_FUNCTION T x(int j) const { return u(s, zc, xc + j) + u(s, zc, xc - j); }
  KOKKOS_INLINE_FUNCTION T y(int j) const { return u(s, zc, xc + j * ys) + u(s, zc, xc - j * ys); }
};

/// The same taps on a raw pointer at the cell, with the strides of a z and a y step.
template <class T>
struct PointerTaps {
  const T* u;
  long zs, ys;
  KOKKOS_INLINE_FUNCTION T center() const { return u[0]; }
  KOKKOS_INLINE_FUNCTION T z(int j) const { return u[j * zs] + u[-j * zs]; }
  KOKKOS_INLINE_FUNCTION T x(int j) const { return u[j] + u[-j]; }
  KOKKOS_INLINE_FUNCTION T y(int j) const { return u[j * ys] + u[-j * ys]; }
};

/// Stencil coefficients pre-divided by the spacing: c2/h^2 and c1/h. The y coefficients are
/// zero in 2D (dy = 0).
template <class T, int Order>
struct ScaledStencil {
  static constexpr int radius = Stencil<Order>::radius;
  T d2z[radius + 1], d2x[radius + 1], d1z[radius + 1], d1x[radius + 1];
  T d2y[radius + 1], d1y[radius + 1];

  ScaledStencil(double dz, double dx, double dy = 0.0) {
    for (int j = 0; j <= radius; ++j) {
      d2z[j] = T(Stencil<Order>::c2(j) / (dz * dz));
      d2x[j] = T(Stencil<Order>::c2(j) / (dx * dx));
      d1z[j] = T(Stencil<Order>::c1(j) / dz);
      d1x[j] = T(Stencil<Order>::c1(j) / dx);
      d2y[j] = dy > 0 ? T(Stencil<Order>::c2(j) / (dy * dy)) : T(0);
      d1y[j] = dy > 0 ? T(Stencil<Order>::c1(j) / dy) : T(0);
    }
  }

  /// D2z u + D2x u (+ D2y u in 3D), the one statement of the Laplacian's summation order:
  /// `t` gives u at the cell (t.center()) and the sums of each axis' pair of taps at distance j
  /// (t.z(j) = u(z + j) + u(z - j), t.x(j), t.y(j)), wherever those values live: Views
  /// (ViewTaps), raw pointers (PointerTaps), or registers and team scratch (the z-marching
  /// launch of backends/z_march.hpp).
  template <int Dim, class Taps>
  KOKKOS_INLINE_FUNCTION T laplacian_of(const Taps& t) const {
    T c0 = d2z[0] + d2x[0];
    if constexpr (Dim == 3) c0 += d2y[0];
    T lap = c0 * t.center();
    PWAVE_UNROLL
    for (int j = 1; j <= radius; ++j) {
      lap += d2z[j] * t.z(j) + d2x[j] * t.x(j);
      if constexpr (Dim == 3) lap += d2y[j] * t.y(j);
    }
    return lap;
  }

  /// The same sum on raw pointers, for the host row/line paths: `u` points at the cell, `zs`
  /// and `ys` are the strides of a z and a y step.
  template <int Dim = 2>
  KOKKOS_INLINE_FUNCTION T laplacian_at(const T* u, long zs, long ys = 0) const {
    return laplacian_of<Dim>(PointerTaps<T>{u, zs, ys});
  }
};

}  // namespace pwave::physics
