#pragma once
// What the constant-density acoustic equation is, for the framework: its name, its material
// parameters, its gradient channels and the sizes the estimates count. The kernels are in
// kernels.hpp (the step) and adjoint_kernels.hpp (its exact adjoint and the imaging).

#include "pwave/physics/parameter.hpp"

namespace pwave::physics::acoustic {

/// u_tt = v^2 lap u + v^2 s delta(x - x_s): pressure u on one grid, second derivatives of
/// order 2-8, leapfrog in time, CPML memory variables (psi, zeta) per axis in the frame.
struct Physics {
  static constexpr const char* name = "acoustic";
  /// The model's material parameters, every one of them invertible.
  static constexpr Parameter parameters[] = {Parameter::vp};
  /// Imaging sums per shot: dJ/dw, w = v^2 dt^2.
  static constexpr int imaging_channels = 1;
  /// Stability: the collocated second derivative (physics::max_stable_dt).
  static constexpr bool staggered = false;
  /// Arrays per shot on the wavefield grid: u^n and u^{n+1}; none per axis.
  static constexpr int wavefields = 2, wavefields_per_axis = 0;
  /// Arrays on the padded grid shared by the shots: v^2 dt^2; none per axis.
  static constexpr int model_arrays = 1, model_arrays_per_axis = 0;
  /// CPML profiles per axis: a and b at the cell centres, and the two coefficients of zeta.
  static constexpr int profiles_per_axis = 4;
  /// CPML memory variables per strip cell of an axis: psi, psi_next and zeta.
  static constexpr int cpml_memory_of(int) { return 3; }
};

}  // namespace pwave::physics::acoustic
