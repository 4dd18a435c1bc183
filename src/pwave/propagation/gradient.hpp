#pragma once
// Misfit and its exact gradient with respect to the velocity model.

#include "pwave/core/observed.hpp"
#include "pwave/core/types.hpp"
#include "pwave/misfit/selection.hpp"
#include "pwave/parallel/communicator.hpp"
#include "pwave/propagation/chain_rule.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/storage.hpp"

namespace pwave {

/// J and dJ/dp for every material parameter p of the equation (vp; rho for variable density and
/// elastic; vs for elastic) for the misfit J chosen (misfit::Options; by default l2: J = 0.5 *
/// sum over shots, receivers and samples of (d - d_obs)^2, no dt factor). Gradients are
/// [nz][nx] ([nz][ny nx] in 3D), in J per unit of the parameter.
template <class T>
struct GradientResult {
  double misfit = 0.0;
  HostArray2<T> gradient;  ///< dJ/dvp on the model grid [nz][nx], J per (m/s)
  /// dJ/dp per parameter, indexed by physics::Parameter (gradients[vp] is `gradient`, the same
  /// array); empty for the parameters the equation does not have. Use of() and has().
  HostArray2<T> gradients[physics::parameter_count];
  HostArray3<T> synthetic;  ///< modelled data [shot][receiver][time]
  long dead_traces = 0;     ///< observed traces excluded as dead (all zero, or NaN/Inf)

  /// dJ/dp, J per unit of p (physics::unit); empty when the equation has no p.
  const HostArray2<T>& of(physics::Parameter p) const { return gradients[int(p)]; }
  HostArray2<T>& of(physics::Parameter p) { return gradients[int(p)]; }
  /// Whether the equation has parameter p (its gradient was computed).
  bool has(physics::Parameter p) const { return gradients[int(p)].size() > 0; }
};

/// Computes the misfit against `observed` ([shot][receiver][time], host) and its gradient with
/// the exact discrete adjoint. CPML cells' gradient is folded onto the edge cells they copy.
/// With several ranks the shots are split over them; each rank propagates its share in chunks
/// of at most problem.shot_batch shots (0: all at once), staging only a chunk's observed traces
/// on the device. The result, identical on every rank, is bitwise the same for any number of
/// ranks and any shot_batch (see ShotGradient). Every rank returns all synthetic traces.
/// `misfit`: the misfit function (its adjoint source is what the adjoint propagation injects)
/// and the data selection (misfit/selection.hpp).
template <class T>
GradientResult<T> misfit_gradient(
    const ForwardProblem& problem, const ObservedTraces& observed,
    const StorageOptions& storage = Storage::boundary, const ProgressCallback& progress = {},
    const parallel::Communicator& comm = parallel::Communicator::self(),
    const misfit::Options& misfit = {});

/// The same for observed data in a host array.
template <class T>
GradientResult<T> misfit_gradient(
    const ForwardProblem& problem, const HostArray3<T>& observed,
    const StorageOptions& storage = Storage::boundary, const ProgressCallback& progress = {},
    const parallel::Communicator& comm = parallel::Communicator::self(),
    const misfit::Options& misfit = {});

}  // namespace pwave
