#include "pwave/physics/stability.hpp"

#include <algorithm>
#include <cmath>

#include "pwave/core/error.hpp"
#include "pwave/physics/stencil.hpp"

namespace pwave::physics {
namespace {
template <int Order>
double symbol_max() {
  double mu = -Stencil<Order>::c2(0);
  for (int j = 1; j <= Stencil<Order>::radius; ++j)
    mu -= 2.0 * Stencil<Order>::c2(j) * (j % 2 ? -1.0 : 1.0);
  return mu;
}
double symbol_max(int order) {
  double mu = 0;
  if (!with_order(order, [&](auto o) { mu = symbol_max<decltype(o)::value>(); })) {
    throw InputError("physics.order", "", "order must be 2, 4, 6 or 8");
  }
  return mu;
}
}  // namespace

double max_stable_dt(int order, double vmax, double dx, double dz, double dy) {
  const double mu = symbol_max(order);
  const double y = dy > 0 ? mu / (dy * dy) : 0.0;
  return 2.0 / (vmax * std::sqrt(mu / (dx * dx) + mu / (dz * dz) + y));
}

double max_stable_dt_staggered(int order, double vmax, double dx, double dz, double dy) {
  double sum = 0;
  if (!with_order(order, [&](auto o) {
        using S = StaggeredStencil<decltype(o)::value>;
        for (int k = 1; k <= S::radius; ++k) sum += std::abs(S::c(k));
      })) {
    throw InputError("physics.order", "", "order must be 2, 4, 6 or 8");
  }
  const double mu = 4.0 * sum * sum;
  const double y = dy > 0 ? mu / (dy * dy) : 0.0;
  return 2.0 / (vmax * std::sqrt(mu / (dx * dx) + mu / (dz * dz) + y));
}

double points_per_wavelength(double vmin, double fmax, double dx, double dz, double dy) {
  return vmin / (fmax * std::max({dx, dz, dy}));
}

double ricker_max_frequency(double fpeak) {
  return 3.0 * fpeak;
}

}  // namespace pwave::physics
