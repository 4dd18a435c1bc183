#include "pwave/propagation/wavefield_layout.hpp"

#include "backends/launch.hpp"

namespace pwave::propagation {

WavefieldLayout WavefieldLayout::of(const PaddedLayout& l, bool is3d, std::size_t value_bytes) {
  const int R = l.radius;
  WavefieldLayout w;
  w.rows = l.nz + 2 * R;
  w.lines = is3d ? l.ny + 2 * R : 1;
  w.line = backend::padded_row_length<ExecSpace>(l.nx + 2 * R, int(value_bytes));
  return w;
}

}  // namespace pwave::propagation
