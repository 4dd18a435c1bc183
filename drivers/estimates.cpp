#include "estimates.hpp"

#include <algorithm>

#include "pwave/physics/boundary.hpp"
#include "pwave/physics/elastic/physics.hpp"
#include "pwave/physics/elastic/update_terms.hpp"
#include "pwave/physics/equation.hpp"
#include "pwave/propagation/backward_memory.hpp"
#include "pwave/propagation/checkpoint_history.hpp"
#include "pwave/propagation/padded_layout.hpp"
#include "pwave/propagation/wavefield_layout.hpp"

namespace pwave::cli {

PaddedGrid padded_grid(const ForwardProblem& p) {
  const propagation::PaddedLayout l = propagation::PaddedLayout::of(p);
  return PaddedGrid{l.nz, l.nx, l.ny};
}

MemoryEstimate estimate_memory(const ForwardProblem& p, std::size_t value_bytes) {
  const propagation::PaddedLayout l = propagation::PaddedLayout::of(p);
  const double b = double(value_bytes);
  const long nshots = long(p.shots.size());
  const long nrec = p.shots.empty() ? 0 : long(max_receivers(p.shots));
  MemoryEstimate m;
  m.batch = int(p.shot_batch > 0 ? std::min<long>(p.shot_batch, nshots) : nshots);
  const int axes = p.model.grid.is_3d() ? 3 : 2;
  // What the equation keeps (its physics.hpp): wavefield arrays per shot and model arrays.
  int wavefields = 0, model_arrays = 0, profiles_per_axis = 0, cpml_memory = 0;
  physics::with_equation(p.equation, [&](auto d) {
    using Physics = decltype(d);
    wavefields = Physics::wavefields + axes * Physics::wavefields_per_axis;
    model_arrays = Physics::model_arrays + axes * Physics::model_arrays_per_axis;
    profiles_per_axis = Physics::profiles_per_axis;
    cpml_memory = Physics::cpml_memory_of(axes);
  });
  const double wavefield = propagation::WavefieldLayout::of(l, axes == 3, value_bytes).cells();
  m.wavefields = wavefields * wavefield * b;
  // Memory variables per strip cell of each axis's strips (acoustic: psi, psi_next, zeta; elastic:
  // one per derivative along the axis, 2 axes).
  m.cpml = double(cpml_memory) * double(l.strip_cells()) * b;
  m.receivers = double(nrec) * p.nt * b;
  m.per_shot = m.wavefields + m.cpml + m.receivers;
  // The model arrays on the padded grid, the CPML profiles, the wavelet, and the source and
  // receiver cell indices (one int per axis).
  const double profiles = l.nz + l.nx + (axes == 3 ? l.ny : 0);
  m.model = model_arrays * double(l.cells()) * b + profiles_per_axis * profiles * b +
            double(p.nt) * b + double(axes) * double(nshots) * (nrec + 1) * sizeof(int);
  m.device_total = m.batch * m.per_shot + m.model;
  m.host_traces = double(nshots) * nrec * p.nt * b;
  return m;
}

HistoryEstimate estimate_history(const ForwardProblem& p, std::size_t value_bytes,
                                 int shots_per_iteration, const StorageOptions& storage) {
  const propagation::PaddedLayout l = propagation::PaddedLayout::of(p);
  HistoryEstimate h;
  h.frame_cells = double(l.frame().size());
  const double wavefield =  // cells of a wavefield in the halo layout
      propagation::WavefieldLayout::of(l, p.model.grid.is_3d(), value_bytes).cells();
  const double steps = double(p.nt) + 1.0;
  const bool exact_full = storage.full_settings_exact();
  const int stride = std::max(1, storage.stride);
  // Bytes of a stored value of an approximate `full` history.
  const double stored_bytes = stored_value_bytes(storage.compression, double(value_bytes));
  h.full_per_shot = steps * double(l.cells()) * double(value_bytes);
  if (!exact_full) {
    // DifferenceHistory: the stored steps' differences and u^{n-1} (halo layout).
    h.full_per_shot = double((p.nt + stride - 1) / stride) * double(l.cells()) * stored_bytes +
                      wavefield * value_bytes;
  }
  h.boundary_per_shot = steps * h.frame_cells * double(value_bytes);
  h.checkpoint_interval =
      propagation::CheckpointHistory<double>::interval_for(p.nt, storage.interval);
  {
    // CheckpointHistory: ceil(nt / k) checkpoints of u^{n-1}, u^n (halo layout) and psi, zeta
    // on each axis' strips, and the backward run's segment of k + 2 wavefields.
    const int k = h.checkpoint_interval;
    const double state = 2 * wavefield + 2 * double(l.strip_cells());
    h.checkpoint_per_shot =
        (double((p.nt + k - 1) / k) * state + (k + 2.0) * double(l.cells())) * value_bytes;
  }
  if (p.equation == physics::Equation::elastic) {
    // A state: every wavefield and memory variable (estimate_memory's wavefields and CPML, rows
    // padded as allocated). Exact `full` keeps every step's update terms (TermHistory:
    // UpdateTerms::count values per padded cell), `checkpoint` every k-th state and the backward
    // run's segment, the update terms of k steps; sampled `full` a state's fields per imaged
    // step (SampledStateHistory) and the state the backward run decodes them into; `boundary`
    // the wavefields on the strips (no band) and every memory variable, nt + 1 times
    // (ElasticPropagator::history_bytes_per_shot).
    const MemoryEstimate m = estimate_memory(p, value_bytes);
    const double state = m.wavefields + m.cpml;
    const double terms = physics::elastic::UpdateTerms<float>::count(p.model.grid.is_3d() ? 3 : 2) *
                         double(l.cells()) * double(value_bytes);
    const int k = h.checkpoint_interval;
    h.checkpoint_per_shot = double((p.nt + k - 1) / k) * state + k * terms;
    const int slots = (p.nt + stride - 1) / stride;
    h.full_per_shot = exact_full ? double(p.nt) * terms
                                 : slots * state * stored_bytes / double(value_bytes) + state;
    const int axes = p.model.grid.is_3d() ? 3 : 2;
    h.frame_cells = double(l.frame(0).size());
    h.boundary_per_shot = steps * (h.frame_cells * physics::elastic::Physics::wavefields_of(axes) *
                                       double(value_bytes) +
                                   m.cpml);
  }
  const propagation::BackwardMemory backward = propagation::backward_memory(p, value_bytes);
  h.backward_per_shot = backward.per_shot;
  h.backward_fixed = backward.fixed;
  const int n = shots_per_iteration > 0 ? shots_per_iteration : int(p.shots.size());
  h.batch = p.shot_batch > 0 ? std::min(p.shot_batch, n) : n;
  return h;
}

}  // namespace pwave::cli
