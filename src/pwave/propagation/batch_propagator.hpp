#pragma once
// What every equation's propagator shares, whatever its fields: the problem, the batch of shots
// loaded on the device (the source and receiver taps of each slot, each slot's source time
// function), and the checks of what the caller passes. An equation's propagator derives from it
// and adds its state, its time loops and its chain rule (AcousticPropagator, ElasticPropagator).

#include <array>
#include <vector>

#include "pwave/propagation/point_taps.hpp"
#include "pwave/propagation/propagator.hpp"

namespace pwave {

template <class T>
class BatchPropagator : public Propagator<T> {
 public:
  int batch_capacity() const override { return capacity_; }
  /// The problem this propagator runs (its model as given at construction).
  const ForwardProblem& problem() const override { return problem_; }
  /// Receivers of the widest shot: the receiver extent of Traces (shots with fewer record zero
  /// rows past their own receivers).
  int max_receivers() const override { return nrec_; }

  /// Replaces the source time function s(t_n) by one shared by all shots (nt samples), e.g. by
  /// a low-passed one in a multiscale inversion. One small host-to-device copy.
  void set_wavelet(const std::vector<double>& wavelet) override;
  /// Gives every shot its own source time function: `wavelets[shot]` (one per shot of the
  /// problem, nt samples each). The current batch's rows are copied to the device now, the
  /// other shots' when a batch holding them is loaded (never inside the time loop). Throws
  /// RuntimeError for a wrong count or length.
  void set_shot_wavelets(const std::vector<std::vector<double>>& wavelets) override;
  /// Whether the shots have their own wavelets (ForwardProblem::shot_wavelets or
  /// set_shot_wavelets) rather than one shared.
  bool per_shot_wavelets() const { return !problem_.shot_wavelets.empty(); }

 protected:
  /// Validates `problem` (propagation/forward.hpp), takes batches of at most `batch_capacity`
  /// shots (0: all), and builds every shot's taps (`source_stagger`, `component_stagger`:
  /// where the fields the sources and the receivers of each component act on lie, in cells, see
  /// point_taps). `name` names the class in error messages.
  BatchPropagator(const ForwardProblem& problem, int batch_capacity, const char* name,
                  const Position& source_stagger = {},
                  const std::array<Position, component_count>& component_stagger = {});

  /// Makes `shots` (indices into problem().shots) the current batch: slot k = shots[k]'s taps
  /// and wavelet on the device (nothing is copied when the batch is the current one).
  void load_batch(const std::vector<int>& shots);
  /// Throws unless `traces` is at least [count][receivers][nt] (what the kernels index).
  void check_traces(const char* what, const Traces<T>& traces, int count) const;
  /// Throws RuntimeError naming the step if field `u` of shots [0, count) holds NaN or Inf (a
  /// blown-up run).
  void check_finite(const Field<T>& u, int count, int step) const;
  /// Material parameter `p` of the problem's model on the device, model grid [nz][ny nx].
  GridView<T> model_grid(physics::Parameter p) const;
  /// The shots of the current batch, slot by slot.
  const std::vector<int>& batch() const { return batch_; }

  ForwardProblem problem_;
  int capacity_ = 0, nrec_ = 0;
  const char* name_;
  /// Every shot's source and receiver taps; the current batch's on the device (slot k =
  /// batch_[k]).
  propagation::ShotTaps<T> taps_;
  std::vector<int> batch_;
  /// [slot][time]: s(t_n) / cell volume of the shot in each slot of the batch (the same row in
  /// every slot for a shared wavelet), and its host side (the same memory on host backends).
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> scaled_wavelet_;
  typename Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>::HostMirror scaled_wavelet_host_;

 private:
  /// Fills scaled_wavelet_'s rows: every row with the shared wavelet, or slot k with shot
  /// batch_[k]'s own; then one host-to-device copy.
  void load_wavelets();
  /// Called after the wavelets of the slots changed (scaled_wavelet_ holds them): an equation
  /// whose sources take another function of the wavelet derives it here.
  virtual void wavelets_changed() {}
};

}  // namespace pwave
