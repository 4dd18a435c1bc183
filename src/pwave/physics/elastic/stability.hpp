#pragma once
// CFL limit of the staggered elastic scheme (kernels.hpp).

#include "pwave/physics/stability.hpp"

namespace pwave::physics::elastic {

/// Largest stable dt (seconds) of the elastic leapfrog at spatial order `order` in a medium whose
/// fastest P velocity is `vp_max` (m/s); dy = 0 means 2D. Von Neumann: a plane wave of
/// wavenumber k turns the step into v_tt = -A(k) v with A's eigenvalues vp^2 K^2 (P) and
/// vs^2 K^2 (S, twice in 3D), K^2 = sum_a (2 / h_a sum_k c_k sin((2k - 1) k_a h_a / 2))^2 the
/// symbol of D- D+. K is largest at the Nyquist wavenumber of every axis, 2 sum_k |c_k| / h_a
/// per axis (the staggered coefficients alternate in sign), and the leapfrog is stable for
/// dt^2 vp^2 K^2 <= 4: the variable-density acoustic limit (max_stable_dt_staggered) with vp.
/// Exact for a homogeneous medium; in a heterogeneous one vp_max bounds it up to the averaging
/// of b and mu at the staggered points (see max_stable_dt_staggered for density contrasts).
inline double max_stable_dt_elastic(int order, double vp_max, double dx, double dz,
                                    double dy = 0.0) {
  return max_stable_dt_staggered(order, vp_max, dx, dz, dy);
}

}  // namespace pwave::physics::elastic
