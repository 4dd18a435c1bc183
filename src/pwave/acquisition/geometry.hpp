#pragma once
// Source and receiver positions (metres from the top-left corner, x right, y into the page,
// z down; y is 0 in 2D).

#include <string>
#include <vector>

#include "pwave/grid/grid.hpp"

namespace pwave {

/// A point in metres.
struct Position {
  double x = 0.0;
  double z = 0.0;
  double y = 0.0;  ///< 3D only
};

/// One shot: one source and the receivers that record it.
struct ShotGeometry {
  Position source;
  std::vector<Position> receivers;
};

/// Throws InputError naming `key` (e.g. "acquisition.sources[3]") unless `p` lies inside the
/// model (to 1e-6 of a cell), saying by how much it lies outside. Positions between grid points
/// are interpolated (acquisition/hicks.hpp).
void check_inside(const Grid& grid, const Position& p, const std::string& key);

}  // namespace pwave
