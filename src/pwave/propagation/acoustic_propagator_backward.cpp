// The backward (adjoint) run's entry points: the checks of what the caller hands in, and the
// dispatch from the run's equation, order, free surface and dimension to the backward loop
// (acoustic_backward.hpp) instantiated for them in acoustic_propagator_adjoint.cpp (constant
// density) and acoustic_vd_adjoint.cpp (variable density).

#include "pwave/core/error.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"

namespace pwave {

template <class T>
void AcousticPropagator<T>::adjoint(
    int first, int count, const Traces<T>& residual, const History& history,
    const GridView<T>& grad_w,
    const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>& source_adjoint) {
  std::vector<int> shots(std::size_t(count > 0 ? count : 0));
  for (int k = 0; k < count; ++k) shots[k] = first + k;
  adjoint(shots, residual, history, grad_w, source_adjoint);
}

template <class T>
void AcousticPropagator<T>::adjoint(
    const std::vector<int>& shots, const Traces<T>& residual, const History& history,
    const GridView<T>& grad_w,
    const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>& source_adjoint) {
  if (shots != this->batch()) {
    throw RuntimeError("AcousticPropagator::adjoint: not the batch of the preceding forward()");
  }
  const int count = int(shots.size());
  if (!history.holds(problem_.nt, count)) {
    throw RuntimeError("AcousticPropagator::adjoint: history has the wrong shape");
  }
  check_traces("AcousticPropagator::adjoint: the residuals", residual, count);
  if (source_adjoint.extent(0) != 0 &&
      (int(source_adjoint.extent(0)) < count || int(source_adjoint.extent(1)) != problem_.nt)) {
    throw RuntimeError("AcousticPropagator::adjoint: the source adjoint is " +
                       std::to_string(source_adjoint.extent(0)) + " x " +
                       std::to_string(source_adjoint.extent(1)) + "; this batch needs at least " +
                       std::to_string(count) + " x " + std::to_string(problem_.nt));
  }
  // The gradient is accumulated on the padded model grid [nz][ny nx] (empty: per-shot images),
  // one such grid per imaging channel.
  const int rows = imaging_channels() * padded_nz();
  if (grad_w.extent(0) != 0 &&
      (int(grad_w.extent(0)) != rows || int(grad_w.extent(1)) != padded_plane())) {
    throw RuntimeError(
        "AcousticPropagator::adjoint: the gradient is " + std::to_string(grad_w.extent(0)) + " x " +
        std::to_string(grad_w.extent(1)) + ", expected " + std::to_string(rows) + " x " +
        std::to_string(padded_plane()) + " ([channels nz][ny nx] on the padded grid)");
  }
  const bool fs = problem_.boundary.free_surface;
  const bool is3d = problem_.model.grid.is_3d();
  if (problem_.equation == physics::Equation::acoustic_variable_density) {
    if (history.template get_if<propagation::DifferenceHistory<T>>()) {
      throw RuntimeError("AcousticPropagator::adjoint: variable density needs an exact history");
    }
    allocate_adjoint_vd();
  } else {
    allocate_adjoint();
  }
  // Runtime choices to compile-time types, once: equation, order, free surface, dimension.
  bool known = false;
  physics::with_equation(problem_.equation, [&](auto equation) {
    using Physics = decltype(equation);
    if constexpr (acoustic_equation<Physics>) {
      known = physics::with_order(this->problem_.order, [&](auto order) {
        constexpr int O = decltype(order)::value;
        if (is3d) {
          fs ? backward_impl<Physics, O, true, 3>(count, residual, history, grad_w, source_adjoint)
             : backward_impl<Physics, O, false, 3>(count, residual, history, grad_w,
                                                   source_adjoint);
        } else {
          fs ? backward_impl<Physics, O, true, 2>(count, residual, history, grad_w, source_adjoint)
             : backward_impl<Physics, O, false, 2>(count, residual, history, grad_w,
                                                   source_adjoint);
        }
      });
    }
  });
  if (!known) throw InputError("physics.order", "", "order must be 2, 4, 6 or 8");
}

template <class T>
void AcousticPropagator<T>::adjoint_per_shot(const std::vector<int>& shots,
                                             const Traces<T>& residual, const History& history) {
  adjoint(shots, residual, history, GridView<T>());
}

#define PWAVE_INSTANTIATE_ADJOINT_ENTRIES(T)                                                       \
  template void AcousticPropagator<T>::adjoint_per_shot(const std::vector<int>&, const Traces<T>&, \
                                                        const History&);                           \
  template void AcousticPropagator<T>::adjoint(                                                    \
      int, int, const Traces<T>&, const History&, const GridView<T>&,                              \
      const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>&);                                    \
  template void AcousticPropagator<T>::adjoint(                                                    \
      const std::vector<int>&, const Traces<T>&, const History&, const GridView<T>&,               \
      const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>&);
PWAVE_INSTANTIATE_ADJOINT_ENTRIES(float)
PWAVE_INSTANTIATE_ADJOINT_ENTRIES(double)

}  // namespace pwave
