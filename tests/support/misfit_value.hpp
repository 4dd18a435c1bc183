#pragma once
// The misfit module's J of host traces, for the tests that take finite differences of it.

#include <Kokkos_Core.hpp>

#include "pwave/misfit/misfit.hpp"

namespace pwave::test {

/// J = sum over shots of misfits_and_adjoint_sources(kind, synthetic, observed) (host arrays
/// [shot][receiver][time], float64).
inline double misfit_value(misfit::Misfit kind, const HostArray3<double>& synthetic,
                           const HostArray3<double>& observed) {
  const int ns = int(synthetic.extent(0)), nr = int(synthetic.extent(1)),
            nt = int(synthetic.extent(2));
  Traces<double> syn("syn", ns, nr, nt), obs("obs", ns, nr, nt), res("res", ns, nr, nt);
  Kokkos::deep_copy(syn, synthetic);
  Kokkos::deep_copy(obs, observed);
  double j = 0;
  for (double v : misfit::misfits_and_adjoint_sources(kind, syn, obs, res, ns)) j += v;
  return j;
}

}  // namespace pwave::test
