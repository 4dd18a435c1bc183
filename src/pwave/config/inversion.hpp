#pragma once
// The settings of an inversion as a deck states them: plain values, filled by the deck reader
// (io) and read by the FWI loop (inversion), so neither copies the other's fields. A leaf:
// it depends on nothing but the physics' parameter names.

#include <string>
#include <vector>

#include "pwave/physics/equation.hpp"

namespace pwave {

/// Optimiser settings. Step sizes are in the unit of the first inverted parameter (m/s for vp):
/// `learning_rate` is the largest model change of the first iteration for sgd and lbfgs (the
/// step is scaled so max|update| = learning_rate; L-BFGS then keeps unit steps with a
/// backtracking line search), and the per-cell step of Adam.
struct OptimizerConfig {
  std::string type = "adam";  ///< adam | lbfgs | sgd
  double learning_rate = 20.0;
  /// adam; epsilon relative to the first gradient's largest |g| (Adam sees g / max|g_1|)
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double momentum = 0.0;  ///< sgd
  int memory = 5;         ///< lbfgs: stored pairs
};

/// One stage of a multiscale inversion: data and wavelet low-pass filtered below
/// `max_frequency` Hz (0 = no low-pass) and high-pass filtered above `min_frequency` Hz (0 = no
/// high-pass; BandpassFilter), run for `iterations` iterations.
struct StageConfig {
  int iterations = 0;
  double max_frequency = 0.0;
  double min_frequency = 0.0;
};

/// Source wavelet estimation during an inversion (deck `wavelet.estimate`;
/// inversion/wavelet_estimation.hpp): before the gradient of an iteration, the wavelet is
/// replaced by the filter that best maps the synthetic data of the current model and wavelet to
/// the observed data, applied to the wavelet. The problem's wavelet is the initial one.
struct WaveletEstimation {
  enum class Every {
    iteration,  ///< at every iteration, from its minibatch's shots
    stage,      ///< once per stage, at its first iteration, from every shot
  };
  bool enabled = false;
  Every every = Every::iteration;
  /// eps = water_level * max_f P(f), P the synthetic data's power per frequency: where P is
  /// below about eps the filter tends to 1 (the wavelet is kept there). >= 0.
  double water_level = 1e-3;
  /// One wavelet per shot, each estimated from its own traces (the same filter, from the sums of
  /// that shot alone) and applied to its own wavelet; shots outside the estimate's minibatch
  /// keep theirs. false: one filter from every shot's traces, applied to every shot's wavelet.
  bool per_shot = false;
};

/// The deck's name of an estimation cadence: "iteration" or "stage".
inline const char* name(WaveletEstimation::Every e) {
  return e == WaveletEstimation::Every::stage ? "stage" : "iteration";
}

/// The deck's `inversion` section (inputs/README.md).
struct InversionSettings {
  std::vector<StageConfig> stages;  ///< at least one
  bool stages_given = false;        ///< the deck wrote `stages` (else `iterations` made one)
  int batch_size = 0;               ///< shots per iteration (0 = all), drawn without replacement
  unsigned long seed = 1;           ///< of the shot-drawing generator
  OptimizerConfig optimizer;
  /// The parameters inverted, each once, in this order (the optimiser's vector holds them one
  /// after the other). vp always exists; rho needs the equation acoustic_variable_density or
  /// elastic, vs the equation elastic.
  /// Step sizes (optimizer.learning_rate, history's step) are in the unit of the first one;
  /// every other parameter p is stepped in proportion to its bounds' width: the optimiser sees
  /// p scaled by (upper_first - lower_first) / (upper_p - lower_p), so that one step moves every
  /// parameter by the same fraction of its range.
  std::vector<physics::Parameter> parameters{physics::Parameter::vp};
  double vmin = 0.0, vmax = 0.0;        ///< bounds of vp (m/s), applied after every update (the
                                        ///< model's range when vp is not inverted)
  double rho_min = 0.0, rho_max = 0.0;  ///< bounds of rho (kg/m^3) when it is inverted
  /// Bounds of vs (m/s) when it is inverted; vs_min may be 0 (fluid cells stay fluid).
  double vs_min = 0.0, vs_max = 0.0;
  double smoothing = 0.0;     ///< Gaussian smoothing of the gradient, sigma in metres
  double water_depth = 0.0;   ///< metres: the gradient is zero above this depth
  double source_taper = 0.0;  ///< metres: the gradient is tapered to zero at sources
  /// Source wavelet estimation (the deck's wavelet.estimate, read with the wavelet section).
  WaveletEstimation wavelet_estimation;
  int output_every = 0;      ///< write models and gradients every N iterations (0 = never)
  int checkpoint_every = 1;  ///< save the inversion state every N iterations

  /// The bounds of parameter p: vmin / vmax for vp, rho_min / rho_max for rho, vs_min / vs_max
  /// for vs.
  double& lower_bound(physics::Parameter p) {
    return p == physics::Parameter::vp ? vmin : p == physics::Parameter::rho ? rho_min : vs_min;
  }
  double& upper_bound(physics::Parameter p) {
    return p == physics::Parameter::vp ? vmax : p == physics::Parameter::rho ? rho_max : vs_max;
  }
  double lower_bound(physics::Parameter p) const {
    return p == physics::Parameter::vp ? vmin : p == physics::Parameter::rho ? rho_min : vs_min;
  }
  double upper_bound(physics::Parameter p) const {
    return p == physics::Parameter::vp ? vmax : p == physics::Parameter::rho ? rho_max : vs_max;
  }
  /// The smallest lower bound parameter p may take: 0 for vs (a fluid cell), else above 0.
  static bool lower_bound_may_be_zero(physics::Parameter p) { return p == physics::Parameter::vs; }

  /// Total iterations over all stages.
  int total_iterations() const {
    int n = 0;
    for (const StageConfig& s : stages) n += s.iterations;
    return n;
  }
};

}  // namespace pwave
