#include "estimates.hpp"

#include <algorithm>

#include "pwave/physics/boundary.hpp"
#include "pwave/propagation/padded_layout.hpp"

namespace pwave::cli {

PaddedGrid padded_grid(const ForwardProblem& p) {
  const propagation::PaddedLayout l = propagation::PaddedLayout::of(p);
  return PaddedGrid{l.nz, l.nx, l.ny};
}

MemoryEstimate estimate_memory(const ForwardProblem& p, std::size_t value_bytes) {
  const propagation::PaddedLayout l = propagation::PaddedLayout::of(p);
  const double halo = l.radius;
  const double b = double(value_bytes);
  const long nshots = long(p.shots.size());
  const long nrec = p.shots.empty() ? 0 : long(p.shots.front().receivers.size());
  MemoryEstimate m;
  m.batch = int(p.shot_batch > 0 ? std::min<long>(p.shot_batch, nshots) : nshots);
  const double hy = p.model.grid.is_3d() ? halo : 0.0;
  m.wavefields = 2.0 * (l.nz + 2 * halo) * (l.ny + 2 * hy) * (l.nx + 2 * halo) * b;
  m.cpml = 3.0 * double(l.strip_cells()) * b;  // psi, psi_next, zeta on every strip
  m.receivers = double(nrec) * p.nt * b;
  const int axes = p.model.grid.is_3d() ? 3 : 2;
  const bool vd = p.equation == physics::Equation::acoustic_variable_density;
  // Variable density: one flux buffer per axis in the wavefields' layout (counted with them).
  if (vd) m.wavefields *= 1.0 + 0.5 * axes;
  m.per_shot = m.wavefields + m.cpml + m.receivers;
  // v^2 dt^2 on the padded grid, 4 CPML profiles per axis, the wavelet, and the source and
  // receiver cell indices (one int per axis).
  const double profiles = l.nz + l.nx + (axes == 3 ? l.ny : 0);
  m.model = double(l.cells()) * b + 4.0 * profiles * b + double(p.nt) * b +
            double(axes) * double(nshots) * (nrec + 1) * sizeof(int);
  // Variable density: rho, rho v^2 dt^2 and a buoyancy per axis on the padded grid, and the
  // CPML profiles at the half points.
  if (vd) m.model += double(2 + axes) * double(l.cells()) * b + 2.0 * profiles * b;
  m.device_total = m.batch * m.per_shot + m.model;
  m.host_traces = double(nshots) * nrec * p.nt * b;
  return m;
}

HistoryEstimate estimate_history(const ForwardProblem& p, std::size_t value_bytes,
                                 int shots_per_iteration) {
  const propagation::PaddedLayout l = propagation::PaddedLayout::of(p);
  HistoryEstimate h;
  h.frame_cells = double(l.frame().size());
  const double steps = double(p.nt) + 1.0;
  h.full_per_shot = steps * double(l.cells()) * double(value_bytes);
  h.boundary_per_shot = steps * h.frame_cells * double(value_bytes);
  const int n = shots_per_iteration > 0 ? shots_per_iteration : int(p.shots.size());
  h.batch = p.shot_batch > 0 ? std::min(p.shot_batch, n) : n;
  return h;
}

}  // namespace pwave::cli
