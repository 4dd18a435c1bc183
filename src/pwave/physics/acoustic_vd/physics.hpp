#pragma once
// What the variable-density acoustic equation is, for the framework: its name, its material
// parameters, its gradient channels and the sizes the estimates count. The kernels are in
// kernels.hpp (the flux and update steps) and adjoint_kernels.hpp (their adjoints, imaging).

#include "pwave/physics/parameter.hpp"

namespace pwave::physics::acoustic_vd {

/// u_tt = rho v^2 div(grad u / rho) + v^2 s delta(x - x_s): pressure u at the cell centres,
/// the fluxes b du/dx_i (b = 1/rho) at the half points of a staggered grid, leapfrog in time.
struct Physics {
  static constexpr const char* name = "acoustic_variable_density";
  /// The model's material parameters, every one of them invertible.
  static constexpr Parameter parameters[] = {Parameter::vp, Parameter::rho};
  /// Imaging sums per shot: dJ/dw (w = rho v^2 dt^2) and dJ/db (b = 1/rho at the half points).
  static constexpr int imaging_channels = 2;
  /// Stability: a staggered first derivative applied twice (physics::max_stable_dt_staggered).
  static constexpr bool staggered = true;
  /// Arrays per shot on the wavefield grid: u^n, u^{n+1}, and one flux per axis.
  static constexpr int wavefields = 2, wavefields_per_axis = 1;
  /// Arrays on the padded grid shared by the shots: v^2 dt^2, rho and rho v^2 dt^2, and one
  /// buoyancy per axis.
  static constexpr int model_arrays = 3, model_arrays_per_axis = 1;
  /// CPML profiles per axis: the constant-density four, and a and b at the half points.
  static constexpr int profiles_per_axis = 6;
  /// CPML memory variables per strip cell of an axis: psi, psi_next and zeta, as the
  /// constant-density equation keeps (the estimate's count).
  static constexpr int cpml_memory_of(int) { return 3; }
};

}  // namespace pwave::physics::acoustic_vd
