#pragma once
// Optimisers for FWI (SGD with momentum, Adam, L-BFGS). All vector work runs on the device:
// Kokkos Kernels BLAS-1 (axpby, dot, nrminf, scal, update) plus two small elementwise kernels
// (Adam's moment update and the bound projection). Nothing is copied to the host.

#include <functional>
#include <vector>

#include "pwave/core/types.hpp"
#include "pwave/inversion/fwi_config.hpp"

namespace pwave {

/// A model-sized vector on the device.
template <class T>
using DeviceVector = Kokkos::View<T*, Kokkos::LayoutRight, MemSpace>;

/// Misfit at `model`, with its gradient written to `gradient` (same minibatch every call within
/// one step, so that line searches and L-BFGS curvature pairs compare like with like).
template <class T>
using Objective =
    std::function<double(const DeviceVector<T>& model, const DeviceVector<T>& gradient)>;

/// What one optimiser step did.
struct StepInfo {
  double misfit = 0.0;         ///< at the model the step started from
  double gradient_norm = 0.0;  ///< L2 norm of the (conditioned) gradient there
  double step = 0.0;           ///< largest model change of the step, m/s
  int evaluations = 0;         ///< objective evaluations (gradients) used
};

/// The inversion's optimiser, with its whole state on the device (for checkpoints, state()).
template <class T>
class Optimizer {
 public:
  /// Bounds [lower, upper] of one block of the vector: the vector is `size` values split into
  /// equal consecutive blocks, one per entry of `bounds` (one per inverted parameter).
  struct Bounds {
    double lower = 0.0, upper = 0.0;
    /// Values exactly 0 stay 0 (vs: fluid cells stay fluid; their gradient is 0, as
    /// d mu / d vs = 2 rho vs, so nothing but the bounds would move them).
    bool keep_zero = false;
  };

  /// `size` must be a multiple of bounds.size().
  Optimizer(const OptimizerConfig& config, std::size_t size, const std::vector<Bounds>& bounds);

  /// Updates `model` in place: one iteration. `gradient` is scratch (holds the last gradient).
  StepInfo step(const DeviceVector<T>& model, const DeviceVector<T>& gradient,
                const Objective<T>& objective);

  /// Serialises / restores the state (iteration count, moments, L-BFGS pairs, scales).
  std::vector<double> save() const;
  void load(const std::vector<double>& state);

 private:
  void project(const DeviceVector<T>& model) const;
  StepInfo step_sgd(const DeviceVector<T>& model, const DeviceVector<T>& gradient, double f);
  StepInfo step_adam(const DeviceVector<T>& model, const DeviceVector<T>& gradient, double f);
  StepInfo step_lbfgs(const DeviceVector<T>& model, const DeviceVector<T>& gradient, double f,
                      const Objective<T>& objective);

  OptimizerConfig config_;
  std::size_t size_;
  std::vector<Bounds> bounds_;
  long iteration_ = 0;
  double scale_ = 0.0;     // sgd: fixed step per unit gradient; lbfgs: initial H0 scale; adam:
                           // 1 / the first nonzero gradient's largest |g| (its moments' unit)
  DeviceVector<T> m_, v_;  // adam moments, sgd velocity (m_)
  DeviceVector<T> trial_, trial_grad_, direction_;  // lbfgs scratch
  std::vector<DeviceVector<T>> s_, y_;              // lbfgs pairs (newest last)
  std::vector<double> rho_;
};

}  // namespace pwave
