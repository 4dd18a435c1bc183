#pragma once
// Loading a 2D or 3D grid quantity (e.g. vp) from .npy, raw binary or SEG-Y files, and writing
// one as .npy.

#include <string>
#include <vector>

#include "pwave/grid/grid.hpp"

namespace pwave::io {

/// How to read a 2D or 3D array from a file; mirrors the deck's `{file: ...}` form.
struct GridFileSpec {
  std::string path;
  std::string
      format;  ///< "npy", "raw", "segy"; empty = from the extension (.npy, .sgy/.segy, else raw)
  std::vector<long>
      shape;  ///< raw only: array shape as stored, C order; empty = model.shape in `order`
  /// The stored axes, slowest first. 2D: "zx" ([nz][nx], x fastest) or "xz" ([nx][nz]).
  /// 3D: "zyx" ([nz][ny][nx], x fastest) or "xyz" ([nx][ny][nz], z fastest); the 2D names
  /// "zx" and "xz" are read as "zyx" and "xyz" for a 3D grid.
  std::string order = "zx";
  std::string dtype = "float32";  ///< raw only: float32 | float64 (little-endian)
  double scale = 1.0;             ///< multiply values by this (e.g. 1000 for km/s -> m/s)
  int stride_z = 1;               ///< keep every stride-th sample in z (decimation)
  int stride_x = 1;               ///< keep every stride-th sample in x
  int stride_y = 1;               ///< keep every stride-th sample in y (3D only)
};

/// Reads the file and returns the grid's cells() values in [nz][nx] order (2D) or [nz][ny][nx]
/// order (3D), x fastest. SEG-Y (2D only): one trace per x position, samples along z. npy: a 2D
/// (3D) array in `order`. After decimation the shape must be exactly the grid's; otherwise
/// throws InputError (key = "", where = path) saying both shapes. Missing/unreadable/short
/// files: InputError.
std::vector<double> load_grid_file(const GridFileSpec& spec, const Grid& grid);

/// The 2D form: a grid of nz x nx cells.
std::vector<double> load_grid_file(const GridFileSpec& spec, int nz, int nx);

/// Writes the grid's cells() values (model order, as load_grid_file returns them) as an .npy
/// array of T, shape [nz, nx] or, in 3D, [nz, ny, nx]; atomically (io::write_npy).
template <class T>
void write_grid_npy(const std::string& path, const Grid& grid, const std::vector<double>& values);

}  // namespace pwave::io
