#include "pwave/acquisition/geometry.hpp"

#include <cmath>
#include <sstream>

#include "pwave/core/error.hpp"

namespace pwave {

GridIndex to_grid_index(const Grid& grid, const Position& p, const std::string& key) {
  const bool is3d = grid.is_3d();
  const double fx = p.x / grid.dx;
  const double fz = p.z / grid.dz;
  const double fy = is3d ? p.y / grid.dy : 0.0;
  const double rx = std::round(fx), rz = std::round(fz), ry = std::round(fy);
  std::ostringstream where, what;
  where << "(x=" << p.x << " m, ";
  if (is3d) where << "y=" << p.y << " m, ";
  where << "z=" << p.z << " m)";
  if (!std::isfinite(fx) || !std::isfinite(fz) || !std::isfinite(fy)) {
    throw InputError(key, "", "position is not a finite number");
  }
  if (!is3d && p.y != 0.0) {
    throw InputError(key, "", "y is given but the model is 2D (model.shape has two entries)");
  }
  if (rx < 0 || rx > grid.nx - 1 || rz < 0 || rz > grid.nz - 1 || ry < 0 || ry > grid.ny - 1) {
    what << "position " << where.str() << " is outside the model (x in [0, " << grid.width()
         << "] m, ";
    if (is3d) what << "y in [0, " << grid.breadth() << "] m, ";
    what << "z in [0, " << grid.depth() << "] m)";
    throw InputError(key, "", what.str());
  }
  if (std::abs(fx - rx) > 1e-6 || std::abs(fz - rz) > 1e-6 || std::abs(fy - ry) > 1e-6) {
    what << "position " << where.str() << " is not on a grid point (spacing dx=" << grid.dx
         << " m, ";
    if (is3d) what << "dy=" << grid.dy << " m, ";
    what << "dz=" << grid.dz << " m); nearest is (x=" << rx * grid.dx << ", ";
    if (is3d) what << "y=" << ry * grid.dy << ", ";
    what << "z=" << rz * grid.dz << ")";
    throw InputError(key, "", what.str());
  }
  GridIndex c;
  c.iz = int(rz);
  c.ix = int(rx);
  c.iy = int(ry);
  return c;
}

}  // namespace pwave
