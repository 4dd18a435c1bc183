#pragma once
// One rank's share of a misfit gradient over shots spread across ranks, propagated in chunks
// of at most execution.shot_batch shots, with only the current chunk's observed traces on the
// device. Used by misfit_gradient (task gradient) and run_fwi (every objective evaluation).

#include <functional>
#include <vector>

#include "pwave/core/observed.hpp"
#include "pwave/misfit/misfit.hpp"
#include "pwave/misfit/selection.hpp"
#include "pwave/parallel/allreduce.hpp"
#include "pwave/parallel/communicator.hpp"
#include "pwave/parallel/reproducible_sum.hpp"
#include "pwave/propagation/propagator.hpp"

namespace pwave {

/// Observed traces of one chunk of shots: read shot by shot (ObservedTraces::read_shot) into a
/// host staging buffer in precision T, optionally filtered there, then weighted by the data
/// selection (misfit/selection.hpp) and copied to a device buffer of the chunk's capacity in one
/// host-to-device copy. On host-only builds the two buffers are one and the copy is skipped.
template <class T>
class ObservedStaging {
 public:
  /// Applied to every staged trace (`samples` values at time.dt) before the device copy.
  using TraceFilter = std::function<void(T* trace, std::size_t samples)>;

  /// `observed` must outlive this object. Allocates [capacity][receivers][samples] twice at
  /// most (device and host staging). `selection` (of `problem`'s shots and dt) is applied as
  /// the traces are staged.
  ObservedStaging(const ObservedTraces& observed, int capacity, const ForwardProblem& problem,
                  const misfit::Selection& selection = {});

  /// Stages shots[0 .. count) (global shot ids, count <= capacity()): device() row k then holds
  /// shot shots[k]'s traces.
  void load(const int* shots, int count, const TraceFilter& filter = {});

  const Traces<T>& device() const { return device_; }
  int capacity() const { return int(device_.extent(0)); }
  /// The weights of the staged chunk (to apply to its synthetic traces and adjoint sources).
  const misfit::TraceSelection<T>& selection() const { return selection_; }
  /// Dead traces (all zero, or NaN/Inf) of shot `shot` excluded when it was last staged.
  int dead_traces(int shot) const { return dead_.at(std::size_t(shot)); }

 private:
  const ObservedTraces* observed_;
  misfit::TraceSelection<T> selection_;
  std::vector<int> dead_;
  Traces<T> device_;
  typename Traces<T>::host_mirror_type host_;
};

/// Misfit and imaging of shots spread over ranks. Each rank propagates its shots in chunks of at
/// most the propagator's batch capacity, staging each chunk's observed traces just before it
/// runs. Per-shot misfits and per-shot imaging sums are then added over all ranks' shots in key
/// order (parallel::ordered_sum, parallel::OrderedSum): the results are bitwise the same on any
/// number of ranks and for any chunk size.
///
/// Device memory: the propagator's (wavefields of one chunk), the history, synthetic, residual
/// and observed traces of one chunk, and the imaging sum (padded grid); for the envelope misfit
/// also its scratch (misfit::Workspace: 2 N + nt doubles per receiver of a shot, N the power of
/// two >= 2 nt). With several ranks and
/// more than one chunk per rank, also one padded-grid row per shot of the share: a rank adds its
/// rows to the running sum the ranks before it pass on (OrderedSum's chain), so it must keep
/// them until that sum arrives. One rank adds each chunk's rows as it goes and keeps none.
template <class T>
class ShotGradient {
 public:
  struct Hooks {
    /// Applied to the observed traces as they are staged (a multiscale stage's low-pass).
    typename ObservedStaging<T>::TraceFilter filter;
    /// After each chunk's forward run: its synthetic traces (device rows 0 .. count-1) and the
    /// index in `shots` of its first shot.
    std::function<void(const Traces<T>& synthetic, int first, int count)> synthetic;
    /// (steps done, steps total) over this rank's forward and adjoint steps.
    ProgressCallback progress;
  };

  /// `prop`: built with the chunk size as batch capacity (at most `share`); `observed`: all
  /// shots; `share`: the most shots this rank is given per evaluate(); `misfit`: the misfit
  /// function, whose adjoint source the adjoint propagation injects, and the data selection. Both
  /// references must outlive this object.
  ShotGradient(Propagator<T>& prop, const ObservedTraces& observed, int share,
               const StorageOptions& storage, parallel::AllreducePath path,
               const parallel::Communicator& comm, const misfit::Options& misfit = {});

  /// Collective. Runs this rank's `shots` (global ids, at most share; keys[k]: the global order
  /// of shots[k], distinct over all ranks; every rank calls, with or without shots) and returns
  /// the misfit J (by default l2: 0.5 sum (d - d_obs)^2) over all ranks' shots. imaging() then
  /// holds the sum over all those shots of their imaging ([imaging_rows][padded plane]: dJ/dw =
  /// the equation's chain rule: Propagator::model_gradients). With the model set on `prop`
  /// beforehand.
  double evaluate(const std::vector<int>& shots, const std::vector<long>& keys,
                  const Hooks& hooks = Hooks());

  /// What model() hands on for each chunk: its synthetic traces and its staged observed traces
  /// (device rows 0 .. count-1, both weighted by the data selection as the misfit sees them),
  /// and the index in `shots` of its first shot.
  using ChunkTraces = std::function<void(const Traces<T>& synthetic, const Traces<T>& observed,
                                         int first, int count)>;

  /// Forward modelling only (no history, no adjoint) of this rank's `shots` (global ids, any
  /// number: run in chunks), the observed traces staged as evaluate() stages them
  /// (hooks.filter); each chunk goes to `chunk`. Not collective. With the model and wavelet set
  /// on `prop` beforehand (e.g. for the source wavelet estimation of an inversion).
  void model(const std::vector<int>& shots, const Hooks& hooks, const ChunkTraces& chunk);

  /// The staged observed traces are kept between calls when a rank's shots fit one chunk and do
  /// not change (line searches, every shot in every iteration). Call this when the filter
  /// changes, so that the next evaluate() stages them again.
  void invalidate_observed() { staged_.clear(); }

  const GridView<T>& imaging() const { return imaging_; }
  int chunk() const { return chunk_; }
  /// Dead observed traces (all zero, or NaN/Inf) the last evaluate() excluded, over all ranks.
  long dead_traces() const { return dead_traces_; }
  /// Dead observed traces of `shot` when this rank last staged it (0 if it never did).
  int shot_dead_traces(int shot) const { return staging_.dead_traces(shot); }
  /// Wall time spent in the cross-rank sums so far (seconds).
  double reduce_seconds() const { return reduce_seconds_; }

 private:
  /// Shots [first, first + count) of `shots`, their observed traces staged on the device
  /// unless the one chunk of the previous call already put them there.
  std::vector<int> stage_chunk(const std::vector<int>& shots, int first, int count, int chunks,
                               const Hooks& hooks);

  Propagator<T>& prop_;
  const parallel::Communicator& comm_;
  int share_, chunk_, nt_;
  misfit::Misfit kind_;
  long dead_traces_ = 0;
  misfit::Workspace misfit_scratch_;  // envelope only: reserved once, reused by every chunk
  ObservedStaging<T> staging_;
  std::vector<int> staged_;  // shots whose observed traces device rows hold; empty: unknown
  typename Propagator<T>::History history_;
  Traces<T> syn_, res_;
  GridView<T> imaging_;
  Field<T> rows_;     // per-shot imaging of the whole share (several ranks, several chunks)
  Field<T> no_rows_;  // [0][nz][nx]: what a rank without shots hands to the sum
  parallel::OrderedSum<T> imaging_sum_;
  double reduce_seconds_ = 0.0;
};

}  // namespace pwave
