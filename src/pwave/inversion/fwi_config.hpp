#pragma once
// Settings of a full-waveform inversion, independent of files and the command line.

#include <string>
#include <vector>

#include "pwave/propagation/forward_problem.hpp"
#include "pwave/propagation/storage.hpp"

namespace pwave {

/// Optimiser settings. Step sizes are in m/s: `learning_rate` is the largest model change of
/// the first iteration for sgd and lbfgs (the step is scaled so max|update| = learning_rate;
/// L-BFGS then keeps unit steps with a backtracking line search), and the per-cell step of Adam.
struct OptimizerConfig {
  std::string type = "adam";  ///< adam | lbfgs | sgd
  double learning_rate = 20.0;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  ///< adam
  double momentum = 0.0;                              ///< sgd
  int memory = 5;                                     ///< lbfgs: stored pairs
};

/// One stage of a multiscale inversion: data and wavelet low-pass filtered below
/// `max_frequency` Hz (0 = unfiltered), run for `iterations` iterations.
struct StageConfig {
  int iterations = 0;
  double max_frequency = 0.0;
};

/// Everything run_fwi needs besides the observed data.
struct FwiConfig {
  ForwardProblem problem;           ///< initial model, acquisition, time axis, wavelet
  std::vector<StageConfig> stages;  ///< at least one
  int batch_size = 0;               ///< shots per iteration (0 = all), drawn without replacement
  unsigned long seed = 1;           ///< of the shot-drawing generator
  OptimizerConfig optimizer;
  /// The parameters inverted, each once, in this order (the optimiser's vector holds them one
  /// after the other). vp always exists; rho needs problem.equation acoustic_variable_density.
  /// Step sizes (optimizer.learning_rate, history's step) are in the unit of the first one;
  /// every other parameter p is stepped in proportion to its bounds' width: the optimiser sees
  /// p scaled by (upper_first - lower_first) / (upper_p - lower_p), so that one step moves every
  /// parameter by the same fraction of its range.
  std::vector<physics::Parameter> parameters{physics::Parameter::vp};
  double vmin = 0.0, vmax = 0.0;        ///< bounds of vp (m/s), applied after every update
  double rho_min = 0.0, rho_max = 0.0;  ///< bounds of rho (kg/m^3) when it is inverted
  double smoothing = 0.0;               ///< Gaussian smoothing of the gradient, sigma in metres
  double water_depth = 0.0;             ///< metres: the gradient is zero above this depth
  double source_taper = 0.0;            ///< metres: the gradient is tapered to zero at sources
  StorageOptions storage = Storage::boundary;  ///< strategy for the backward pass
  std::string output_directory;                ///< where models, history and checkpoints go
  int output_every = 0;      ///< write model/gradient every N iterations (0 = never)
  int checkpoint_every = 1;  ///< save the inversion state every N iterations
  bool resume = false;       ///< continue from the checkpoint in output_directory
  /// Stop after this many iterations of this run, with a checkpoint, so that a later --resume
  /// continues (for batch jobs with a wall-time limit); 0 = run to the end.
  int stop_after = 0;
  /// Gradient allreduce with several ranks: "auto" (detect a GPU-aware MPI), "on" (device
  /// pointers to MPI), "off" (stage through host memory). PWAVE_GPU_AWARE_MPI overrides it.
  std::string gpu_aware_mpi = "auto";
};

}  // namespace pwave
