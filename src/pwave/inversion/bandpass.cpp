#include "pwave/inversion/bandpass.hpp"

#include <cmath>

#include "pwave/core/error.hpp"
#include "pwave/core/kokkos_compat.hpp"

namespace pwave {

BandpassFilter::BandpassFilter(double min_frequency, double max_frequency, double dt) {
  const double nyquist = 0.5 / dt;
  const std::string range =
      "must lie between 0 and the Nyquist frequency " + std::to_string(nyquist) + " Hz";
  if (!(max_frequency >= 0) || !(max_frequency < nyquist)) {
    throw InputError("inversion.stages.max_frequency", "", range);
  }
  if (!(min_frequency >= 0) || !(min_frequency < nyquist)) {
    throw InputError("inversion.stages.min_frequency", "", range);
  }
  if (min_frequency == 0 && max_frequency == 0) {
    throw InputError("inversion.stages.max_frequency", "",
                     "a filter needs min_frequency or max_frequency above 0");
  }
  if (min_frequency > 0 && max_frequency > 0 && !(min_frequency < max_frequency)) {
    throw InputError("inversion.stages.min_frequency", "", "must be below max_frequency");
  }
  // RBJ biquads with the Q values of a 4th-order Butterworth: the low-pass first (the filter
  // of a stage with max_frequency alone, unchanged), then the high-pass.
  const double q_values[2] = {0.54119610, 1.30656296};
  if (max_frequency > 0) {
    const double w0 = 2.0 * pi * max_frequency * dt;
    for (double q : q_values) {
      const double alpha = std::sin(w0) / (2.0 * q), c = std::cos(w0), a0 = 1.0 + alpha;
      sections_.push_back({(1.0 - c) / 2.0 / a0, (1.0 - c) / a0, (1.0 - c) / 2.0 / a0,
                           -2.0 * c / a0, (1.0 - alpha) / a0});
    }
  }
  if (min_frequency > 0) {
    const double w0 = 2.0 * pi * min_frequency * dt;
    for (double q : q_values) {
      const double alpha = std::sin(w0) / (2.0 * q), c = std::cos(w0), a0 = 1.0 + alpha;
      sections_.push_back({(1.0 + c) / 2.0 / a0, -(1.0 + c) / a0, (1.0 + c) / 2.0 / a0,
                           -2.0 * c / a0, (1.0 - alpha) / a0});
    }
  }
}

template <class T>
void BandpassFilter::apply_impl(T* trace, std::size_t n) {
  work_.resize(n);  // allocates for the first trace only
  double* x = work_.data();
  for (std::size_t i = 0; i < n; ++i) x[i] = double(trace[i]);
  for (const bool reverse : {false, true}) {
    for (const Biquad& s : sections_) {
      double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = reverse ? n - 1 - k : k;
        const double y = s.b0 * x[i] + s.b1 * x1 + s.b2 * x2 - s.a1 * y1 - s.a2 * y2;
        x2 = x1, x1 = x[i], y2 = y1, y1 = y;
        x[i] = y;
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) trace[i] = T(x[i]);
}

void BandpassFilter::apply(float* trace, std::size_t n) {
  apply_impl(trace, n);
}
void BandpassFilter::apply(double* trace, std::size_t n) {
  apply_impl(trace, n);
}

std::vector<double> bandpass(const std::vector<double>& x, double min_frequency,
                             double max_frequency, double dt) {
  BandpassFilter f(min_frequency, max_frequency, dt);
  std::vector<double> y(x);
  f.apply(y.data(), y.size());
  return y;
}

std::vector<double> lowpass(const std::vector<double>& x, double cutoff, double dt) {
  return bandpass(x, 0.0, cutoff, dt);
}

template <class T>
void bandpass_traces(const HostArray3<T>& data, double min_frequency, double max_frequency,
                     double dt) {
  BandpassFilter f(min_frequency, max_frequency, dt);
  for (std::size_t s = 0; s < data.extent(0); ++s) {
    for (std::size_t r = 0; r < data.extent(1); ++r) f.apply(&data(s, r, 0), data.extent(2));
  }
}

template void bandpass_traces<float>(const HostArray3<float>&, double, double, double);
template void bandpass_traces<double>(const HostArray3<double>&, double, double, double);

}  // namespace pwave
