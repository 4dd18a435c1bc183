#include "pwave/io/trace_resampler.hpp"

#include <algorithm>
#include <cmath>

#include "pwave/core/windowed_sinc.hpp"

namespace pwave::io {

TraceResampler::TraceResampler(TimeAxis in, TimeAxis out) : in_(in), out_(out) {
  const double dt_in = in.dt, dt_out = out.dt;
  // Input sample k sits at output time (in.start - out.start) + k dt_in.
  const double lag = in.start - out.start;
  const double lag_samples = lag / dt_in;
  copy_ = std::abs(dt_in - dt_out) <= 1e-9 * dt_out &&
          std::abs(lag_samples - std::round(lag_samples)) <= 1e-9;
  if (copy_) {
    shift_ = -std::lround(lag_samples);
    return;
  }
  constexpr int zero_crossings = 12;
  constexpr double beta = 8.0;
  const double fc = 0.9 * 0.5 / std::max(dt_in, dt_out);  // Hz
  const double half = zero_crossings / (2.0 * fc);        // s: the window's half-width
  const int n_in = in.n;
  const double last = lag + (n_in - 1) * dt_in;  // the input's last sample, output time
  offset_.push_back(0);
  for (int n = 0; n < out.n; ++n) {
    const double t = n * dt_out;
    const int k0 = int(std::ceil((t - lag - half) / dt_in));
    const int k1 = int(std::floor((t - lag + half) / dt_in));
    first_.push_back(std::max(k0, 0));
    double total = 0.0;
    std::vector<double> w;
    for (int k = k0; k <= k1; ++k) {
      const double tau = t - lag - k * dt_in, u = tau / half;
      const double weight = sinc(2.0 * fc * tau) * kaiser_window(u, beta);
      total += weight;
      if (k >= 0 && k < n_in) w.push_back(weight);
    }
    // Before the input's first sample or past its last: 0 (no weights).
    if (t < lag - 1e-12 * std::abs(lag) || t > last + 1e-12 * std::abs(last)) w.clear();
    for (double v : w) w_.push_back(total != 0.0 ? v / total : 0.0);
    offset_.push_back(w_.size());
  }
}

template <class U>
void TraceResampler::apply_impl(const U* in, double* out) const {
  if (copy_) {
    for (int n = 0; n < out_.n; ++n) {
      const long k = n + shift_;
      out[n] = k >= 0 && k < in_.n ? double(in[k]) : 0.0;
    }
    return;
  }
  for (int n = 0; n < out_.n; ++n) {
    double sum = 0.0;
    const U* x = in + first_[std::size_t(n)];
    for (std::size_t i = offset_[std::size_t(n)]; i < offset_[std::size_t(n) + 1]; ++i) {
      sum += w_[i] * double(x[i - offset_[std::size_t(n)]]);
    }
    out[n] = sum;
  }
}

void TraceResampler::apply(const float* in, double* out) const {
  apply_impl(in, out);
}
void TraceResampler::apply(const double* in, double* out) const {
  apply_impl(in, out);
}

}  // namespace pwave::io
