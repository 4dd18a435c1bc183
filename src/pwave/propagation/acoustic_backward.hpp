#pragma once
// The acoustic equations' backward (adjoint) run on the framework's loop (backward_loop.hpp):
// AcousticPropagator::backward_impl, which picks what feeds each step's imaging from the history
// (the frame with the reversed step, the differences, the snapshots, a recomputed checkpoint
// segment). What a step computes is the equation's Backward class. Included by the .cpp files
// that define those classes, which instantiate it for their equation.

#include "backends/wavefront.hpp"
#include "pwave/core/error.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/backward_loop.hpp"

namespace pwave {

template <class T>
template <class Physics, int Order, bool FreeSurface, int Dim>
void AcousticPropagator<T>::backward_impl(int count, const Traces<T>& residual,
                                          const History& history, const GridView<T>& grad,
                                          const SourceAdjoint& source_adjoint) {
  using Steps = Backward<Physics, Order, FreeSurface, Dim>;
  using propagation::backward_loop;
  // Which history it is: exactly one of these is set (adjoint() checked it holds this batch).
  const auto* full = history.template get_if<propagation::FullHistory<T>>();
  const auto* frames = history.template get_if<propagation::FrameHistory<T>>();
  const auto* checkpoints = history.template get_if<propagation::CheckpointHistory<T>>();
  const auto* diff = history.template get_if<propagation::DifferenceHistory<T>>();
  if (!full && !frames && !checkpoints && !diff) {
    throw RuntimeError(
        "AcousticPropagator::adjoint: sampled states and update terms are the elastic equation's "
        "histories");
  }
  ExecSpace exec;
  const Steps steps(*this, count, residual, source_adjoint, frames != nullptr);
  const int nt = problem_.nt;

  // Backward step n, parity p (the adjoint fields' copy whose "current" buffer holds G^{n+1}),
  // with `image()` the imaging from the history.
  const auto step_back = [&](int p, int n, const auto& image) {
    steps.source_adjoint(exec, p, n);
    image();
    steps.adjoint_step(exec, p);
    steps.inject_residual(exec, p, n);
  };
  const auto no_segments = [](int, int, int) {};
  // Host wavefronts (a FrameHistory, a FullHistory or a CheckpointHistory's segments):
  // several steps per sweep down each shot's grid, as the forward run that kept the history
  // (when no source adjoint is asked for):
  // `sweep(steps, p, n, m, wavefront)` runs steps n .. n - m + 1 (steps passed in, so that
  // equations without sweeps never instantiate the call). Returns whether it ran.
  const auto swept = [&](int interval, const auto& recompute, const auto& sweep) {
    if constexpr (Steps::sweeps && backend::runs_wavefronts<ExecSpace>()) {
      // 3D: with the interior on host lines (not z-marched).
      if (problem_.wavefront_steps > 1 && source_adjoint.extent(0) == 0 &&
          (Dim == 2 || problem_.interior_3d == Interior3D::cells)) {
        const typename Steps::Wavefront wavefront = steps.wavefront();
        propagation::backward_sweep_loop(
            wavefront.levels, nt, interval, recompute,
            [&](int p, int n, int m) { sweep(steps, p, n, m, wavefront); });
        return true;
      }
    }
    return false;
  };
  if (frames) {
    const auto sweep = [&](const auto& st, int p, int n, int m, const auto& w) {
      st.sweep(exec, p, n, m, w, *frames);
    };
    if (!swept(0, no_segments, sweep)) {
      backward_loop(nt, 0, no_segments, [&](int p, int n) {
        step_back(p, n, [&] { steps.rebuild_and_image(exec, p, n, *frames); });
      });
    }
  } else if (diff) {
    backward_loop(nt, 0, no_segments, [&](int p, int n) {
      step_back(p, n, [&] {
        if constexpr (Steps::images_differences) steps.image_differences(exec, p, n, *diff);
      });
    });
  } else if (full) {
    const auto sweep = [&](const auto& st, int p, int n, int m, const auto& w) {
      st.sweep(exec, p, n, m, w, full->snapshots, 0);
    };
    if (!swept(0, no_segments, sweep)) {
      backward_loop(nt, 0, no_segments, [&](int p, int n) {
        step_back(p, n, [&] { steps.image_snapshots(exec, p, n, full->snapshots, 0); });
      });
    }
  } else {
    // Each segment's snapshots recomputed from its checkpoint (segment slot 0 holds step
    // segment_begin - 1).
    int segment_begin = 0;
    const auto recompute = [&](int c, int n0, int n1) {
      checkpoints->template copy<true>(exec, st_, c, count);
      forward_impl<Physics, Order, Dim>(count, Traces<T>(), {}, 0, 0, history, n0, n1, true);
      segment_begin = n0;
    };
    const auto sweep = [&](const auto& st, int p, int n, int m, const auto& w) {
      st.sweep(exec, p, n, m, w, checkpoints->segment, segment_begin - 1);
    };
    if (!swept(checkpoints->interval, recompute, sweep)) {
      backward_loop(nt, checkpoints->interval, recompute, [&](int p, int n) {
        step_back(p, n, [&] {
          steps.image_snapshots(exec, p, n, checkpoints->segment, segment_begin - 1);
        });
      });
    }
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
