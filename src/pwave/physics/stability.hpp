#pragma once
// CFL stability and numerical-dispersion figures for the leapfrog + central-difference scheme.

namespace pwave::physics {

/// Largest stable dt (seconds) for spatial order `order`:
/// dt_max = 2 / (vmax * sqrt(mu / dx^2 + mu / dz^2 [+ mu / dy^2])), mu = max over k of the 1D
/// second-derivative symbol, -c2[0] - 2 sum_j c2[j] (-1)^j (4 for order 2). vmax in m/s,
/// spacings in metres; dy = 0 means 2D.
double max_stable_dt(int order, double vmax, double dx, double dz, double dy = 0.0);

/// The same for the variable-density equation, whose second derivative is a staggered first
/// derivative applied twice: mu = (2 sum_k |c_k|)^2 of the order's staggered coefficients, and
/// vmax the largest sqrt(rho_i v_i^2 b) over cells i and the buoyancies b = 1/rho of i and its
/// neighbours (a Gershgorin bound: a density contrast raises it above the largest velocity).
double max_stable_dt_staggered(int order, double vmax, double dx, double dz, double dy = 0.0);

/// Grid points per shortest wavelength: vmin / (fmax * max(dx, dz, dy)) (dy = 0 in 2D).
double points_per_wavelength(double vmin, double fmax, double dx, double dz, double dy = 0.0);

/// Highest frequency (Hz) a Ricker wavelet of peak frequency `fpeak` carries significantly
/// (amplitude spectrum above 0.3% of its peak): 3 fpeak.
double ricker_max_frequency(double fpeak);

/// Points per wavelength below which pwave warns about numerical dispersion.
constexpr double min_points_per_wavelength = 5.0;

}  // namespace pwave::physics
