#include "pwave/inversion/optimizer.hpp"

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosBlas1_nrminf.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosBlas1_update.hpp>
#include <cmath>

#include "pwave/core/error.hpp"
#include "pwave/core/log.hpp"

namespace pwave {
namespace {

template <class T>
DeviceVector<T> make_vector(const char* name, std::size_t n) {
  return DeviceVector<T>(std::string(name), n);
}

/// Largest |x_i|, through Kokkos Kernels.
template <class T>
double max_abs(const DeviceVector<T>& x) {
  return double(KokkosBlas::nrminf(x));
}

// The device loops of the private members below live in these free functions: nvcc rejects
// extended (KOKKOS_LAMBDA) lambdas inside private or protected member functions.

/// Clamps every model value to [lo, hi]; with keep_zero, values exactly 0 stay 0.
template <class T>
void clamp_to_bounds(const DeviceVector<T>& model, const T lo, const T hi, const bool keep_zero) {
  Kokkos::parallel_for(
      "pwave::inversion::project_bounds", Kokkos::RangePolicy<ExecSpace>(0, model.extent(0)),
      KOKKOS_LAMBDA(const long i) {
        const T v = model(i);
        if (keep_zero && v == T(0)) return;
        model(i) = v < lo ? lo : (v > hi ? hi : v);
      });
}

/// Adam's moment update and model step (c1, c2: bias corrections) on the gradient times `unit`;
/// returns the largest |step|.
template <class T>
double adam_update(const DeviceVector<T>& model, const DeviceVector<T>& g, const DeviceVector<T>& m,
                   const DeviceVector<T>& v, const T unit, const T b1, const T b2, const T eps,
                   const T lr, const T c1, const T c2) {
  double biggest = 0;
  Kokkos::parallel_reduce(
      "pwave::inversion::adam", Kokkos::RangePolicy<ExecSpace>(0, model.extent(0)),
      KOKKOS_LAMBDA(const long i, double& mx) {
        const T gi = g(i) * unit;
        m(i) = b1 * m(i) + (T(1) - b1) * gi;
        v(i) = b2 * v(i) + (T(1) - b2) * gi * gi;
        const T d = lr * (m(i) * c1) / (math::sqrt(v(i) * c2) + eps);
        model(i) -= d;
        const double ad = d < 0 ? -double(d) : double(d);
        if (ad > mx) mx = ad;
      },
      Kokkos::Max<double>(biggest));
  return biggest;
}

}  // namespace

template <class T>
Optimizer<T>::Optimizer(const OptimizerConfig& config, std::size_t size,
                        const std::vector<Bounds>& bounds)
    : config_(config), size_(size), bounds_(bounds) {
  if (bounds_.empty() || size % bounds_.size() != 0) {
    throw RuntimeError("Optimizer: " + std::to_string(size) + " values do not split into " +
                       std::to_string(bounds_.size()) + " equal blocks");
  }
  if (config_.type != "sgd" && config_.type != "adam" && config_.type != "lbfgs") {
    throw InputError("inversion.optimizer.type", "",
                     "unknown optimizer '" + config_.type + "' (use adam, lbfgs or sgd)");
  }
  if (!(config_.learning_rate > 0)) {
    throw InputError("inversion.optimizer.learning_rate", "", "must be positive");
  }
  if (config_.type == "sgd" || config_.type == "adam") m_ = make_vector<T>("pwave::opt_m", size);
  if (config_.type == "adam") v_ = make_vector<T>("pwave::opt_v", size);
  if (config_.type == "lbfgs") {
    trial_ = make_vector<T>("pwave::lbfgs_trial", size);
    trial_grad_ = make_vector<T>("pwave::lbfgs_trial_grad", size);
    direction_ = make_vector<T>("pwave::lbfgs_direction", size);
  }
}

template <class T>
void Optimizer<T>::project(const DeviceVector<T>& model) const {
  const std::size_t block = size_ / bounds_.size();
  if (bounds_.size() == 1) {
    clamp_to_bounds(model, T(bounds_[0].lower), T(bounds_[0].upper), bounds_[0].keep_zero);
    return;
  }
  for (std::size_t k = 0; k < bounds_.size(); ++k) {
    const DeviceVector<T> part(model.data() + k * block, block);  // unmanaged: a block
    clamp_to_bounds(part, T(bounds_[k].lower), T(bounds_[k].upper), bounds_[k].keep_zero);
  }
}

template <class T>
StepInfo Optimizer<T>::step(const DeviceVector<T>& model, const DeviceVector<T>& gradient,
                            const Objective<T>& objective) {
  const double f = objective(model, gradient);
  ++iteration_;
  StepInfo info;
  if (config_.type == "sgd")
    info = step_sgd(model, gradient, f);
  else if (config_.type == "adam")
    info = step_adam(model, gradient, f);
  else
    info = step_lbfgs(model, gradient, f, objective);
  info.misfit = f;
  info.evaluations += 1;
  return info;
}

template <class T>
StepInfo Optimizer<T>::step_sgd(const DeviceVector<T>& model, const DeviceVector<T>& g, double) {
  StepInfo info;
  info.gradient_norm = double(KokkosBlas::nrm2(g));
  // The first gradient fixes the scale: the first step changes the model by learning_rate.
  if (scale_ == 0.0) {
    const double gmax = max_abs(g);
    scale_ = gmax > 0 ? config_.learning_rate / gmax : 0.0;
  }
  // m = momentum m + g; model -= scale m.
  KokkosBlas::axpby(T(1), g, T(config_.momentum), m_);
  info.step = scale_ * max_abs(m_);
  KokkosBlas::axpby(T(-scale_), m_, T(1), model);
  project(model);
  return info;
}

template <class T>
StepInfo Optimizer<T>::step_adam(const DeviceVector<T>& model, const DeviceVector<T>& g, double) {
  StepInfo info;
  info.gradient_norm = double(KokkosBlas::nrm2(g));
  const T b1 = T(config_.beta1), b2 = T(config_.beta2), eps = T(config_.epsilon);
  const T lr = T(config_.learning_rate);
  const T c1 = T(1.0 / (1.0 - std::pow(config_.beta1, double(iteration_))));
  const T c2 = T(1.0 / (1.0 - std::pow(config_.beta2, double(iteration_))));
  // The first nonzero gradient's largest |g| is the gradient's unit: Adam sees g / max|g_1|, so
  // epsilon is relative to it and the steps do not depend on the data's amplitude (a 1 N force
  // gives gradients of 1e-24, whose squares float32 cannot hold).
  if (scale_ == 0.0) {
    const double gmax = max_abs(g);
    if (gmax > 0) scale_ = 1.0 / gmax;
  }
  const T unit = T(scale_ > 0 ? scale_ : 1.0);
  info.step = adam_update(model, g, m_, v_, unit, b1, b2, eps, lr, c1, c2);
  project(model);
  return info;
}

template <class T>
StepInfo Optimizer<T>::step_lbfgs(const DeviceVector<T>& model, const DeviceVector<T>& g, double f,
                                  const Objective<T>& objective) {
  StepInfo info;
  info.gradient_norm = double(KokkosBlas::nrm2(g));
  // Two-loop recursion: direction = -H g.
  Kokkos::deep_copy(direction_, g);
  const int k = int(s_.size());
  std::vector<double> alpha(std::size_t(k), 0.0);
  for (int i = k - 1; i >= 0; --i) {
    alpha[i] = rho_[i] * double(KokkosBlas::dot(s_[i], direction_));
    KokkosBlas::axpby(T(-alpha[i]), y_[i], T(1), direction_);
  }
  double gamma;
  if (k > 0) {
    const double sy = double(KokkosBlas::dot(s_.back(), y_.back()));
    const double yy = double(KokkosBlas::dot(y_.back(), y_.back()));
    gamma = sy / yy;
  } else {
    // No curvature yet: scale so that the first trial step changes the model by learning_rate.
    const double gmax = max_abs(g);
    gamma = gmax > 0 ? config_.learning_rate / gmax : 0.0;
  }
  KokkosBlas::scal(direction_, T(gamma), direction_);
  for (int i = 0; i < k; ++i) {
    const double beta = rho_[i] * double(KokkosBlas::dot(y_[i], direction_));
    KokkosBlas::axpby(T(alpha[i] - beta), s_[i], T(1), direction_);
  }
  KokkosBlas::scal(direction_, T(-1), direction_);
  double slope = double(KokkosBlas::dot(g, direction_));
  if (!(slope < 0)) {  // not a descent direction: restart from the scaled gradient
    s_.clear(), y_.clear(), rho_.clear();
    const double gmax = max_abs(g);
    KokkosBlas::scal(direction_, T(gmax > 0 ? -config_.learning_rate / gmax : 0.0), g);
    slope = double(KokkosBlas::dot(g, direction_));
  }
  // Backtracking (Armijo) line search on the projected trial model.
  double t = 1.0, f_trial = f;
  bool accepted = false;
  for (int tries = 0; tries < 8 && !accepted; ++tries) {
    KokkosBlas::update(T(1), model, T(t), direction_, T(0), trial_);  // trial = model + t d
    project(trial_);
    f_trial = objective(trial_, trial_grad_);
    ++info.evaluations;
    accepted = f_trial <= f + 1e-4 * t * slope;
    if (!accepted) t *= 0.5;
  }
  if (!accepted) {
    log::warn("L-BFGS line search found no decrease; keeping the model and resetting memory");
    s_.clear(), y_.clear(), rho_.clear();
    info.step = 0.0;
    return info;
  }
  // s = trial - model, y = g(trial) - g(model) (same minibatch).
  DeviceVector<T> s, y;
  if (int(s_.size()) == config_.memory) {
    s = s_.front(), y = y_.front();
    s_.erase(s_.begin()), y_.erase(y_.begin()), rho_.erase(rho_.begin());
  } else {
    s = make_vector<T>("pwave::lbfgs_s", size_), y = make_vector<T>("pwave::lbfgs_y", size_);
  }
  KokkosBlas::update(T(1), trial_, T(-1), model, T(0), s);
  KokkosBlas::update(T(1), trial_grad_, T(-1), g, T(0), y);
  const double sy = double(KokkosBlas::dot(s, y));
  info.step = max_abs(s);
  if (sy > 1e-12 * double(KokkosBlas::nrm2(s)) * double(KokkosBlas::nrm2(y))) {
    s_.push_back(s), y_.push_back(y), rho_.push_back(1.0 / sy);
  }
  Kokkos::deep_copy(model, trial_);
  Kokkos::deep_copy(g, trial_grad_);
  return info;
}

template <class T>
std::vector<double> Optimizer<T>::save() const {
  std::vector<double> out = {double(iteration_), scale_, double(s_.size())};
  auto append = [&](const DeviceVector<T>& v) {
    auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), v);
    for (std::size_t i = 0; i < h.extent(0); ++i) out.push_back(double(h(i)));
  };
  if (m_.extent(0)) append(m_);
  if (v_.extent(0)) append(v_);
  for (std::size_t i = 0; i < s_.size(); ++i) {
    append(s_[i]);
    append(y_[i]);
    out.push_back(rho_[i]);
  }
  return out;
}

template <class T>
void Optimizer<T>::load(const std::vector<double>& state) {
  std::size_t pos = 0;
  auto next = [&]() {
    if (pos >= state.size()) throw RuntimeError("checkpoint: optimizer state is truncated");
    return state[pos++];
  };
  auto fill = [&](const DeviceVector<T>& v) {
    auto h = Kokkos::create_mirror_view(v);
    for (std::size_t i = 0; i < h.extent(0); ++i) h(i) = T(next());
    Kokkos::deep_copy(v, h);
  };
  iteration_ = long(next());
  scale_ = next();
  const int pairs = int(next());
  if (m_.extent(0)) fill(m_);
  if (v_.extent(0)) fill(v_);
  s_.clear(), y_.clear(), rho_.clear();
  for (int i = 0; i < pairs; ++i) {
    s_.push_back(make_vector<T>("pwave::lbfgs_s", size_));
    y_.push_back(make_vector<T>("pwave::lbfgs_y", size_));
    fill(s_.back());
    fill(y_.back());
    rho_.push_back(next());
  }
  if (pos != state.size()) throw RuntimeError("checkpoint: optimizer state has the wrong size");
}

template class Optimizer<float>;
template class Optimizer<double>;

}  // namespace pwave
