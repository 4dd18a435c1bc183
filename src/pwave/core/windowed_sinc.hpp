#pragma once
// The Kaiser-windowed sinc, shared by Hicks's source and receiver interpolation
// (acquisition/hicks.cpp) and the band-limited resampling of observed traces
// (io/trace_resampler.cpp).

#include <cmath>

namespace pwave {

/// sin(pi x) / (pi x), 1 at x = 0.
inline double sinc(double x) {
  constexpr double pi = 3.14159265358979323846;
  return x == 0.0 ? 1.0 : std::sin(pi * x) / (pi * x);
}

/// The modified Bessel function I0(x) from its power series (converges for every x; the
/// arguments here are below 20).
inline double bessel_i0(double x) {
  double term = 1.0, sum = 1.0;
  const double q = 0.25 * x * x;
  for (int k = 1; k < 200 && term > 1e-17 * sum; ++k) {
    term *= q / (double(k) * double(k));
    sum += term;
  }
  return sum;
}

/// The Kaiser window I0(beta sqrt(1 - u^2)) / I0(beta) at u in [-1, 1] (0 outside).
inline double kaiser_window(double u, double beta) {
  if (!(std::abs(u) <= 1.0)) return 0.0;
  return bessel_i0(beta * std::sqrt(1.0 - u * u)) / bessel_i0(beta);
}

}  // namespace pwave
