#pragma once
// What the isotropic elastic equation is, for the framework: its name, its material parameters,
// its gradient channels and the sizes the estimates count. The kernels are in kernels.hpp (the
// device state, the velocity and stress updates, sources and receivers), their launches in
// step.hpp; propagation/elastic_propagator.* runs them.

#include "pwave/physics/parameter.hpp"

namespace pwave::physics::elastic {

/// rho v_t = div sigma + f delta(x - x_s),  sigma_t = lambda tr(eps(v)) I + 2 mu eps(v)
/// [+ m delta(x - x_s) I]: particle velocities and stresses on a staggered grid (Virieux 1986,
/// Levander 1988), leapfrog in time, CPML memory variables per derivative in the strips.
struct Physics {
  static constexpr const char* name = "elastic";
  /// The model's material parameters, every one of them invertible (lambda = rho (vp^2 - 2
  /// vs^2), mu = rho vs^2).
  static constexpr Parameter parameters[] = {Parameter::vp, Parameter::vs, Parameter::rho};
  /// Imaging sums per shot, for the adjoint to come: one per coefficient array of the step
  /// (model_arrays_of: dJ/d(dt lambda), dJ/d(dt mu) at the cells, dJ/d(dt b) at each
  /// velocity's points, dJ/d(dt mu) at each shear stress's points), chained to vp, vs and rho
  /// through BuildMaterial's averages. 5 in 2D (the value here), 8 in 3D.
  static constexpr int imaging_channels = 5;
  /// Stability: staggered first derivatives (elastic/stability.hpp: the acoustic staggered
  /// limit with vp).
  static constexpr bool staggered = true;

  /// Arrays per shot on the wavefield grid: a velocity per axis and the stress tensor's
  /// axes (axes + 1) / 2 components (5 in 2D, 9 in 3D).
  static constexpr int wavefields_of(int axes) { return axes + axes * (axes + 1) / 2; }
  /// The same as the framework's `wavefields + axes * wavefields_per_axis` (exact for 2 and 3
  /// axes; the stress count is not linear in the axes, hence the negative constant).
  static constexpr int wavefields = -3, wavefields_per_axis = 4;
  /// Arrays on the padded grid shared by the shots: dt lambda and dt mu at the cells, dt b at
  /// each velocity's points, dt mu at each shear stress's points (1 in 2D, 3 in 3D).
  static constexpr int model_arrays_of(int axes) { return 2 + axes + axes * (axes - 1) / 2; }
  /// The same in the framework's linear form (exact for 2 and 3 axes).
  static constexpr int model_arrays = -1, model_arrays_per_axis = 3;
  /// CPML profiles per axis: a and b at the cells and at the half points.
  static constexpr int profiles_per_axis = 4;
  /// CPML memory variables per strip cell of an axis a: the derivatives along a of every
  /// velocity and of every stress sigma_{a c} (4 in 2D, 6 in 3D). The acoustic equations keep
  /// 3 (psi, psi_next, zeta); the estimate must take this count for the elastic one.
  static constexpr int cpml_memory_of(int axes) { return 2 * axes; }
};

static_assert(Physics::imaging_channels == Physics::model_arrays_of(2));
static_assert(Physics::wavefields + 2 * Physics::wavefields_per_axis == Physics::wavefields_of(2));
static_assert(Physics::wavefields + 3 * Physics::wavefields_per_axis == Physics::wavefields_of(3));
static_assert(Physics::model_arrays + 2 * Physics::model_arrays_per_axis ==
              Physics::model_arrays_of(2));
static_assert(Physics::model_arrays + 3 * Physics::model_arrays_per_axis ==
              Physics::model_arrays_of(3));

}  // namespace pwave::physics::elastic
