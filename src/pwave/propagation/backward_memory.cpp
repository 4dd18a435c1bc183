#include "pwave/propagation/backward_memory.hpp"

#include "pwave/physics/acoustic/adjoint_kernels.hpp"
#include "pwave/physics/elastic/physics.hpp"
#include "pwave/propagation/padded_layout.hpp"
#include "pwave/propagation/wavefield_layout.hpp"

namespace pwave::propagation {

BackwardMemory backward_memory(const ForwardProblem& problem, std::size_t value_bytes) {
  const PaddedLayout l = PaddedLayout::of(problem);
  const bool is3d = problem.model.grid.is_3d();
  const int axes = is3d ? 3 : 2, R = l.radius;
  const double b = double(value_bytes);
  const WavefieldLayout w = WavefieldLayout::of(l, is3d, value_bytes);
  const double wavefield = w.cells(), rows = w.rows, lines = w.lines, ys = w.line;
  const double grid = double(l.cells());  // an imaging channel: the padded model grid
  BackwardMemory m;
  switch (problem.equation) {
    case physics::Equation::acoustic: {
      // G at two steps; psi^ and zeta^ at two steps per axis, on the rows (z), y lines (y) and
      // columns of each x line (x, unpadded lines) the frame's stencils reach
      // (physics::StripLines); the shot's imaging.
      const FrameRegion f = l.frame();
      const double z_rows = rows - physics::StripLines::of(l.nz, R, f.z_lo, f.z_hi).gap;
      const double y_lines =
          is3d ? lines - physics::StripLines::of(l.ny, R, f.y_lo, f.y_hi).gap : 0;
      const double xs = l.nx + 2 * R - physics::StripLines::of(l.nx, R, f.x_lo, f.x_hi).gap;
      m.per_shot = 2 * wavefield + 4 * rows * lines * xs + 4 * z_rows * lines * ys +
                   4 * rows * y_lines * ys + grid;
      // a, b, ab, db and the strip indicator per axis, halo-padded.
      m.fixed = 5.0 * ((l.nx + 2 * R) + (l.nz + 2 * R) + (is3d ? l.ny + 2 * R : 0));
      break;
    }
    case physics::Equation::acoustic_variable_density:
      // G at two steps, hbar and gbar per axis, u^n for the buoyancy imaging; psi^ and zeta^ on
      // the forward's strips; the imaging of b and of the shot's two channels, and the gradient.
      m.per_shot = (3 + 2 * axes) * wavefield + 2 * double(l.strip_cells()) + 4 * grid;
      break;
    case physics::Equation::elastic: {
      // A whole state (wavefields and memory variables, one block: page rounding not counted),
      // the axes x axes partial sums (bar), the imaging channels.
      using physics::elastic::Physics;
      m.per_shot = Physics::wavefields_of(axes) * wavefield +
                   Physics::cpml_memory_of(axes) * double(l.strip_cells()) +
                   axes * axes * wavefield + Physics::model_arrays_of(axes) * grid;
      break;
    }
  }
  m.per_shot *= b;
  m.fixed *= b;
  return m;
}

}  // namespace pwave::propagation
