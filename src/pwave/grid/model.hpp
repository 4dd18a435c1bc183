#pragma once
// Host-side velocity model. The propagator derives its device data (v^2 dt^2) from it.

#include <vector>

#include "pwave/grid/grid.hpp"

namespace pwave {

/// P-wave velocity in m/s on a Grid2D, row-major [nz][nx] (x fastest).
struct Model2D {
  Grid2D grid;
  std::vector<double> vp;

  double at(int iz, int ix) const { return vp[std::size_t(iz) * grid.nx + ix]; }
  double vmin() const;
  double vmax() const;
};

/// A model with one velocity everywhere.
Model2D constant_model(const Grid2D& grid, double vp);

}  // namespace pwave
