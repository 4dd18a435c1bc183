#pragma once
// The padded grid of a problem, stated once: its extents (model + CPML layers), the model's
// offset in it, the CPML strips, and the frame the `boundary` storage keeps. The propagator
// allocates from it and `pwave check` estimates memory from it, so the two cannot disagree.

#include "pwave/physics/boundary.hpp"
#include "pwave/propagation/boundary_storage.hpp"
#include "pwave/propagation/forward_problem.hpp"

namespace pwave::propagation {

struct PaddedLayout {
  int nz = 0, ny = 1, nx = 0;  ///< padded extents (ny = 1 in 2D)
  int radius = 0;              ///< stencil radius (physics.order / 2)
  int layer[num_sides] = {};   ///< CPML layer widths = the model's offset on each side
  int strip[num_sides] = {};   ///< CPML strip widths: layer + radius (physics::cpml_strips)

  /// The layout of `problem` (its grid, boundary widths and order).
  static PaddedLayout of(const ForwardProblem& problem);

  long cells() const { return long(nz) * long(ny) * long(nx); }
  /// Memory-variable cells of one field on the x, z and y strips (psi, psi_next and zeta each).
  long strip_cells() const {
    return long(nz) * ny * (strip[left] + strip[right]) +
           long(strip[top] + strip[bottom]) * ny * nx +
           long(nz) * (strip[front] + strip[back]) * nx;
  }
  /// The boundary-storage frame: the strips and a band of `band` cells inside them (the
  /// acoustic equations' radius; the elastic equation's 0). Wavefield column map left at zero:
  /// counting only.
  FrameRegion frame(int band) const {
    return FrameRegion(nz, nx, strip[top], strip[bottom], strip[left], strip[right], band, ny,
                       strip[front], strip[back]);
  }
  FrameRegion frame() const { return frame(radius); }
};

}  // namespace pwave::propagation
