#pragma once
// The FWI loop: minibatch gradients, gradient conditioning, optimiser step, bounds, multiscale
// stages; outputs and checkpoints reported to an FwiObserver.

#include <functional>

#include "pwave/core/observed.hpp"
#include "pwave/core/types.hpp"
#include "pwave/inversion/fwi_config.hpp"
#include "pwave/inversion/fwi_observer.hpp"
#include "pwave/parallel/communicator.hpp"

namespace pwave {

/// The result of run_fwi.
struct FwiResult {
  Model model;                  ///< final model
  std::vector<double> misfits;  ///< per iteration (of the iteration's minibatch)
  double seconds = 0.0;         ///< wall time of the iterations run by this call
  double reduce_seconds = 0.0;  ///< of which in the cross-rank sums (misfit + gradient)
  bool completed = false;       ///< every iteration done (false after FwiConfig::stop_after)
  /// The wavelet at the end: the last estimate with wavelet estimation, else the problem's.
  std::vector<double> wavelet;
  /// Observed traces excluded from the misfit as dead (all zero, or NaN/Inf;
  /// misfit::Selection::exclude_dead_traces) in the shots the iterations of this call drew, each
  /// shot counted once (with every shot in every iteration: the data set's dead traces).
  long dead_traces = 0;
  /// Every shot's wavelet at the end, [shot][time], when the shots have their own (per-shot
  /// estimation or ForwardProblem::shot_wavelets); empty otherwise.
  std::vector<std::vector<double>> shot_wavelets;
};

/// Runs the inversion of `observed` [shot][receiver][time] (host) in precision T and returns the
/// final model. Reports to `observer` (FwiObserver: history rows, model and gradient snapshots,
/// checkpoints, the final model, and the state to resume from); io::FwiFiles writes them as
/// pwave's output folder. Writes no file itself. Logs one progress line per iteration (misfit,
/// seconds per iteration, ETA).
///
/// With a communicator of several ranks, every rank runs this with the same config and data:
/// each iteration's minibatch is split across the ranks (parallel::plan_shots), each computes
/// its shots' misfits and per-shot gradients, and the sums over the batch are taken in batch
/// order (parallel::OrderedSum), so the result is bitwise the same on any number of ranks and
/// every rank takes the same optimiser step. Rank 0 alone logs and reports to its observer
/// (every rank asks its observer for the resume point).
///
/// A rank propagates its share in chunks of at most config.problem.shot_batch shots (0: all at
/// once), with device memory for one chunk; the result does not depend on the chunk size. Only
/// the chunk's observed traces are read (ObservedTraces::read_shot), low-passed in a multiscale
/// stage, and copied to the device, so `observed` may be a memory-mapped file of any size.
template <class T>
FwiResult run_fwi(const FwiConfig& config, const ObservedTraces& observed, FwiObserver& observer,
                  const parallel::Communicator& comm = parallel::Communicator::self());

/// The same for observed data in a host array (precision T).
template <class T>
FwiResult run_fwi(const FwiConfig& config, const HostArray3<T>& observed, FwiObserver& observer,
                  const parallel::Communicator& comm = parallel::Communicator::self());

/// The same without an observer: only the returned result is kept.
template <class T>
FwiResult run_fwi(const FwiConfig& config, const ObservedTraces& observed,
                  const parallel::Communicator& comm = parallel::Communicator::self());
template <class T>
FwiResult run_fwi(const FwiConfig& config, const HostArray3<T>& observed,
                  const parallel::Communicator& comm = parallel::Communicator::self());

}  // namespace pwave
