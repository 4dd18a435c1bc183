#pragma once
// The propagator as the framework sees it, whatever the equation: batches of shots run forward
// (recording traces, keeping a history) and backward (the exact adjoint, per-shot imaging),
// material parameters set and gradients returned by name. The drivers, ShotGradient and the FWI
// loop hold a Propagator<T>; make_propagator() builds the equation's own class from the
// problem's physics.equation (today AcousticPropagator for both acoustic equations). Its calls
// are per batch or per model, never per time step: the virtual calls cost nothing in the loop.

#include <memory>
#include <vector>

#include "pwave/core/types.hpp"
#include "pwave/physics/equation.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/parameter_grids.hpp"
#include "pwave/propagation/storage.hpp"
#include "pwave/propagation/wavefield_history.hpp"

namespace pwave {

template <class T>
class Propagator {
 public:
  /// What forward() keeps for the adjoint: one strategy's history, made by make_history().
  using History = propagation::WavefieldHistory<T>;
  using SourceAdjoint = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>;

  virtual ~Propagator() = default;

  /// Most shots per forward() call.
  virtual int batch_capacity() const = 0;
  /// The problem this propagator runs (its model as given at construction).
  virtual const ForwardProblem& problem() const = 0;
  /// Receivers of the widest shot: the receiver extent of Traces.
  virtual int max_receivers() const = 0;
  /// Imaging sums per shot (the equation's gradient channels).
  virtual int imaging_channels() const = 0;
  /// Rows of an imaging sum, shot_imaging()'s extent(1): the channels' padded grids along z.
  virtual int imaging_rows() const = 0;
  /// Columns of the padded grids ([ny nx] in 3D): shot_imaging()'s extent(2).
  virtual int padded_plane() const = 0;

  /// Runs shots `shots` (indices into problem().shots, at most batch_capacity()) from rest:
  /// traces(k, receiver, n) of shot shots[k]. `progress(steps, total)` once per step, offset by
  /// `steps_before` and `steps_total`; `history` filled for adjoint(). Throws RuntimeError on
  /// NaN/Inf.
  virtual void forward(const std::vector<int>& shots, const Traces<T>& traces,
                       const ProgressCallback& progress = {}, long steps_before = 0,
                       long steps_total = 0, const History& history = History()) = 0;
  /// The exact adjoint of the forward() just before for the same shots: back-propagates
  /// `residual` [shot][receiver][time] and leaves each slot's imaging in shot_imaging().
  virtual void adjoint_per_shot(const std::vector<int>& shots, const Traces<T>& residual,
                                const History& history) = 0;
  /// [slot][imaging_rows()][padded_plane()]: the last adjoint_per_shot()'s imaging per shot.
  virtual const Field<T>& shot_imaging() const = 0;

  /// Replaces material parameter `p` by `values` [nz][ny nx] (its unit, device, model grid).
  virtual void set_parameter(physics::Parameter p, const GridView<T>& values) = 0;
  /// dJ/dp on the model grid of each parameter `grads` has an array for, from an imaging sum
  /// of shot_imaging() rows: the equation's chain rule.
  virtual void model_gradients(const GridView<T>& imaging,
                               const ParameterGrids<T>& grads) const = 0;

  /// One source time function for every shot (nt samples).
  virtual void set_wavelet(const std::vector<double>& wavelet) = 0;
  /// A source time function per shot of the problem (nt samples each).
  virtual void set_shot_wavelets(const std::vector<std::vector<double>>& wavelets) = 0;

  /// A history able to hold `count` shots with the given strategy.
  virtual History make_history(int count, const StorageOptions& options) const = 0;
  /// Bytes per shot a history of this strategy takes.
  virtual double history_bytes_per_shot(const StorageOptions& options) const = 0;
};

/// The propagator of `problem`'s equation, for batches of at most `batch_capacity` shots (0: all
/// shots). Copies the model and geometry to the device and allocates the wavefields once.
template <class T>
std::unique_ptr<Propagator<T>> make_propagator(const ForwardProblem& problem,
                                               int batch_capacity = 0);

}  // namespace pwave
