#pragma once
// Forward modelling of a ForwardProblem: all shots, batched, receivers recorded.

#include <cmath>
#include <functional>

#include "pwave/core/types.hpp"
#include "pwave/propagation/forward_problem.hpp"

namespace pwave {

/// Called with (steps done, steps total) during a run, for progress lines.
using ProgressCallback = std::function<void(long, long)>;

/// Validates `problem` (order, CFL, geometry) and throws InputError with a clear message.
void validate(const ForwardProblem& problem);

/// The velocity (m/s) the CFL limit of the problem's equation sees: vmax for constant density;
/// for variable density and elastic (whose limit is the staggered acoustic one with vp,
/// physics/elastic/stability.hpp) the largest sqrt(rho_i v_i^2 max b) over each cell i and its
/// neighbours (a Gershgorin bound of the staggered operator: a density contrast raises it above
/// vmax). Needs model.rho for variable density.
double stability_velocity(const ForwardProblem& problem);
/// The same for model `m` under `equation` (e.g. a true model, without a problem copy).
double stability_velocity(physics::Equation equation, const Model& m);

/// How much the density contrasts of `m` raise the stability velocity over the velocity
/// itself: the largest sqrt(rho_i / min rho over i and its neighbours) (1 for constant
/// density). vmax times it is the stability velocity of the model with every vp at vmax (the
/// bound an inversion may reach).
double density_contrast_factor(physics::Equation equation, const Model& m);

/// The slowest wave speed of `m` under `equation` (m/s), for the numerical-dispersion check:
/// vmin for the acoustic equations; for the elastic one the smallest over the cells of vs where
/// vs > 0 and vp where vs = 0 (a fluid cell carries no S wave). Needs model.vs for elastic.
double dispersion_velocity(physics::Equation equation, const Model& m);

/// Whether S velocity `vs` is admissible next to P velocity `vp` (m/s): finite, >= 0, and
/// below sqrt(3)/2 vp (else the bulk modulus rho (vp^2 - 4/3 vs^2) is not positive).
inline bool shear_velocity_ok(double vs, double vp) {
  return std::isfinite(vs) && vs >= 0.0 && 4.0 * vs * vs < 3.0 * vp * vp;
}

/// Largest stable dt (s) of the problem's equation, order and grid for a stability velocity
/// `velocity` (m/s; see stability_velocity).
double max_stable_dt(const ForwardProblem& problem, double velocity);

/// Runs every shot and returns the receiver traces, host-side, [shot][receiver][time], in
/// the precision T (float or double). Receiver sample n is u(x_r, t = n dt).
/// Throws RuntimeError naming the step if the wavefield becomes NaN or Inf.
template <class T>
HostArray3<T> forward_model(const ForwardProblem& problem, const ProgressCallback& progress = {});

}  // namespace pwave
