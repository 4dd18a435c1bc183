#pragma once
// Forward modelling of a ForwardProblem: all shots, batched, receivers recorded.

#include <functional>

#include "pwave/core/types.hpp"
#include "pwave/propagation/forward_problem.hpp"

namespace pwave {

/// Called with (steps done, steps total) during a run, for progress lines.
using ProgressCallback = std::function<void(long, long)>;

/// Validates `problem` (order, CFL, geometry) and throws InputError with a clear message.
void validate(const ForwardProblem& problem);

/// Runs every shot and returns the receiver traces, host-side, [shot][receiver][time], in
/// the precision T (float or double). Receiver sample n is u(x_r, t = n dt).
/// Throws RuntimeError naming the step if the wavefield becomes NaN or Inf.
template <class T>
HostArray3<T> forward_model(const ForwardProblem& problem, const ProgressCallback& progress = {});

}  // namespace pwave
