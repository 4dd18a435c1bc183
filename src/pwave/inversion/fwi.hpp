#pragma once
// The FWI loop: minibatch gradients, gradient conditioning, optimiser step, bounds, outputs,
// checkpoints, multiscale stages.

#include <functional>

#include "pwave/core/types.hpp"
#include "pwave/inversion/fwi_config.hpp"

namespace pwave {

/// The result of run_fwi.
struct FwiResult {
  Model2D model;                 ///< final model
  std::vector<double> misfits;   ///< per iteration (of the iteration's minibatch)
};

/// Runs the inversion of `observed` [shot][receiver][time] (host, precision T). Writes into
/// config.output_directory:
///   model_final.npy [nz, nx]; model_NNNN.npy and gradient_NNNN.npy every output_every
///   iterations (NNNN = iteration, from 1); history.csv with the header
///   "iteration,stage,misfit,gradient_norm,step,seconds"; checkpoint.bin (the state to resume).
/// Logs one progress line per iteration (misfit, seconds per iteration, ETA).
template <class T>
FwiResult run_fwi(const FwiConfig& config, const HostArray3<T>& observed);

}  // namespace pwave
