#include "pwave/acquisition/wavelet.hpp"

#include <cmath>

#include "pwave/core/kokkos_compat.hpp"

namespace pwave {

std::vector<double> ricker(double f, double delay, double dt, int nt, double amplitude) {
  std::vector<double> s(std::size_t(nt > 0 ? nt : 0));
  for (int n = 0; n < nt; ++n) {
    const double a = pi * f * (n * dt - delay);
    s[n] = amplitude * (1.0 - 2.0 * a * a) * std::exp(-a * a);
  }
  return s;
}

}  // namespace pwave
