#pragma once
// The forward time loop of AcousticPropagator, written once for every equation: receivers
// recorded, the equation's step, the source injected, the free surface, and what the history
// keeps (snapshots, frames, checkpoints, differences), step by step. What a step computes is the
// equation's Forward class. Included by the .cpp files that define those classes, which
// instantiate it for their equation; the backward loop calls it to recompute checkpoint
// segments.

#include "backends/launch.hpp"
#include "pwave/core/error.hpp"
#include "pwave/physics/point_sources.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"

namespace pwave {

/// What both acoustic equations' forward steps share: the pressure u and the CPML memory
/// variables in two parity copies (step n of parity p writes u^{n+1} over u^{n-1}: the copies
/// swap u_prev and u_cur, and the constant-density psi buffers), receivers recording u, the
/// source injected into u, and the pressure-release surface mirroring u. Each equation's
/// Forward class derives from it and adds step().
template <class T>
class AcousticPropagator<T>::PressureForward {
 public:
  using State = physics::AcousticState<T>;
  PressureForward(const AcousticPropagator& prop, const Traces<T>& traces)
      : even_(prop.st_),
        odd_(swapped(prop.st_)),
        record_{{traces, even_.u_cur, prop.taps_.receivers(), column(prop.st_), 0},
                {traces, odd_.u_cur, prop.taps_.receivers(), column(prop.st_), 0}},
        inject_{{even_.u_prev, prop.st_.v2dt2, prop.taps_.sources(), prop.scaled_wavelet_,
                 column(prop.st_), 0},
                {odd_.u_prev, prop.st_.v2dt2, prop.taps_.sources(), prop.scaled_wavelet_,
                 column(prop.st_), 0}},
        surface_{{even_.u_prev, prop.st_.halo}, {odd_.u_prev, prop.st_.halo}},
        receivers_(prop.nrec_),
        source_taps_(prop.taps_.source_taps()) {}
  PressureForward(const PressureForward&) = delete;
  PressureForward& operator=(const PressureForward&) = delete;

  /// Parity p's fields: what a checkpoint saves before step p, and what the propagator keeps
  /// after the run.
  const State& fields(int p) const { return p == 0 ? even_ : odd_; }
  /// u^n, which step p reads.
  const Field<T>& current(int p) const { return fields(p).u_cur; }
  /// The buffer step p writes u^{n+1} into (u^{n-1} before it).
  const Field<T>& next(int p) const { return fields(p).u_prev; }

  /// traces(shot, receiver, n) = u^n at the receivers, before step n.
  void record(const ExecSpace& exec, int count, int p, int n) const {
    Kokkos::parallel_for("pwave::physics::acoustic::record",
                         Range3(exec, {0, 0, n}, {count, receivers_, n + 1}), record_[p]);
  }
  /// The source term of step n, added to u^{n+1}.
  void inject(const ExecSpace& exec, int count, int p, int n) const {
    Kokkos::parallel_for("pwave::physics::acoustic::inject",
                         Range3(exec, {0, 0, n}, {count, source_taps_, n + 1}), inject_[p]);
  }
  /// u^{n+1} = 0 at the surface, mirrored above it.
  void free_surface(const ExecSpace& exec, int count, int p) const {
    Kokkos::parallel_for("pwave::physics::acoustic::free_surface",
                         Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
                             exec, {0, 0}, {count, int(next(p).extent(2))}),
                         surface_[p]);
  }

 private:
  using Range3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;
  static State swapped(const State& even) {
    State odd = even;
    std::swap(odd.u_prev, odd.u_cur);
    std::swap(odd.psi_x, odd.psi_x_next);
    std::swap(odd.psi_z, odd.psi_z_next);
    std::swap(odd.psi_y, odd.psi_y_next);
    return odd;
  }
  static physics::ColumnMap column(const State& st) { return {st.nx, st.hy, st.ys, st.halo}; }
  const State even_, odd_;
  const physics::RecordReceivers<T> record_[2];
  const physics::InjectSource<T> inject_[2];
  const physics::FreeSurface<T> surface_[2];
  const int receivers_, source_taps_;
};

template <class T>
template <class Physics, int Order, int Dim>
void AcousticPropagator<T>::forward_impl(int count, const Traces<T>& traces,
                                         const ProgressCallback& progress, long steps_before,
                                         long steps_total, const History& history, int n_begin,
                                         int n_end, bool recompute) {
  using namespace physics;
  // What this run stores: the history's arrays from rest, or, recomputing a segment, the
  // segment buffer of the checkpoint history.
  const auto* checkpoints = history.template get_if<propagation::CheckpointHistory<T>>();
  if (recompute && !checkpoints) {
    throw RuntimeError("AcousticPropagator: only checkpoint histories recompute segments");
  }
  const auto* full = recompute ? nullptr : history.template get_if<propagation::FullHistory<T>>();
  const auto* frames =
      recompute ? nullptr : history.template get_if<propagation::FrameHistory<T>>();
  const auto* diff =
      recompute ? nullptr : history.template get_if<propagation::DifferenceHistory<T>>();
  const bool save_checkpoints = !recompute && checkpoints;
  if (diff) Kokkos::deep_copy(diff->previous, T(0));  // u^{-1} = 0
  if (!recompute) reset();
  ExecSpace exec;

  // The equation's step, with its fields in parity copies (step n of parity p = (n - n_begin)
  // & 1), its receivers, source and free surface: every functor built once, so the time loop
  // only chooses which copy it launches.
  const Forward<Physics, Order, Dim> steps(*this, traces);
  const bool free_surface = problem_.boundary.free_surface;

  const propagation::FrameRegion region = frame_region();
  if (full) {
    store_snapshot<Dim>(exec, count, full->snapshots, steps.current(0), 0);
  }
  if (recompute) {  // segment slots 0, 1: u^{n_begin - 1}, u^{n_begin}
    store_snapshot<Dim>(exec, count, checkpoints->segment, steps.next(0), 0);
    store_snapshot<Dim>(exec, count, checkpoints->segment, steps.current(0), 1);
  }
  // The frame of u^n into slot n (one field; the band covers what the reversed step reads).
  propagation::FrameFields<T, false> store_frame;
  if (frames) {
    store_frame.frames = frames->frames, store_frame.region = region, store_frame.fields = 1;
    store_frame.field[0] = steps.current(0), store_frame.n = 0;
    propagation::for_each_stored_cell("pwave::propagation::store_frame", exec, count, region,
                                      store_frame);
  }
  for (int n = n_begin; n < n_end; ++n) {
    const int p = (n - n_begin) & 1;
    if (save_checkpoints && n % checkpoints->interval == 0) {
      // The whole state step n starts from (for the acoustic equations u^{n-1}, u^n, psi^{n-1},
      // zeta^{n-1}).
      const int c = n / checkpoints->interval;
      checkpoints->for_each_saved(steps.fields(p), c, [&](const auto& slot, const auto& field) {
        Kokkos::deep_copy(exec, slot, field);
      });
    }
    if (!recompute) steps.record(exec, count, p, n);
    steps.step(exec, count, p);
    steps.inject(exec, count, p, n);
    if (free_surface) steps.free_surface(exec, count, p);
    // From here parity p's next() holds the new field u^{n+1}, current() u^n.
    const Field<T>& latest = steps.next(p);
    if (full) {
      store_snapshot<Dim>(exec, count, full->snapshots, latest, n + 1);
    }
    if (frames) {
      store_frame.field[0] = latest, store_frame.n = n + 1;
      propagation::for_each_stored_cell("pwave::propagation::store_frame", exec, count, region,
                                        store_frame);
    }
    if (recompute) {
      store_snapshot<Dim>(exec, count, checkpoints->segment, latest, n - n_begin + 2);
    }
    if (diff) {
      // D^n needs u^{n-1}, which this step overwrote: it was kept at the end of step n-1.
      if (n % diff->stride == 0) {
        store_difference(*diff, latest, steps.current(p), count, n);
      }
      if ((n + 1) % diff->stride == 0) {
        Kokkos::deep_copy(exec, diff->previous, steps.current(p));  // u^n for step n+1
      }
    }
    if (problem_.check_interval > 0 && (n + 1) % problem_.check_interval == 0) {
      check_finite(latest, count, n + 1);
    }
    if (progress) progress(steps_before + n + 1, steps_total);
  }
  // Leave st_ holding the latest fields where the next run (or a restored segment) expects them.
  st_ = steps.fields((n_end - n_begin) & 1);
  exec.fence();
}

}  // namespace pwave

/// The explicit instantiations of forward_impl for equation descriptor P: float and double,
/// orders 2-8, 2D and 3D. In the .cpp that defines P's Forward class, at namespace pwave scope.
#define PWAVE_INSTANTIATE_FORWARD_ONE(T, P, O, D)                 \
  template void AcousticPropagator<T>::forward_impl<P, O, D>(     \
      int, const Traces<T>&, const ProgressCallback&, long, long, \
      const AcousticPropagator<T>::History&, int, int, bool);
#define PWAVE_INSTANTIATE_FORWARD_ORDERS(T, P, D) \
  PWAVE_INSTANTIATE_FORWARD_ONE(T, P, 2, D)       \
  PWAVE_INSTANTIATE_FORWARD_ONE(T, P, 4, D)       \
  PWAVE_INSTANTIATE_FORWARD_ONE(T, P, 6, D)       \
  PWAVE_INSTANTIATE_FORWARD_ONE(T, P, 8, D)
#define PWAVE_INSTANTIATE_FORWARD(P)             \
  PWAVE_INSTANTIATE_FORWARD_ORDERS(float, P, 2)  \
  PWAVE_INSTANTIATE_FORWARD_ORDERS(float, P, 3)  \
  PWAVE_INSTANTIATE_FORWARD_ORDERS(double, P, 2) \
  PWAVE_INSTANTIATE_FORWARD_ORDERS(double, P, 3)
