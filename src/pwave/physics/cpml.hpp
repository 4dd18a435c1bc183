#pragma once
// CPML damping profiles (convolutional PML, Komatitsch & Martin 2007; second-order form after
// Pasalic & McGarry 2010). Along each axis the stretched derivative is d/dx + Psi, with Psi the
// recursive convolution of d/dx. Cell i carries
//   a_i  = exp(-(d_i + alpha_i) dt),  b_i = d_i / (d_i + alpha_i) (a_i - 1)   (a = b = 0 outside)
//   ab_i = a_i b_i                     (the weight of D1 u^n in the stored memory variable)
//   db_i = D1 b at i                   (the order-`order` first derivative of b; b continues
//                                       beyond the grid by its edge value)
// with d(eta) = d0 eta^2, d0 = -3 vmax ln(R) / (2 L), alpha(eta) = pi f (1 - eta), where eta in
// (0, 1] is the depth into a layer of thickness L = width * h. docs/physics.md says how the
// step uses them and why the form was chosen.

#include <vector>

#include "pwave/core/types.hpp"

namespace pwave::physics {

/// Coefficients along one axis of the padded grid (size n = pad_lo + cells + pad_hi).
struct CpmlProfile {
  std::vector<double> a, b, ab, db;
};

/// Builds the profile for an axis with `pad_lo` and `pad_hi` CPML cells around `cells` model
/// cells. h in metres, dt in seconds, vmax in m/s, frequency in Hz, R the target reflection,
/// `order` the spatial order of the stencil (2, 4, 6 or 8) that db is taken with.
CpmlProfile cpml_profile(int pad_lo, int cells, int pad_hi, double h, double dt, double vmax,
                         double frequency, double reflection, int order);

/// The profile's a and b at the half points x_{i+1/2} (i = 0 .. n-1) of the same axis, where
/// the variable-density equation keeps its first-derivative memory variables (ab and db are
/// left empty). The depth into a layer is measured as for the cells: eta = 0 at the model's
/// first and last cells, so a half point between two model cells gets a = b = 0.
CpmlProfile cpml_profile_half(int pad_lo, int cells, int pad_hi, double h, double dt, double vmax,
                              double frequency, double reflection);

/// Widths of the CPML strips along an axis of n padded cells with layers of `pad_lo` and
/// `pad_hi` cells: each layer and the `radius` model cells next to it (where the stencil still
/// reads the layer's memory variables and db is nonzero), none for a side without a layer,
/// clipped so that the two strips never overlap.
void cpml_strips(int pad_lo, int n, int pad_hi, int radius, int& strip_lo, int& strip_hi);

/// The profile of one axis on the device (each [n], or [n + 2 radius] in the adjoint state).
template <class T>
struct CpmlAxis {
  Kokkos::View<T*, MemSpace> a, b, ab, db;
};

}  // namespace pwave::physics
