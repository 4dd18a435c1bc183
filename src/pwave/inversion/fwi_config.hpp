#pragma once
// Settings of a full-waveform inversion, independent of files and the command line.

#include <string>
#include <vector>

#include "pwave/config/inversion.hpp"
#include "pwave/misfit/selection.hpp"
#include "pwave/propagation/forward_problem.hpp"
#include "pwave/propagation/storage.hpp"

namespace pwave {

/// Everything run_fwi needs besides the observed data: the deck's inversion settings (the base)
/// and how this run goes.
struct FwiConfig : InversionSettings {
  ForwardProblem problem;                      ///< initial model, acquisition, time axis, wavelet
  StorageOptions storage = Storage::boundary;  ///< strategy for the backward pass
  /// The misfit function J and the data it sees (deck gradient.misfit, gradient.selection).
  misfit::Options misfit;
  /// Stop after this many iterations of this run, with a checkpoint (FwiObserver::checkpoint),
  /// so that a later run given it (FwiObserver::resume_point) continues (for batch jobs with a
  /// wall-time limit); 0 = run to the end.
  int stop_after = 0;
  /// Gradient allreduce with several ranks: "auto" (detect a GPU-aware MPI), "on" (device
  /// pointers to MPI), "off" (stage through host memory). PWAVE_GPU_AWARE_MPI overrides it.
  std::string gpu_aware_mpi = "auto";
};

}  // namespace pwave
