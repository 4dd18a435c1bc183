#pragma once
// The backward run of the elastic kernels (physics/elastic/adjoint_step.hpp) on the fixture's
// problems (elastic_fixture.hpp): a forward run keeping the state before every step and after
// the last (the history the imaging needs: step n's images read the states before and after
// it, fields and memory variables), then the transposed steps from given
// receiver residuals, giving the source samples' gradient, the images and dJ/dvp, dJ/dvs,
// dJ/drho per model cell. Also the dot-product test of the whole state map.

#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "physics/elastic_fixture.hpp"

namespace pwave::test::elastic {

/// What a backward run returns: the gradients of J (residuals given) with respect to the
/// source samples and, per model cell ([nz][ny][nx]), to vp, vs and rho.
struct AdjointRun {
  std::vector<double> source;
  std::vector<double> vp, vs, rho;
};

namespace detail {

// Defined in fixtures/elastic_adjoint_run.hpp, compiled once in fixtures/elastic_order*.cpp.
template <class T, int Order, int Dim>
AdjointRun adjoint(const Model& m, const Simulation& r,
                   const std::vector<std::vector<double>>& residual);
template <class T, int Order, int Dim>
std::pair<double, double> state_dot_test(const Model& m, const Simulation& r, unsigned seed);
template <class T, int Order, int Dim>
std::pair<double, long> bars_paths_differ(const Model& m, const Simulation& r, unsigned seed);

}  // namespace detail

/// f(order, dim) with r.order and m's dimension as std::integral_constant's.
template <class R, class F>
R with_order_and_dim(const Model& m, const Simulation& r, const F& f) {
  R out;
  if (!physics::with_order(r.order, [&](auto o) {
        out = m.is_3d() ? f(o, std::integral_constant<int, 3>{})
                        : f(o, std::integral_constant<int, 2>{});
      })) {
    throw std::invalid_argument("elastic fixture: order must be 2, 4, 6 or 8");
  }
  return out;
}

/// The backward run of `r` on `m` from receiver residuals [receiver][n] (float64 or float32).
template <class T>
AdjointRun adjoint(const Model& m, const Simulation& r,
                   const std::vector<std::vector<double>>& residual) {
  return with_order_and_dim<AdjointRun>(m, r, [&](auto o, auto d) {
    return detail::adjoint<T, decltype(o)::value, decltype(d)::value>(m, r, residual);
  });
}

/// The state dot-product test of r.nt steps: {<L x0, y>, <x0, L^T y>}.
template <class T>
std::pair<double, double> state_dot_test(const Model& m, const Simulation& r, unsigned seed = 7) {
  return with_order_and_dim<std::pair<double, double>>(m, r, [&](auto o, auto d) {
    return detail::state_dot_test<T, decltype(o)::value, decltype(d)::value>(m, r, seed);
  });
}

/// bars_paths_differ: {the largest difference relative to its field, points of the inline box}.
template <class T>
std::pair<double, long> bars_paths_differ(const Model& m, const Simulation& r, unsigned seed = 11) {
  return with_order_and_dim<std::pair<double, long>>(m, r, [&](auto o, auto d) {
    return detail::bars_paths_differ<T, decltype(o)::value, decltype(d)::value>(m, r, seed);
  });
}

}  // namespace pwave::test::elastic
