#include "pwave/acquisition/hicks.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "pwave/core/windowed_sinc.hpp"

namespace pwave {

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
  const int first = int(std::floor(f)) - half_width + 1;
  std::vector<AxisTap> taps;
  taps.reserve(std::size_t(2 * half_width));
  for (int j = first; j < first + 2 * half_width; ++j) {
    const double x = j - f;  // |x| < r for every j of the window
    taps.push_back(AxisTap{j, sinc(x) * kaiser_window(x / r, b)});
  }
  return taps;
}

}  // namespace pwave
