// misfit_gradient with the non-l2 misfits: dJ/dvp through the propagator's exact adjoint
// against central finite differences of J (float64), as tests/propagation/test_adjoint.cpp does
// for l2.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "pwave/misfit/misfit.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/gradient.hpp"
#include "support/misfit_value.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

using misfit::Misfit;

// test::lens_problem with receivers on the surface and on the far side (test_adjoint.cpp's
// problem with fewer receivers).
ForwardProblem small_problem() {
  return test::lens_problem(
      {{60.0, 20.0}, {200.0, 20.0}, {350.0, 20.0}, {500.0, 20.0}, {150.0, 380.0}, {450.0, 380.0}});
}

/// J of the forward-modelled data of `p` against `observed` (the misfit module's values,
/// checked against their own finite differences in test_misfit.cpp).
double misfit_of(Misfit kind, const ForwardProblem& p, const HostArray3<double>& observed) {
  return test::misfit_value(kind, forward_model<double>(p), observed);
}

// dJ/dvp of one model cell inside the lens (between the sources and the far receivers) and
// along a smooth bump, against central differences with eps = 1 m/s. Measured relative errors
// (float64, boundary storage; cell, bump): trace_normalized_l2 and normalized_correlation
// 3.8e-7, 2.7e-6 (the same J for nonzero traces: 0.5 ||d^ - o^||^2 = 1 - d^ . o^), envelope
// 6e-7, 3.6e-6 (printed); the finite differences' O(eps^2) term dominates. Tolerance 1e-5, as
// for l2 in test_adjoint.cpp.
void expect_gradient_matches_fd(Misfit kind) {
  const ForwardProblem truth = small_problem();
  const HostArray3<double> observed = forward_model<double>(truth);
  ForwardProblem p = truth;
  for (double& v : p.model.vp) v = 0.97 * v + 40.0;
  const GradientResult<double> g = misfit_gradient<double>(p, observed, Storage::boundary, {},
                                                           parallel::Communicator::self(), kind);
  const double j = misfit_of(kind, p, observed);
  EXPECT_NEAR(g.misfit, j, 1e-12 * j) << misfit::name(kind);
  ASSERT_GT(j, 0.0);

  const Grid& grid = p.model.grid;
  std::vector<std::vector<double>> directions;
  std::vector<double> cell(p.model.vp.size(), 0.0);
  cell[std::size_t(22) * grid.nx + 30] = 1.0;  // one cell: the lens centre
  directions.push_back(cell);
  directions.push_back(test::bump(grid, 15.0, 20.0, 30.0));
  for (std::size_t k = 0; k < directions.size(); ++k) {
    const std::vector<double>& dv = directions[k];
    double directional = 0;
    for (int iz = 0; iz < grid.nz; ++iz)
      for (int ix = 0; ix < grid.nx; ++ix)
        directional += g.gradient(iz, ix) * dv[std::size_t(iz) * grid.nx + ix];
    const double eps = 1.0;  // m/s
    ForwardProblem plus = p, minus = p;
    for (std::size_t i = 0; i < dv.size(); ++i) {
      plus.model.vp[i] += eps * dv[i];
      minus.model.vp[i] -= eps * dv[i];
    }
    const double fd =
        (misfit_of(kind, plus, observed) - misfit_of(kind, minus, observed)) / (2 * eps);
    const double err = std::abs(fd - directional) / std::abs(fd);
    std::printf("%s, direction %zu: fd %.10g, adjoint %.10g, relative error %.2g\n",
                misfit::name(kind), k, fd, directional, err);
    EXPECT_LT(err, 1e-5) << misfit::name(kind) << " direction " << k;
  }
}

TEST(MisfitGradient, TraceNormalizedL2MatchesFiniteDifferences) {
  expect_gradient_matches_fd(Misfit::trace_normalized_l2);
}
TEST(MisfitGradient, NormalizedCorrelationMatchesFiniteDifferences) {
  expect_gradient_matches_fd(Misfit::normalized_correlation);
}
TEST(MisfitGradient, EnvelopeMatchesFiniteDifferences) {
  expect_gradient_matches_fd(Misfit::envelope);
}

// As for l2, the result does not depend on how the shots are chunked (the envelope's scratch is
// per receiver of one shot and reused): shot_batch 1 gives the bits of all shots at once.
TEST(MisfitGradient, ShotBatchGivesTheSameBits) {
  const ForwardProblem truth = small_problem();
  const HostArray3<double> observed = forward_model<double>(truth);
  ForwardProblem p = truth;
  for (double& v : p.model.vp) v = 0.97 * v + 40.0;
  for (Misfit kind : misfit::all()) {
    const auto all = misfit_gradient<double>(p, observed, Storage::boundary, {},
                                             parallel::Communicator::self(), kind);
    ForwardProblem one_by_one = p;
    one_by_one.shot_batch = 1;
    const auto chunked = misfit_gradient<double>(one_by_one, observed, Storage::boundary, {},
                                                 parallel::Communicator::self(), kind);
    EXPECT_EQ(all.misfit, chunked.misfit) << misfit::name(kind);
    for (std::size_t i = 0; i < all.gradient.size(); ++i)
      ASSERT_EQ(all.gradient.data()[i], chunked.gradient.data()[i]) << misfit::name(kind);
  }
}

}  // namespace
}  // namespace pwave
