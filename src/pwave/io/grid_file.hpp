#pragma once
// Loading a 2D grid quantity (e.g. vp) from .npy, raw binary or SEG-Y files.

#include <string>
#include <vector>

namespace pwave::io {

/// How to read a 2D array from a file; mirrors the deck's `{file: ...}` form.
struct GridFileSpec {
  std::string path;
  std::string format;        ///< "npy", "raw", "segy"; empty = from the extension (.npy, .sgy/.segy, else raw)
  std::vector<long> shape;   ///< raw only: array shape as stored, C order; empty = model.shape in `order`
  std::string order = "zx";  ///< "zx": stored [nz][nx] (x fastest); "xz": stored [nx][nz] (z fastest)
  std::string dtype = "float32";  ///< raw only: float32 | float64 (little-endian)
  double scale = 1.0;             ///< multiply values by this (e.g. 1000 for km/s -> m/s)
  int stride_z = 1;               ///< keep every stride-th sample in z (decimation)
  int stride_x = 1;               ///< keep every stride-th sample in x
};

/// Reads the file and returns nz*nx values in [nz][nx] order (x fastest). SEG-Y: one trace per
/// x position, samples along z. npy: a 2D array in `order` (default [nz][nx]).
/// After decimation the shape must be exactly (nz, nx); otherwise throws InputError
/// (key = "", where = path) saying both shapes. Missing/unreadable/short files: InputError.
std::vector<double> load_grid_file(const GridFileSpec& spec, int nz, int nx);

}  // namespace pwave::io
