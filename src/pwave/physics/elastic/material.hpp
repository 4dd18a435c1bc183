#pragma once
// The elastic state's coefficients from the model: BuildMaterial (vp, vs, rho on the padded grid
// to dt lambda, dt mu, dt b and the shear points' dt mu), the harmonic mean of the shear moduli
// and the free surface row's lambda. kernels.hpp's header says where each coefficient lives and
// why these averages.

#include "pwave/physics/elastic/kernels.hpp"

namespace pwave::physics::elastic {

/// Harmonic mean of four shear moduli, 0 if any of them is 0 (a fluid cell among them: no
/// shear stress on the point; the mean's limit, without dividing by zero).
template <class T>
KOKKOS_INLINE_FUNCTION T harmonic_mean4(T a, T b, T c, T d) {
  if (!(a > T(0) && b > T(0) && c > T(0) && d > T(0))) return T(0);
  return T(4) / (T(1) / a + T(1) / b + T(1) / c + T(1) / d);
}

/// lambda' = 2 mu lambda / (lambda + 2 mu), the free surface row's lambda (free_surface.hpp):
/// with the vertical strain left out there, sxx gains (lambda' + 2 mu) exx + lambda' eyy, the
/// plane stress of szz = 0 (lambda' + 2 mu = 4 mu (lambda + mu) / (lambda + 2 mu)). 0 in a fluid.
template <class T>
KOKKOS_INLINE_FUNCTION T surface_lambda(T lambda, T mu) {
  return T(2) * mu * lambda / (lambda + T(2) * mu);
}

/// The partial derivatives of surface_lambda(lambda, mu): d lambda' / d lambda =
/// (2 mu / (lambda + 2 mu))^2 and d lambda' / d mu = 2 (lambda / (lambda + 2 mu))^2.
template <class T>
struct SurfaceLambdaPartials {
  T lambda, mu;
};
template <class T>
KOKKOS_INLINE_FUNCTION SurfaceLambdaPartials<T> surface_lambda_partials(T lambda, T mu) {
  const T to_lambda = T(2) * mu / (lambda + T(2) * mu), to_mu = lambda / (lambda + T(2) * mu);
  return {to_lambda * to_lambda, T(2) * to_mu * to_mu};
}

/// The state's coefficients from vp, vs and rho on the padded grid ([nz][ny nx], the model
/// extended into the CPML): dt lambda and dt mu at the cells (mu = rho vs^2, lambda =
/// rho (vp^2 - 2 vs^2)), dt b at the velocity points (the mean of the two cells' b = 1/rho),
/// dt mu at the shear points (harmonic_mean4 of the four cells'), the neighbours beyond the
/// grid's last cell clamped to it; with a free surface, row 0's lambda is surface_lambda().
/// Launched over (iz, q) of the padded grid; rerun when the model changes.
template <class T>
struct BuildMaterial {
  State<T> st;
  GridView<T> vp, vs, rho;
  T dt;
  bool free_surface;  ///< at row 0 (boundary.free_surface)

  /// Index i along an axis of n cells, a neighbour beyond the last cell taken as that cell.
  KOKKOS_INLINE_FUNCTION static int clamp(int i, int n) { return i < n ? i : n - 1; }
  /// mu and b of cell (iz, iy, ix), clamped to the grid.
  KOKKOS_INLINE_FUNCTION T mu_at(int iz, int iy, int ix) const {
    const int r = clamp(iz, st.nz), q = st.plane(clamp(iy, st.ny), clamp(ix, st.nx));
    return rho(r, q) * vs(r, q) * vs(r, q);
  }
  KOKKOS_INLINE_FUNCTION T b_at(int iz, int iy, int ix) const {
    return T(1) / rho(clamp(iz, st.nz), st.plane(clamp(iy, st.ny), clamp(ix, st.nx)));
  }
  /// lambda = rho vp^2 - 2 mu of cell (iz, q), `mu` its mu_at().
  KOKKOS_INLINE_FUNCTION T lambda_at(int iz, int q, T mu) const {
    return rho(iz, q) * (vp(iz, q) * vp(iz, q)) - T(2) * mu;
  }
  KOKKOS_INLINE_FUNCTION void operator()(int iz, int q) const {
    const int iy = q / st.nx, ix = q % st.nx;
    const T m = mu_at(iz, iy, ix);
    st.mu(iz, q) = dt * m;
    const T lambda = lambda_at(iz, q, m);
    st.lambda(iz, q) = dt * (free_surface && iz == 0 ? surface_lambda(lambda, m) : lambda);
    const T b = b_at(iz, iy, ix);
    st.bx(iz, q) = dt * T(0.5) * (b + b_at(iz, iy, ix + 1));
    st.bz(iz, q) = dt * T(0.5) * (b + b_at(iz + 1, iy, ix));
    st.mu_xz(iz, q) = dt * harmonic_mean4(m, mu_at(iz, iy, ix + 1), mu_at(iz + 1, iy, ix),
                                          mu_at(iz + 1, iy, ix + 1));
    if (st.by.extent(0) > 0) {  // 3D
      st.by(iz, q) = dt * T(0.5) * (b + b_at(iz, iy + 1, ix));
      st.mu_xy(iz, q) = dt * harmonic_mean4(m, mu_at(iz, iy, ix + 1), mu_at(iz, iy + 1, ix),
                                            mu_at(iz, iy + 1, ix + 1));
      st.mu_yz(iz, q) = dt * harmonic_mean4(m, mu_at(iz, iy + 1, ix), mu_at(iz + 1, iy, ix),
                                            mu_at(iz + 1, iy + 1, ix));
    }
  }
};

}  // namespace pwave::physics::elastic
