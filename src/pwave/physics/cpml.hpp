#pragma once
// CPML damping profiles (convolutional PML, Komatitsch & Martin 2007; second-order form after
// Pasalic & McGarry 2010). For each axis, cell i carries the recursive-convolution coefficients
//   a_i = exp(-(d_i + alpha_i) dt),  b_i = d_i / (d_i + alpha_i) (a_i - 1)   (b_i = 0 outside)
// with d(eta) = d0 eta^2, d0 = -3 vmax ln(R) / (2 L), alpha(eta) = pi f (1 - eta), where eta in
// (0, 1] is the depth into a layer of thickness L = width * h.

#include <vector>

namespace pwave::physics {

/// Coefficients along one axis of the padded grid (size n = pad_lo + cells + pad_hi).
struct CpmlProfile {
  std::vector<double> a;
  std::vector<double> b;
};

/// Builds the profile for an axis with `pad_lo` and `pad_hi` CPML cells around `cells` model
/// cells. h in metres, dt in seconds, vmax in m/s, frequency in Hz, R the target reflection.
CpmlProfile cpml_profile(int pad_lo, int cells, int pad_hi, double h, double dt, double vmax,
                         double frequency, double reflection);

}  // namespace pwave::physics
