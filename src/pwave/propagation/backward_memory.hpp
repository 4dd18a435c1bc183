#pragma once
// What a gradient's backward (adjoint) run allocates on the device besides the wavefield
// history: the adjoint wavefields and CPML memory variables, and the per-shot imaging. Counted
// from the padded layout, without a propagator, so that `pwave check` can say it before a run;
// tests/propagation/test_backward_memory.cpp holds the count to what the propagators allocate.

#include <cstddef>

#include "pwave/propagation/forward_problem.hpp"

namespace pwave::propagation {

struct BackwardMemory {
  /// Bytes per shot of the batch: the adjoint state, the imaging of each channel.
  double per_shot = 0;
  /// Bytes independent of the batch (the constant-density adjoint's halo-padded CPML profiles).
  double fixed = 0;
};

/// The backward run of `problem` with values of `value_bytes` bytes (4: float32, 8: float64), on
/// the backend this library was built for (its row padding). Allocated by the first gradient of
/// a propagator (AcousticPropagator::allocate_adjoint, allocate_adjoint_vd;
/// ElasticPropagator::allocate_backward) and kept. Not counted: the elastic `checkpoint`
/// segment and sampled `full` decoding state, which the history estimates count.
BackwardMemory backward_memory(const ForwardProblem& problem, std::size_t value_bytes);

}  // namespace pwave::propagation
