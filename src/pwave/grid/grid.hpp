#pragma once
// Regular 2D or 3D grid: nz x [ny x] nx cells, spacing in metres, origin at the top-left(-front)
// corner (x right, y into the page, z down).

namespace pwave {

/// A regular grid. Cell (iz, [iy,] ix) sits at z = iz * dz, y = iy * dy, x = ix * dx metres.
/// A 2D grid has ny = 1 and no y axis; 2D and 3D share every type, and the dimension reaches
/// the kernels as a template parameter.
struct Grid {
  int nz = 0;         ///< cells in depth
  int nx = 0;         ///< cells across
  double dz = 0.0;    ///< metres
  double dx = 0.0;    ///< metres
  int ny = 1;         ///< cells along y (1 in 2D)
  double dy = 0.0;    ///< metres (3D only)
  int dimension = 2;  ///< 2 or 3

  long cells() const { return long(nz) * long(ny) * long(nx); }
  double width() const { return (nx - 1) * dx; }    ///< metres, first to last cell centre
  double depth() const { return (nz - 1) * dz; }    ///< metres
  double breadth() const { return (ny - 1) * dy; }  ///< metres along y (0 in 2D)
  bool is_3d() const { return dimension == 3; }
  /// dx dz in 2D, dx dy dz in 3D: the cell volume a point source is spread over.
  double cell_volume() const { return dx * dz * (is_3d() ? dy : 1.0); }
};

}  // namespace pwave
