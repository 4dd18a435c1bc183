#pragma once
// Regular 2D grid: nz x nx cells, spacing in metres, origin at the top-left corner (x right, z down).

namespace pwave {

/// A regular 2D grid. Cell (iz, ix) sits at z = iz * dz, x = ix * dx metres.
struct Grid2D {
  int nz = 0;       ///< cells in depth
  int nx = 0;       ///< cells across
  double dz = 0.0;  ///< metres
  double dx = 0.0;  ///< metres

  long cells() const { return long(nz) * long(nx); }
  double width() const { return (nx - 1) * dx; }   ///< metres, first to last cell centre
  double depth() const { return (nz - 1) * dz; }   ///< metres
};

}  // namespace pwave
