#include "pwave/inversion/lowpass.hpp"

#include <cmath>

#include "pwave/core/error.hpp"
#include "pwave/core/kokkos_compat.hpp"

namespace pwave {
namespace {

struct Biquad {
  double b0, b1, b2, a1, a2;  // a0 normalised to 1
};

// RBJ low-pass biquads with the Q values of a 4th-order Butterworth.
std::vector<Biquad> butterworth4(double cutoff, double dt) {
  const double w0 = 2.0 * pi * cutoff * dt;
  std::vector<Biquad> out;
  for (double q : {0.54119610, 1.30656296}) {
    const double alpha = std::sin(w0) / (2.0 * q), c = std::cos(w0), a0 = 1.0 + alpha;
    out.push_back({(1.0 - c) / 2.0 / a0, (1.0 - c) / a0, (1.0 - c) / 2.0 / a0, -2.0 * c / a0,
                   (1.0 - alpha) / a0});
  }
  return out;
}

void run(std::vector<double>& x, const std::vector<Biquad>& sections, bool reverse) {
  const long n = long(x.size());
  for (const Biquad& s : sections) {
    double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
    for (long k = 0; k < n; ++k) {
      const long i = reverse ? n - 1 - k : k;
      const double y = s.b0 * x[i] + s.b1 * x1 + s.b2 * x2 - s.a1 * y1 - s.a2 * y2;
      x2 = x1, x1 = x[i], y2 = y1, y1 = y;
      x[i] = y;
    }
  }
}

}  // namespace

std::vector<double> lowpass(const std::vector<double>& x, double cutoff, double dt) {
  if (!(cutoff > 0) || !(cutoff < 0.5 / dt)) {
    throw InputError("inversion.stages.max_frequency", "",
                     "must lie between 0 and the Nyquist frequency " + std::to_string(0.5 / dt) +
                         " Hz");
  }
  const auto sections = butterworth4(cutoff, dt);
  std::vector<double> y(x);
  run(y, sections, false);
  run(y, sections, true);
  return y;
}

template <class T>
void lowpass_traces(const HostArray3<T>& data, double cutoff, double dt) {
  std::vector<double> trace(data.extent(2));
  for (std::size_t s = 0; s < data.extent(0); ++s) {
    for (std::size_t r = 0; r < data.extent(1); ++r) {
      for (std::size_t n = 0; n < trace.size(); ++n) trace[n] = double(data(s, r, n));
      const auto f = lowpass(trace, cutoff, dt);
      for (std::size_t n = 0; n < trace.size(); ++n) data(s, r, n) = T(f[n]);
    }
  }
}

template void lowpass_traces<float>(const HostArray3<float>&, double, double);
template void lowpass_traces<double>(const HostArray3<double>&, double, double);

}  // namespace pwave
