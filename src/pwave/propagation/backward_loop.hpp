#pragma once
// The backward (adjoint) time loop of AcousticPropagator, written once for every equation: the
// steps n = nt-1 .. 0, the checkpoint segments recomputed by the forward loop, and which part of
// the history feeds the imaging. What a step computes is the equation's Backward class. Included
// by the .cpp files that define those classes, which instantiate it for their equation.

#include "pwave/propagation/acoustic_propagator.hpp"

namespace pwave {

template <class T>
template <class Physics, int Order, bool FreeSurface, int Dim>
void AcousticPropagator<T>::backward_impl(int count, const Traces<T>& residual,
                                          const History& history, const GridView<T>& grad,
                                          const SourceAdjoint& source_adjoint) {
  using Steps = Backward<Physics, Order, FreeSurface, Dim>;
  // Which history it is: exactly one of these is set (adjoint() checked it holds this batch).
  const auto* full = history.template get_if<propagation::FullHistory<T>>();
  const auto* frames = history.template get_if<propagation::FrameHistory<T>>();
  const auto* checkpoints = history.template get_if<propagation::CheckpointHistory<T>>();
  const auto* diff = history.template get_if<propagation::DifferenceHistory<T>>();
  ExecSpace exec;
  const Steps steps(*this, count, residual, source_adjoint, frames != nullptr);

  // Backward step n = nt-1 .. 0; p = (nt - 1 - n) & 1 picks the parity copy of the adjoint
  // fields whose "current" buffer holds G^{n+1}.
  int segment_begin = problem_.nt;  // checkpoint storage: first step of the loaded segment
  for (int n = problem_.nt - 1; n >= 0; --n) {
    const int p = (problem_.nt - 1 - n) & 1;
    if (checkpoints && n < segment_begin) {
      // Recompute this segment's snapshots from its checkpoint.
      const int c = n / checkpoints->interval;
      segment_begin = c * checkpoints->interval;
      restore_checkpoint(*checkpoints, c);
      forward_impl<Physics, Order, Dim>(count, Traces<T>(), {}, 0, 0, history, segment_begin, n + 1,
                                        true);
    }
    steps.source_adjoint(exec, p, n);
    if (frames) {
      steps.rebuild_and_image(exec, p, n, *frames);
    } else if (diff) {
      if constexpr (Steps::images_differences) steps.image_differences(exec, p, n, *diff);
    } else {
      steps.image_snapshots(exec, p, n, full ? full->snapshots : checkpoints->segment,
                            full ? 0 : segment_begin - 1);
    }
    steps.adjoint_step(exec, p);
    steps.inject_residual(exec, p, n);
  }
  steps.finish(exec, grad);
  exec.fence();
}

}  // namespace pwave

/// The explicit instantiations of backward_impl for equation descriptor P: float and double,
/// orders 2-8, with and without a free surface, 2D and 3D. In the .cpp that defines P's
/// Backward class, at namespace pwave scope.
#define PWAVE_INSTANTIATE_BACKWARD_ONE(T, P, O, FS, D)                                  \
  template void AcousticPropagator<T>::backward_impl<P, O, FS, D>(                      \
      int, const Traces<T>&, const AcousticPropagator<T>::History&, const GridView<T>&, \
      const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>&);
#define PWAVE_INSTANTIATE_BACKWARD_ORDERS(T, P, FS, D) \
  PWAVE_INSTANTIATE_BACKWARD_ONE(T, P, 2, FS, D)       \
  PWAVE_INSTANTIATE_BACKWARD_ONE(T, P, 4, FS, D)       \
  PWAVE_INSTANTIATE_BACKWARD_ONE(T, P, 6, FS, D)       \
  PWAVE_INSTANTIATE_BACKWARD_ONE(T, P, 8, FS, D)
#define PWAVE_INSTANTIATE_BACKWARD_PRECISION(T, P)  \
  PWAVE_INSTANTIATE_BACKWARD_ORDERS(T, P, false, 2) \
  PWAVE_INSTANTIATE_BACKWARD_ORDERS(T, P, true, 2)  \
  PWAVE_INSTANTIATE_BACKWARD_ORDERS(T, P, false, 3) \
  PWAVE_INSTANTIATE_BACKWARD_ORDERS(T, P, true, 3)
#define PWAVE_INSTANTIATE_BACKWARD(P)            \
  PWAVE_INSTANTIATE_BACKWARD_PRECISION(float, P) \
  PWAVE_INSTANTIATE_BACKWARD_PRECISION(double, P)
