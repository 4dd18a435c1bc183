#include "pwave/propagation/propagator.hpp"

#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/elastic_propagator.hpp"

namespace pwave {

template <class T>
std::unique_ptr<Propagator<T>> make_propagator(const ForwardProblem& problem, int batch_capacity) {
  std::unique_ptr<Propagator<T>> prop;
  physics::with_equation(problem.equation, [&](auto equation) {
    if constexpr (acoustic_equation<decltype(equation)>) {
      prop = std::make_unique<AcousticPropagator<T>>(problem, batch_capacity);
    } else {
      prop = std::make_unique<ElasticPropagator<T>>(problem, batch_capacity);
    }
  });
  return prop;
}

template std::unique_ptr<Propagator<float>> make_propagator(const ForwardProblem&, int);
template std::unique_ptr<Propagator<double>> make_propagator(const ForwardProblem&, int);

}  // namespace pwave
