#include "pwave/acquisition/hicks.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace pwave {
namespace {

constexpr double pi = 3.14159265358979323846;

/// The modified Bessel function I0(x) from its power series (converges for every x; the
/// arguments here are below 15).
double bessel_i0(double x) {
  double term = 1.0, sum = 1.0;
  const double q = 0.25 * x * x;
  for (int k = 1; k < 200 && term > 1e-17 * sum; ++k) {
    term *= q / (double(k) * double(k));
    sum += term;
  }
  return sum;
}

double sinc(double x) {
  return x == 0.0 ? 1.0 : std::sin(pi * x) / (pi * x);
}

}  // namespace

double hicks_kaiser_b(int half_width) {
  static const double b[] = {1.24, 2.94, 4.53, 6.31, 7.91, 9.42, 10.95, 12.53, 14.09, 14.18};
  if (half_width < hicks_min_half_width || half_width > hicks_max_half_width) {
    throw std::invalid_argument("hicks_kaiser_b: half-width " + std::to_string(half_width) +
                                " is outside [1, 10]");
  }
  return b[half_width - 1];
}

std::vector<AxisTap> hicks_axis(double f, int half_width) {
  const double nearest = std::round(f);
  if (std::abs(f - nearest) <= 1e-6) return {AxisTap{int(nearest), 1.0}};
  const double b = hicks_kaiser_b(half_width), r = half_width;
  const double i0b = bessel_i0(b);
  const int first = int(std::floor(f)) - half_width + 1;
  std::vector<AxisTap> taps;
  taps.reserve(std::size_t(2 * half_width));
  for (int j = first; j < first + 2 * half_width; ++j) {
    const double x = j - f;  // |x| < r for every j of the window
    const double kaiser = bessel_i0(b * std::sqrt(1.0 - (x / r) * (x / r))) / i0b;
    taps.push_back(AxisTap{j, sinc(x) * kaiser});
  }
  return taps;
}

}  // namespace pwave
