// Shots with their own receivers, in different numbers (streamers, land spreads): one launch
// propagates them all; each shot's traces are those of the shot run alone with its receivers,
// rows past its last receiver are zero and no misfit sees them.

#include <gtest/gtest.h>

#include <cmath>

#include "pwave/core/error.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/gradient.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

/// Three shots of the lens model: 6 receivers (two of them between grid points), 2, and 4 that
/// trail the source as a streamer would.
ForwardProblem ragged_problem() {
  ForwardProblem p = test::lens_problem({});
  p.shots = {
      ShotGeometry{{100.0, 30.0},
                   {{50.0, 10.0},
                    {123.4, 10.0},
                    {200.0, 10.0},
                    {300.0, 17.5},
                    {400.0, 10.0},
                    {500.0, 10.0}}},
      ShotGeometry{{450.0, 40.0}, {{20.0, 300.0}, {310.0, 380.0}}},
      ShotGeometry{{300.0, 30.0}, {{250.0, 12.0}, {200.0, 12.0}, {150.0, 12.0}, {100.0, 12.0}}}};
  return p;
}

TEST(PerShotReceivers, EachShotRecordsItsOwnReceiversAsIfRunAlone) {
  const ForwardProblem p = ragged_problem();
  const HostArray3<double> all = forward_model<double>(p);
  ASSERT_EQ(all.extent(1), 6u);  // the widest shot
  for (std::size_t s = 0; s < p.shots.size(); ++s) {
    ForwardProblem one = p;
    one.shots = {p.shots[s]};
    const HostArray3<double> alone = forward_model<double>(one);
    const std::size_t n_rec = p.shots[s].receivers.size();
    for (std::size_t r = 0; r < all.extent(1); ++r) {
      double peak = 0.0;
      for (int n = 0; n < p.nt; ++n) {
        // Bitwise: a shot's arithmetic does not depend on the others in its launch.
        if (r < n_rec) ASSERT_EQ(all(s, r, n), alone(0, r, n)) << s << " " << r << " " << n;
        peak = std::max(peak, std::abs(all(s, r, n)));
      }
      if (r < n_rec) {
        EXPECT_GT(peak, 0.0) << s << " " << r;
      } else {
        EXPECT_EQ(peak, 0.0) << "padding row " << r << " of shot " << s;
      }
    }
  }
}

// The misfit and gradient of ragged shots are the sums of each shot's alone, for misfits that
// would be undefined on a zero trace (normalized correlation) as well: padding is not data.
void expect_gradient_is_sum_of_shots(misfit::Misfit function) {
  const ForwardProblem p = ragged_problem();
  ForwardProblem truth = p;
  for (std::size_t i = 0; i < truth.model.vp.size(); ++i) truth.model.vp[i] *= 1.03;
  const HostArray3<double> observed = forward_model<double>(truth);
  const GradientResult<double> all = misfit_gradient<double>(
      p, observed, Storage::full, {}, parallel::Communicator::self(), function);
  EXPECT_EQ(all.dead_traces, 0);  // padding rows are not dead traces
  double misfit = 0.0;
  std::vector<double> sum(all.gradient.size(), 0.0);
  for (std::size_t s = 0; s < p.shots.size(); ++s) {
    ForwardProblem one = p;
    one.shots = {p.shots[s]};
    const std::size_t n_rec = p.shots[s].receivers.size();
    HostArray3<double> obs("obs", 1, n_rec, std::size_t(p.nt));
    for (std::size_t r = 0; r < n_rec; ++r)
      for (int n = 0; n < p.nt; ++n) obs(0, r, n) = observed(s, r, n);
    const GradientResult<double> g = misfit_gradient<double>(
        one, obs, Storage::full, {}, parallel::Communicator::self(), function);
    misfit += g.misfit;
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += g.gradient.data()[i];
  }
  ASSERT_GT(misfit, 0.0);
  EXPECT_NEAR(all.misfit, misfit, 1e-13 * misfit);
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < sum.size(); ++i) {
    diff += std::pow(all.gradient.data()[i] - sum[i], 2);
    norm += sum[i] * sum[i];
  }
  ASSERT_GT(norm, 0.0);
  EXPECT_LT(std::sqrt(diff / norm), 1e-13);
}

TEST(PerShotReceivers, GradientIsTheSumOfEachShotsL2) {
  expect_gradient_is_sum_of_shots(misfit::Misfit::l2);
}

TEST(PerShotReceivers, GradientIsTheSumOfEachShotsNormalizedCorrelation) {
  expect_gradient_is_sum_of_shots(misfit::Misfit::normalized_correlation);
}

TEST(PerShotReceivers, AShotWithoutReceiversIsRefused) {
  ForwardProblem p = ragged_problem();
  p.shots[1].receivers.clear();
  try {
    validate(p);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "acquisition.receivers");
    EXPECT_NE(std::string(e.what()).find("shot 1 has no receivers"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pwave
