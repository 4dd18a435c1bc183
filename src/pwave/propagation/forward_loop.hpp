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

template <class T>
template <class Physics, int Order, int Dim>
void AcousticPropagator<T>::forward_impl(int first, int count, const Traces<T>& traces,
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

  // Two copies of every functor, one per parity of the step, so the time loop only swaps which
  // one it launches: no View copies, allocations or host work per step.
  physics::AcousticState<T> even = st_, odd = st_;
  std::swap(odd.u_prev, odd.u_cur);
  std::swap(odd.psi_x, odd.psi_x_next);
  std::swap(odd.psi_z, odd.psi_z_next);
  std::swap(odd.psi_y, odd.psi_y_next);
  const physics::AcousticState<T>* parity[2] = {&even, &odd};
  const Forward<Physics, Order, Dim> steps(*this, even, odd);  // the equation's step
  const ColumnMap column{st_.nx, st_.hy, st_.ys, st_.halo};
  const auto& receivers = taps_.receivers();
  const auto& sources = taps_.sources();
  const RecordReceivers<T> record[2] = {{traces, even.u_cur, receivers, column, first},
                                        {traces, odd.u_cur, receivers, column, first}};
  const InjectSource<T> inject[2] = {
      {even.u_prev, st_.v2dt2, sources, scaled_wavelet_, column, first},
      {odd.u_prev, st_.v2dt2, sources, scaled_wavelet_, column, first}};
  const FreeSurface<T> surface[2] = {{even.u_prev, st_.halo}, {odd.u_prev, st_.halo}};

  const int nrec = nrec_, source_taps = taps_.source_taps(), fx = int(st_.u_cur.extent(2));
  const bool free_surface = problem_.boundary.free_surface;
  using Range2 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
  using Range3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;

  const propagation::FrameRegion region = frame_region();
  if (full) {
    store_snapshot<Dim>(exec, count, full->snapshots, even.u_cur, 0);
  }
  if (recompute) {  // segment slots 0, 1: u^{n_begin - 1}, u^{n_begin}
    store_snapshot<Dim>(exec, count, checkpoints->segment, even.u_prev, 0);
    store_snapshot<Dim>(exec, count, checkpoints->segment, even.u_cur, 1);
  }
  if (frames) {
    propagation::for_each_stored_cell(
        "pwave::propagation::store_frame", exec, count, region,
        propagation::StoreFrame<T>{frames->frames, even.u_cur, region, 0, st_.halo});
  }
  for (int n = n_begin; n < n_end; ++n) {
    const int p = (n - n_begin) & 1;
    if (save_checkpoints && n % checkpoints->interval == 0) {
      // The whole state step n starts from: u^{n-1}, u^n, psi^{n-1}, zeta^{n-1}.
      const int c = n / checkpoints->interval;
      checkpoints->for_each_saved(*parity[p], c, [&](const auto& slot, const auto& field) {
        Kokkos::deep_copy(exec, slot, field);
      });
    }
    if (!recompute) {
      Kokkos::parallel_for("pwave::physics::acoustic::record",
                           Range3(exec, {0, 0, n}, {count, nrec, n + 1}), record[p]);
    }
    steps.step(exec, count, p);
    Kokkos::parallel_for("pwave::physics::acoustic::inject",
                         Range3(exec, {0, 0, n}, {count, source_taps, n + 1}), inject[p]);
    if (free_surface) {
      Kokkos::parallel_for("pwave::physics::acoustic::free_surface",
                           Range2(exec, {0, 0}, {count, fx}), surface[p]);
    }
    if (full) {
      store_snapshot<Dim>(exec, count, full->snapshots, parity[p]->u_prev, n + 1);
    }
    if (frames) {
      propagation::for_each_stored_cell(
          "pwave::propagation::store_frame", exec, count, region,
          propagation::StoreFrame<T>{frames->frames, parity[p]->u_prev, region, n + 1, st_.halo});
    }
    if (recompute) {
      store_snapshot<Dim>(exec, count, checkpoints->segment, parity[p]->u_prev, n - n_begin + 2);
    }
    if (diff) {
      // D^n needs u^{n-1}, which this step overwrote: it was kept at the end of step n-1.
      if (n % diff->stride == 0) {
        store_difference(*diff, parity[p]->u_prev, parity[p]->u_cur, count, n);
      }
      if ((n + 1) % diff->stride == 0) {
        Kokkos::deep_copy(exec, diff->previous, parity[p]->u_cur);  // u^n for step n+1
      }
    }
    if (problem_.check_interval > 0 && (n + 1) % problem_.check_interval == 0) {
      check_finite(parity[p]->u_prev, count, n + 1);  // u^{n+1} sits in this parity's u_prev
    }
    if (progress) progress(steps_before + n + 1, steps_total);
  }
  if ((n_end - n_begin) % 2 == 1) {  // leave st_ pointing at the latest fields
    st_ = odd;
  }
  exec.fence();
}

}  // namespace pwave

/// The explicit instantiations of forward_impl for equation descriptor P: float and double,
/// orders 2-8, 2D and 3D. In the .cpp that defines P's Forward class, at namespace pwave scope.
#define PWAVE_INSTANTIATE_FORWARD_ONE(T, P, O, D)                      \
  template void AcousticPropagator<T>::forward_impl<P, O, D>(          \
      int, int, const Traces<T>&, const ProgressCallback&, long, long, \
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
