#pragma once
// The backward (adjoint) time loop, written once for every equation: steps n = nt - 1 .. 0, and
// for a checkpoint history the segment holding step n recomputed from its checkpoint when the
// loop enters it. What a backward step computes, and which history feeds its imaging, is the
// equation's.

#include "pwave/propagation/forward_loop.hpp"

namespace pwave::propagation {

/// Steps n = nt - 1 .. 0; step n has parity p = (nt - 1 - n) & 1 (as in forward_loop, for the
/// adjoint fields' parity copies).
///  - `interval` > 0 (checkpoints `interval` steps apart): on entering the segment of checkpoint
///    c, `recompute(c, n0, n1)` runs forward steps [n0, n1) from it, n0 = c * interval, n1 - 1
///    the step the loop is at; 0: nothing is recomputed.
///  - `step_back(p, n)`: backward step n (adjoint step, imaging, residuals).
template <class Recompute, class StepBack>
void backward_loop(int nt, int interval, const Recompute& recompute, const StepBack& step_back) {
  int segment_begin = nt;  // first step of the recomputed segment
  for (int n = nt - 1; n >= 0; --n) {
    if (interval > 0 && n < segment_begin) {
      const int c = n / interval;
      segment_begin = c * interval;
      recompute(c, segment_begin, n + 1);
    }
    step_back((nt - 1 - n) & 1, n);
  }
}

/// Steps n = nt - 1 .. 0 as backward_loop, segments included, in sweeps of at most `levels`
/// steps (host wavefronts) that stay within a segment, of near-equal length within it:
/// `sweep(p, n, m)` runs steps n, n - 1, .., n - m + 1, step n of parity p.
template <class Recompute, class Sweep>
void backward_sweep_loop(int levels, int nt, int interval, const Recompute& recompute,
                         const Sweep& sweep) {
  const int segment = interval > 0 ? interval : nt;
  for (int n1 = nt; n1 > 0;) {
    const int n0 = (n1 - 1) / segment * segment;  // the segment [n0, n1) holding step n1 - 1
    if (interval > 0) recompute(n0 / interval, n0, n1);
    const int most = sweep_length(n1 - n0, levels);
    for (int n = n1 - 1; n >= n0;) {
      const int m = n - n0 + 1 < most ? n - n0 + 1 : most;
      sweep((nt - 1 - n) & 1, n, m);
      n -= m;
    }
    n1 = n0;
  }
}

}  // namespace pwave::propagation
