#pragma once
// A wavefield's halo layout as the propagators allocate it, stated once: the propagators take
// their column maps from it and `pwave check` counts wavefields with it.

#include <cstddef>

#include "pwave/propagation/padded_layout.hpp"

namespace pwave::propagation {

/// nz + 2R rows (R the stencil radius), each of ny + 2R x lines in 3D (one in 2D), each x line
/// nx + 2R values padded for this build's backend (backend::padded_row_length).
struct WavefieldLayout {
  int rows = 0, lines = 0, line = 0;

  /// The layout of a wavefield of the padded grid `l` with values of `value_bytes` bytes.
  static WavefieldLayout of(const PaddedLayout& l, bool is3d, std::size_t value_bytes);

  long columns() const { return long(lines) * line; }  ///< values per row
  double cells() const { return double(rows) * double(columns()); }
};

}  // namespace pwave::propagation
