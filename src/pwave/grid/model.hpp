#pragma once
// Host-side material model (vp, and rho for variable density). The propagator derives its
// device data (v^2 dt^2, buoyancies) from it.

#include <cstddef>
#include <vector>

#include "pwave/grid/grid.hpp"
#include "pwave/physics/parameter.hpp"

namespace pwave {

/// P-wave velocity in m/s (and density in kg/m^3, S-wave velocity in m/s, when the equation uses
/// them) on a Grid, row-major [nz][nx] or [nz][ny][nx] (x fastest).
struct Model {
  Grid grid;
  std::vector<double> vp;
  /// Density in kg/m^3, same layout as vp; empty for the constant-density equation.
  std::vector<double> rho;
  /// S-wave velocity in m/s, same layout as vp; empty unless the equation is elastic.
  std::vector<double> vs;

  double at(int iz, int ix) const { return vp[std::size_t(iz) * grid.nx + ix]; }
  double at(int iz, int iy, int ix) const {
    return vp[(std::size_t(iz) * grid.ny + iy) * grid.nx + ix];
  }
  double rho_at(int iz, int iy, int ix) const {
    return rho[(std::size_t(iz) * grid.ny + iy) * grid.nx + ix];
  }
  double vmin() const;
  double vmax() const;
  /// The values of material parameter `p` (vp or rho).
  std::vector<double>& values(physics::Parameter p) {
    return p == physics::Parameter::vp ? vp : p == physics::Parameter::rho ? rho : vs;
  }
  const std::vector<double>& values(physics::Parameter p) const {
    return p == physics::Parameter::vp ? vp : p == physics::Parameter::rho ? rho : vs;
  }
};

/// A model with one velocity everywhere.
Model constant_model(const Grid& grid, double vp);

}  // namespace pwave
