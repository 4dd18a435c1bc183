#pragma once
// The forward time loop, written once for every equation: before each step the history keeps
// what it keeps of the state the step starts from, the receivers record, the equation's step
// runs (its updates, the source, the free surface), the history keeps what it keeps of the state
// after it, then the run's per-step report (NaN checks, progress). What a step computes is the
// equation's `Steps`; what a history keeps is its keeper (KeepCheckpoints, KeepFrames,
// KeepSamples, and the equations' own for histories of one field).

#include <algorithm>

#include "pwave/core/types.hpp"

namespace pwave::propagation {

/// The keeper of a run that keeps nothing.
struct KeepNothing {
  void before(const ExecSpace&, int, int) const {}
  void after(const ExecSpace&, int, int) const {}
  void finish(const ExecSpace&, int, int) const {}
};

/// A keeper made of three callables (exec, p, n): what an equation keeps of a history of its
/// own (the acoustic snapshots and differences, a recomputed checkpoint segment).
template <class Before, class After, class Finish>
struct KeepWith {
  Before before_step;
  After after_step;
  Finish finish_run;
  void before(const ExecSpace& exec, int p, int n) const { before_step(exec, p, n); }
  void after(const ExecSpace& exec, int p, int n) const { after_step(exec, p, n); }
  void finish(const ExecSpace& exec, int p, int n) const { finish_run(exec, p, n); }
};
template <class Before, class After, class Finish>
KeepWith<Before, After, Finish> keep_with(Before before, After after, Finish finish) {
  return {before, after, finish};
}
/// The callable of a keeper that keeps nothing at that point.
inline constexpr auto keep_none = [](const ExecSpace&, int, int) {};

/// Steps [n_begin, n_end) of a batch of shots. Step n has parity p = (n - n_begin) & 1: an
/// equation that writes step n + 1 over step n - 1 keeps its fields in two parity copies and
/// `p` picks the one step n reads; an equation updating in place ignores it.
///  - `steps.record(exec, p, n)` (when `record`): the receivers' samples of step n, before it;
///    `steps.step(exec, p, n)`: the step.
///  - `keep.before(exec, p, n)` / `keep.after(exec, p, n)`: what the history keeps before and
///    after step n; `keep.finish(exec, p, n_end)`: of the state after the last step (parity p).
///  - `report(n + 1)` after step n: NaN checks and progress (host work only).
/// Everything the loop launches is built before it: it allocates nothing and copies nothing to
/// the host.
template <class Steps, class Keep, class Report>
void forward_loop(const ExecSpace& exec, const Steps& steps, const Keep& keep, int n_begin,
                  int n_end, bool record, const Report& report) {
  for (int n = n_begin; n < n_end; ++n) {
    const int p = (n - n_begin) & 1;
    keep.before(exec, p, n);
    if (record) steps.record(exec, p, n);
    steps.step(exec, p, n);
    keep.after(exec, p, n);
    report(n + 1);
  }
  keep.finish(exec, (n_end - n_begin) & 1, n_end);
}

/// The longest sweep when `length` steps run in sweeps of at most `levels` steps and near-equal
/// length (sweep_loop, backward_sweep_loop).
inline int sweep_length(int length, int levels) {
  const int sweeps = (length + levels - 1) / levels;
  return (length + sweeps - 1) / sweeps;
}

/// Steps [n_begin, n_end) of a run that keeps nothing, up to `levels` steps per sweep (host
/// wavefronts, backends/wavefront.hpp), in sweeps of near-equal length: `sweep(p, n, m)` runs
/// steps [n, n + m), step n of parity p (as forward_loop's), recording and injecting as
/// step() and record() do; then report(n, n + m) (the steps done before and after it: only the
/// state after the sweep is left to check).
template <class Sweep, class Report>
void sweep_loop(int levels, int n_begin, int n_end, const Sweep& sweep, const Report& report) {
  const int most = sweep_length(n_end - n_begin, levels);
  for (int n = n_begin; n < n_end;) {
    const int m = std::min(n_end - n, most);
    sweep((n - n_begin) & 1, n, m);
    report(n, n + m);
    n += m;
  }
}

}  // namespace pwave::propagation
