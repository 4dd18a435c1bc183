#include "estimates.hpp"

#include <algorithm>

#include "pwave/physics/boundary.hpp"

namespace pwave::cli {

PaddedGrid padded_grid(const ForwardProblem& p) {
  const int* w = p.boundary.width;
  return PaddedGrid{p.model.grid.nz + w[top] + w[bottom], p.model.grid.nx + w[left] + w[right]};
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
  m.wavefields = 2.0 * (g.nz + 2 * halo) * (g.nx + 2 * halo) * b;
  m.cpml = 3.0 * (double(g.nz) * (w[left] + w[right]) + double(w[top] + w[bottom]) * g.nx) * b;
  m.receivers = double(nrec) * p.nt * b;
  m.per_shot = m.wavefields + m.cpml + m.receivers;
  m.model = double(g.cells()) * b + 2.0 * (g.nz + g.nx) * b + double(p.nt) * b +
            2.0 * double(nshots) * (nrec + 1) * sizeof(int);
  m.device_total = m.batch * m.per_shot + m.model;
  m.host_traces = double(nshots) * nrec * p.nt * b;
  return m;
}

}  // namespace pwave::cli
