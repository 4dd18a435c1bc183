#include "pwave/inversion/lowpass.hpp"

#include <cmath>

#include "pwave/core/error.hpp"
#include "pwave/core/kokkos_compat.hpp"

namespace pwave {

LowpassFilter::LowpassFilter(double cutoff, double dt) {
  if (!(cutoff > 0) || !(cutoff < 0.5 / dt)) {
    throw InputError(
        "inversion.stages.max_frequency", "",
        "must lie between 0 and the Nyquist frequency " + std::to_string(0.5 / dt) + " Hz");
  }
  // RBJ low-pass biquads with the Q values of a 4th-order Butterworth.
  const double w0 = 2.0 * pi * cutoff * dt;
  for (double q : {0.54119610, 1.30656296}) {
    const double alpha = std::sin(w0) / (2.0 * q), c = std::cos(w0), a0 = 1.0 + alpha;
    sections_.push_back({(1.0 - c) / 2.0 / a0, (1.0 - c) / a0, (1.0 - c) / 2.0 / a0, -2.0 * c / a0,
                         (1.0 - alpha) / a0});
  }
}

template <class T>
void LowpassFilter::apply_impl(T* trace, std::size_t n) {
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

void LowpassFilter::apply(float* trace, std::size_t n) {
  apply_impl(trace, n);
}
void LowpassFilter::apply(double* trace, std::size_t n) {
  apply_impl(trace, n);
}

std::vector<double> lowpass(const std::vector<double>& x, double cutoff, double dt) {
  LowpassFilter f(cutoff, dt);
  std::vector<double> y(x);
  f.apply(y.data(), y.size());
  return y;
}

template <class T>
void lowpass_traces(const HostArray3<T>& data, double cutoff, double dt) {
  LowpassFilter f(cutoff, dt);
  for (std::size_t s = 0; s < data.extent(0); ++s) {
    for (std::size_t r = 0; r < data.extent(1); ++r) f.apply(&data(s, r, 0), data.extent(2));
  }
}

template void lowpass_traces<float>(const HostArray3<float>&, double, double);
template void lowpass_traces<double>(const HostArray3<double>&, double, double);

}  // namespace pwave
