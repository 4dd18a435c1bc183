#include "estimates.hpp"

#include <algorithm>

#include "pwave/physics/boundary.hpp"

namespace pwave::cli {

PaddedGrid padded_grid(const ForwardProblem& p) {
  const int* w = p.boundary.width;
  const Grid& g = p.model.grid;
  return PaddedGrid{g.nz + w[top] + w[bottom], g.nx + w[left] + w[right],
                    g.is_3d() ? g.ny + w[front] + w[back] : 1};
}

MemoryEstimate estimate_memory(const ForwardProblem& p, std::size_t value_bytes) {
  const PaddedGrid g = padded_grid(p);
  const int* w = p.boundary.width;
  const double halo = p.order / 2;
  const double b = double(value_bytes);
  const long nshots = long(p.shots.size());
  const long nrec = p.shots.empty() ? 0 : long(p.shots.front().receivers.size());
  MemoryEstimate m;
  m.batch = int(p.shot_batch > 0 ? std::min<long>(p.shot_batch, nshots) : nshots);
  if (p.model.grid.is_3d()) {
    // Each CPML strip spans the whole padded grid across its axis.
    const double nz = g.nz, ny = g.ny, nx = g.nx;
    m.wavefields = 2.0 * (nz + 2 * halo) * (ny + 2 * halo) * (nx + 2 * halo) * b;
    m.cpml = 3.0 *
             ((w[left] + w[right]) * nz * ny + (w[top] + w[bottom]) * ny * nx +
              (w[front] + w[back]) * nz * nx) *
             b;
  } else {
    m.wavefields = 2.0 * (g.nz + 2 * halo) * (g.nx + 2 * halo) * b;
    m.cpml = 3.0 * (double(g.nz) * (w[left] + w[right]) + double(w[top] + w[bottom]) * g.nx) * b;
  }
  m.receivers = double(nrec) * p.nt * b;
  m.per_shot = m.wavefields + m.cpml + m.receivers;
  // v^2 dt^2 on the padded grid, 2 CPML profiles per axis, the wavelet, and the source and
  // receiver cell indices (one int per axis).
  const int axes = p.model.grid.is_3d() ? 3 : 2;
  const double profiles = g.nz + g.nx + (axes == 3 ? g.ny : 0);
  m.model = double(g.cells()) * b + 2.0 * profiles * b + double(p.nt) * b +
            double(axes) * double(nshots) * (nrec + 1) * sizeof(int);
  m.device_total = m.batch * m.per_shot + m.model;
  m.host_traces = double(nshots) * nrec * p.nt * b;
  return m;
}

HistoryEstimate estimate_history(const ForwardProblem& p, std::size_t value_bytes,
                                 int shots_per_iteration) {
  const PaddedGrid g = padded_grid(p);
  const int* w = p.boundary.width;
  const int r = p.order / 2;
  // The frame is the padded grid outside the box that leaves a stencil radius inside each CPML
  // layer; a side without a layer needs no band (its box edge is the grid edge).
  const int z_lo = w[top] > 0 ? std::min(w[top] + r, g.nz) : 0;
  const int z_hi = w[bottom] > 0 ? std::max(g.nz - w[bottom] - r, z_lo) : g.nz;
  const int x_lo = w[left] > 0 ? std::min(w[left] + r, g.nx) : 0;
  const int x_hi = w[right] > 0 ? std::max(g.nx - w[right] - r, x_lo) : g.nx;
  HistoryEstimate h;
  h.frame_cells = double(g.cells()) - double(z_hi - z_lo) * double(x_hi - x_lo);
  const double steps = double(p.nt) + 1.0;
  h.full_per_shot = steps * double(g.cells()) * double(value_bytes);
  h.boundary_per_shot = steps * h.frame_cells * double(value_bytes);
  const int n = shots_per_iteration > 0 ? shots_per_iteration : int(p.shots.size());
  h.batch = p.shot_batch > 0 ? std::min(p.shot_batch, n) : n;
  return h;
}

}  // namespace pwave::cli
