#include "pwave/acquisition/geometry.hpp"

#include <cmath>
#include <sstream>

#include "pwave/core/error.hpp"

namespace pwave {

GridIndex to_grid_index(const Grid2D& grid, const Position& p, const std::string& key) {
  const double fx = p.x / grid.dx;
  const double fz = p.z / grid.dz;
  const double rx = std::round(fx);
  const double rz = std::round(fz);
  std::ostringstream what;
  if (!std::isfinite(fx) || !std::isfinite(fz)) {
    throw InputError(key, "", "position is not a finite number");
  }
  if (rx < 0 || rx > grid.nx - 1 || rz < 0 || rz > grid.nz - 1) {
    what << "position (x=" << p.x << " m, z=" << p.z << " m) is outside the model (x in [0, "
         << grid.width() << "] m, z in [0, " << grid.depth() << "] m)";
    throw InputError(key, "", what.str());
  }
  if (std::abs(fx - rx) > 1e-6 || std::abs(fz - rz) > 1e-6) {
    what << "position (x=" << p.x << " m, z=" << p.z
         << " m) is not on a grid point (spacing dx=" << grid.dx << " m, dz=" << grid.dz
         << " m); nearest is (x=" << rx * grid.dx << ", z=" << rz * grid.dz << ")";
    throw InputError(key, "", what.str());
  }
  return GridIndex{int(rz), int(rx)};
}

}  // namespace pwave
