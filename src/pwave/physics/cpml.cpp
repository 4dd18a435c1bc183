#include "pwave/physics/cpml.hpp"

#include <algorithm>
#include <cmath>

#include "pwave/physics/stencil.hpp"

namespace pwave::physics {

CpmlProfile cpml_profile(int pad_lo, int cells, int pad_hi, double h, double dt, double vmax,
                         double frequency, double reflection, int order) {
  const int n = pad_lo + cells + pad_hi;
  CpmlProfile p;
  p.a.assign(std::size_t(n), 0.0);
  p.b.assign(std::size_t(n), 0.0);
  p.ab.assign(std::size_t(n), 0.0);
  p.db.assign(std::size_t(n), 0.0);
  auto fill = [&](int i, int width, double eta) {
    const double d0 = -3.0 * vmax * std::log(reflection) / (2.0 * width * h);
    const double d = d0 * eta * eta;
    const double alpha = pi * frequency * (1.0 - eta);
    const double a = std::exp(-(d + alpha) * dt);
    p.a[i] = a;
    p.b[i] = (d + alpha) > 0.0 ? d / (d + alpha) * (a - 1.0) : 0.0;
    p.ab[i] = a * p.b[i];
  };
  for (int i = 0; i < pad_lo; ++i) fill(i, pad_lo, double(pad_lo - i) / pad_lo);
  for (int k = 0; k < pad_hi; ++k) fill(pad_lo + cells + k, pad_hi, double(k + 1) / pad_hi);
  with_order(order, [&](auto o) {
    using S = Stencil<decltype(o)::value>;
    const auto b_at = [&](int i) { return p.b[std::size_t(std::min(std::max(i, 0), n - 1))]; };
    for (int i = 0; i < n; ++i) {
      double d = 0;
      for (int j = 1; j <= S::radius; ++j) d += S::c1(j) * (b_at(i + j) - b_at(i - j));
      p.db[std::size_t(i)] = d / h;
    }
  });
  return p;
}

CpmlProfile cpml_profile_half(int pad_lo, int cells, int pad_hi, double h, double dt, double vmax,
                              double frequency, double reflection) {
  const int n = pad_lo + cells + pad_hi;
  CpmlProfile p;
  p.a.assign(std::size_t(n), 0.0);
  p.b.assign(std::size_t(n), 0.0);
  const double lo_edge = pad_lo, hi_edge = pad_lo + cells - 1;  // eta = 0 here (cell positions)
  for (int i = 0; i < n; ++i) {
    const double x = i + 0.5;
    double eta = 0.0, width = 1.0;
    if (pad_lo > 0 && x < lo_edge) {
      eta = (lo_edge - x) / pad_lo, width = pad_lo;
    } else if (pad_hi > 0 && x > hi_edge) {
      eta = (x - hi_edge) / pad_hi, width = pad_hi;
    }
    if (eta <= 0.0) continue;
    eta = std::min(eta, 1.0);
    const double d0 = -3.0 * vmax * std::log(reflection) / (2.0 * width * h);
    const double d = d0 * eta * eta;
    const double alpha = pi * frequency * (1.0 - eta);
    const double a = std::exp(-(d + alpha) * dt);
    p.a[std::size_t(i)] = a;
    p.b[std::size_t(i)] = (d + alpha) > 0.0 ? d / (d + alpha) * (a - 1.0) : 0.0;
  }
  return p;
}

void cpml_strips(int pad_lo, int n, int pad_hi, int radius, int& strip_lo, int& strip_hi) {
  strip_lo = pad_lo > 0 ? std::min(pad_lo + radius, n) : 0;
  strip_hi = pad_hi > 0 ? std::min(pad_hi + radius, n - strip_lo) : 0;
}

}  // namespace pwave::physics
