#include "pwave/physics/cpml.hpp"

#include <cmath>

#include "pwave/core/kokkos_compat.hpp"

namespace pwave::physics {

CpmlProfile cpml_profile(int pad_lo, int cells, int pad_hi, double h, double dt, double vmax,
                         double frequency, double reflection) {
  const int n = pad_lo + cells + pad_hi;
  CpmlProfile p;
  p.a.assign(std::size_t(n), 0.0);
  p.b.assign(std::size_t(n), 0.0);
  auto fill = [&](int i, int width, double eta) {
    const double d0 = -3.0 * vmax * std::log(reflection) / (2.0 * width * h);
    const double d = d0 * eta * eta;
    const double alpha = pi * frequency * (1.0 - eta);
    const double a = std::exp(-(d + alpha) * dt);
    p.a[i] = a;
    p.b[i] = (d + alpha) > 0.0 ? d / (d + alpha) * (a - 1.0) : 0.0;
  };
  for (int i = 0; i < pad_lo; ++i) fill(i, pad_lo, double(pad_lo - i) / pad_lo);
  for (int k = 0; k < pad_hi; ++k) fill(pad_lo + cells + k, pad_hi, double(k + 1) / pad_hi);
  return p;
}

}  // namespace pwave::physics
