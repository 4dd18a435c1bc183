// The inversion does not depend on the number of ranks: the final model and the misfit
// history with N ranks are bitwise those of one rank (per-shot results summed in batch order).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "parallel_test_env.hpp"
#include "pwave/acquisition/wavelet.hpp"
#include "pwave/inversion/fwi.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/gradient.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

FwiConfig rank_test_config(const std::string& optimizer) {
  FwiConfig c;
  c.problem = test::homogeneous_problem(31, 51, 10.0, 2000.0, 0.001, 300, 15.0, 4, 10);
  for (double xs : {50.0, 150.0, 250.0, 350.0, 450.0}) {
    ShotGeometry s;
    s.source = {xs, 20.0};
    for (double xr = 0; xr <= 500.0; xr += 50.0) s.receivers.push_back({xr, 10.0});
    c.problem.shots.push_back(s);
  }
  c.stages = {StageConfig{2, 10.0}, StageConfig{2, 0.0}};
  c.batch_size = 4;  // 4 shots over 1, 2 or 3 ranks: even and uneven splits
  c.seed = 5;
  c.optimizer.type = optimizer;
  c.optimizer.learning_rate = 10.0;
  c.vmin = 1500.0, c.vmax = 3000.0;
  return c;
}

Model anomaly_model(const FwiConfig& c) {
  Model m = c.problem.model;
  for (int iz = 0; iz < m.grid.nz; ++iz)
    for (int ix = 0; ix < m.grid.nx; ++ix)
      if (std::hypot(iz - 15.0, ix - 25.0) < 6) m.vp[std::size_t(iz) * m.grid.nx + ix] = 2300.0;
  return m;
}

void rank_invariance(const std::string& optimizer, int batch_size = 4) {
  const auto& world = parallel::test_env::world();
  FwiConfig c = rank_test_config(optimizer);
  c.batch_size = batch_size;
  ForwardProblem truth = c.problem;
  truth.model = anomaly_model(c);
  const auto observed = forward_model<float>(truth);

  const FwiResult many = run_fwi<float>(c, observed, world);
  const FwiResult one = run_fwi<float>(c, observed, parallel::Communicator::self());

  ASSERT_EQ(many.model.vp.size(), one.model.vp.size());
  EXPECT_EQ(0, std::memcmp(many.model.vp.data(), one.model.vp.data(),
                           one.model.vp.size() * sizeof(double)))
      << world.size() << " ranks differ from one rank";
  ASSERT_EQ(many.misfits.size(), one.misfits.size());
  for (std::size_t i = 0; i < one.misfits.size(); ++i) {
    EXPECT_EQ(many.misfits[i], one.misfits[i]) << "iteration " << i + 1;
  }
  // The model moved: the comparison is not between two untouched initial models.
  double change = 0;
  for (std::size_t i = 0; i < one.model.vp.size(); ++i)
    change = std::max(change, std::abs(one.model.vp[i] - c.problem.model.vp[i]));
  EXPECT_GT(change, 1.0);
}

// A rank propagating its share one shot at a time (execution.shot_batch 1) gives bitwise the
// inversion of one launch per share, on any number of ranks.
TEST(FwiRanks, ShotBatchDoesNotChangeTheInversion) {
  const auto& world = parallel::test_env::world();
  FwiConfig c = rank_test_config("adam");
  ForwardProblem truth = c.problem;
  truth.model = anomaly_model(c);
  const auto observed = forward_model<float>(truth);
  const FwiResult whole = run_fwi<float>(c, observed, world);
  for (int shot_batch : {1, 3}) {
    FwiConfig chunked = c;
    chunked.problem.shot_batch = shot_batch;
    const FwiResult r = run_fwi<float>(chunked, observed, world);
    EXPECT_EQ(0, std::memcmp(r.model.vp.data(), whole.model.vp.data(),
                             whole.model.vp.size() * sizeof(double)))
        << "shot_batch " << shot_batch << " on " << world.size() << " ranks";
    ASSERT_EQ(r.misfits.size(), whole.misfits.size());
    for (std::size_t i = 0; i < r.misfits.size(); ++i) {
      EXPECT_EQ(r.misfits[i], whole.misfits[i])
          << "shot_batch " << shot_batch << ", iteration " << i + 1;
    }
  }
}

// The gradient task too: misfit, gradient and synthetic traces do not depend on shot_batch.
TEST(FwiRanks, ShotBatchDoesNotChangeTheGradient) {
  const auto& world = parallel::test_env::world();
  FwiConfig c = rank_test_config("adam");
  ForwardProblem truth = c.problem;
  truth.model = anomaly_model(c);
  const auto observed = forward_model<float>(truth);
  const GradientResult<float> whole =
      misfit_gradient<float>(c.problem, observed, Storage::boundary, {}, world);
  EXPECT_GT(whole.misfit, 0.0);
  for (int shot_batch : {1, 2}) {
    ForwardProblem p = c.problem;
    p.shot_batch = shot_batch;
    const GradientResult<float> g =
        misfit_gradient<float>(p, observed, Storage::boundary, {}, world);
    EXPECT_EQ(g.misfit, whole.misfit) << "shot_batch " << shot_batch;
    EXPECT_EQ(0, std::memcmp(g.gradient.data(), whole.gradient.data(),
                             whole.gradient.size() * sizeof(float)))
        << "shot_batch " << shot_batch << " on " << world.size() << " ranks";
    EXPECT_EQ(0, std::memcmp(g.synthetic.data(), whole.synthetic.data(),
                             whole.synthetic.size() * sizeof(float)))
        << "shot_batch " << shot_batch;
  }
}

// Rank 0 alone reports (it is the one that writes); every rank is asked for a resume point.
TEST(FwiRanks, OnlyRankZeroReportsToItsObserver) {
  struct Counts : FwiObserver {
    int resume = 0, starts = 0, iterations = 0, snapshots = 0, checkpoints = 0, finishes = 0;
    std::optional<ResumePoint> resume_point() override {
      ++resume;
      return std::nullopt;
    }
    void started(const std::vector<HistoryRow>&) override { ++starts; }
    void iteration_done(const std::vector<HistoryRow>&) override { ++iterations; }
    void snapshot(long, const Grid&, const std::vector<ParameterSnapshot>&) override {
      ++snapshots;
    }
    void checkpoint(const FwiState&) override { ++checkpoints; }
    void finished(const Model&, const std::vector<physics::Parameter>&) override { ++finishes; }
  };
  const auto& world = parallel::test_env::world();
  FwiConfig c = rank_test_config("adam");
  c.output_every = 2;
  c.checkpoint_every = 2;
  ForwardProblem truth = c.problem;
  truth.model = anomaly_model(c);
  const auto observed = forward_model<float>(truth);
  Counts counts;
  run_fwi<float>(c, observed, counts, world);
  const bool root = world.is_root();
  EXPECT_EQ(counts.resume, 1);
  EXPECT_EQ(counts.starts, root ? 1 : 0);
  EXPECT_EQ(counts.iterations, root ? 4 : 0);
  EXPECT_EQ(counts.snapshots, root ? 2 : 0);
  EXPECT_EQ(counts.checkpoints, root ? 2 : 0);
  EXPECT_EQ(counts.finishes, root ? 1 : 0);
}

TEST(FwiRanks, AdamIsBitwiseIndependentOfTheRankCount) {
  rank_invariance("adam");
}
TEST(FwiRanks, LbfgsIsBitwiseIndependentOfTheRankCount) {
  rank_invariance("lbfgs");
}
// Fewer shots per iteration than ranks: a rank without shots must still take the same step
// (it once kept the previous model in its propagator, and with it its own gradient).
TEST(FwiRanks, RanksWithoutShotsTakeTheSameStep) {
  rank_invariance("adam", 2);
}

// Source wavelet estimation: the per-shot spectra are summed in batch order over the ranks, so
// the estimated wavelets, the misfits and the model are bitwise those of one rank, estimating
// every iteration (from each minibatch, in a low-passed stage and an unfiltered one) or once per
// stage (from every shot, with a rank holding shots of two chunks: shot_batch 1).
TEST(FwiRanks, WaveletEstimationIsBitwiseIndependentOfTheRankCount) {
  const auto& world = parallel::test_env::world();
  FwiConfig c = rank_test_config("adam");
  c.wavelet_estimation.enabled = true;
  ForwardProblem truth = c.problem;
  truth.model = anomaly_model(c);
  truth.wavelet = ricker(12.0, 0.1, c.problem.dt, c.problem.nt, 2.5);
  const auto observed = forward_model<float>(truth);
  for (const auto every : {WaveletEstimation::Every::iteration, WaveletEstimation::Every::stage}) {
    c.wavelet_estimation.every = every;
    c.problem.shot_batch = every == WaveletEstimation::Every::stage ? 1 : 0;
    const FwiResult many = run_fwi<float>(c, observed, world);
    const FwiResult one = run_fwi<float>(c, observed, parallel::Communicator::self());
    EXPECT_EQ(many.wavelet, one.wavelet) << world.size() << " ranks, every " << name(every);
    EXPECT_NE(one.wavelet, c.problem.wavelet);
    EXPECT_EQ(many.misfits, one.misfits) << world.size() << " ranks, every " << name(every);
    EXPECT_EQ(0, std::memcmp(many.model.vp.data(), one.model.vp.data(),
                             one.model.vp.size() * sizeof(double)))
        << world.size() << " ranks differ from one rank, every " << name(every);
  }
}

// Per-shot estimation: each shot's wavelet is estimated by the rank that models it and gathered
// to every rank, so every shot's wavelet, the misfits and the model are bitwise those of one
// rank (the data of each shot made with its own wavelet).
TEST(FwiRanks, PerShotWaveletEstimationIsBitwiseIndependentOfTheRankCount) {
  const auto& world = parallel::test_env::world();
  FwiConfig c = rank_test_config("adam");
  c.wavelet_estimation.enabled = true;
  c.wavelet_estimation.per_shot = true;
  ForwardProblem truth = c.problem;
  truth.model = anomaly_model(c);
  for (std::size_t s = 0; s < c.problem.shots.size(); ++s) {
    truth.shot_wavelets.push_back(ricker(10.0 + 2.0 * double(s), 0.09 + 0.005 * double(s),
                                         c.problem.dt, c.problem.nt, 1.5 + 0.5 * double(s)));
  }
  const auto observed = forward_model<float>(truth);
  for (const auto every : {WaveletEstimation::Every::iteration, WaveletEstimation::Every::stage}) {
    c.wavelet_estimation.every = every;
    c.problem.shot_batch = every == WaveletEstimation::Every::stage ? 1 : 0;
    const FwiResult many = run_fwi<float>(c, observed, world);
    const FwiResult one = run_fwi<float>(c, observed, parallel::Communicator::self());
    ASSERT_EQ(one.shot_wavelets.size(), c.problem.shots.size());
    EXPECT_TRUE(one.wavelet.empty());
    EXPECT_EQ(many.shot_wavelets, one.shot_wavelets)
        << world.size() << " ranks, every " << name(every);
    for (const std::vector<double>& w : one.shot_wavelets) EXPECT_NE(w, c.problem.wavelet);
    EXPECT_NE(one.shot_wavelets[0], one.shot_wavelets[1]);
    EXPECT_EQ(many.misfits, one.misfits) << world.size() << " ranks, every " << name(every);
    EXPECT_EQ(0, std::memcmp(many.model.vp.data(), one.model.vp.data(),
                             one.model.vp.size() * sizeof(double)))
        << world.size() << " ranks differ from one rank, every " << name(every);
  }
}

// The elastic equation (vs and rho inverted, vx and vz receivers, checkpointed gradients) is
// bitwise the same on any number of ranks too.
TEST(FwiRanks, ElasticIsBitwiseIndependentOfTheRankCount) {
  const auto& world = parallel::test_env::world();
  FwiConfig c = rank_test_config("adam");
  c.problem.nt = 200;
  c.problem.wavelet = ricker(15.0, 1.5 / 15.0, c.problem.dt, c.problem.nt);
  for (double& w : c.problem.wavelet) w *= 1e10;  // a force far above Adam's epsilon
  c.problem.equation = physics::Equation::elastic;
  c.problem.source_type = SourceType::force_z;
  c.problem.model.vs.assign(c.problem.model.vp.size(), 1100.0);
  c.problem.model.rho.assign(c.problem.model.vp.size(), 2000.0);
  c.problem.boundary.pml_velocity = 2300.0;
  for (ShotGeometry& shot : c.problem.shots) {
    const std::size_t n = shot.receivers.size();
    shot.receivers.insert(shot.receivers.end(), shot.receivers.begin(), shot.receivers.end());
    shot.components.assign(n, Component::vx);
    shot.components.resize(2 * n, Component::vz);
  }
  c.storage = StorageOptions(Storage::checkpoint);
  c.parameters = {physics::Parameter::vs, physics::Parameter::rho};
  c.vs_min = 500.0, c.vs_max = 1700.0, c.rho_min = 1500.0, c.rho_max = 2500.0;
  c.stages = {StageConfig{2, 0.0}};
  ForwardProblem truth = c.problem;
  for (std::size_t i = 0; i < truth.model.vs.size(); ++i)
    truth.model.vs[i] = anomaly_model(c).vp[i] > 2000.0 ? 1250.0 : 1100.0;
  const auto observed = forward_model<float>(truth);
  const FwiResult many = run_fwi<float>(c, observed, world);
  const FwiResult one = run_fwi<float>(c, observed, parallel::Communicator::self());
  EXPECT_EQ(0, std::memcmp(many.model.vs.data(), one.model.vs.data(),
                           one.model.vs.size() * sizeof(double)))
      << world.size() << " ranks differ from one rank";
  EXPECT_EQ(0, std::memcmp(many.model.rho.data(), one.model.rho.data(),
                           one.model.rho.size() * sizeof(double)));
  EXPECT_EQ(many.misfits, one.misfits);
  double change = 0;
  for (std::size_t i = 0; i < one.model.vs.size(); ++i)
    change = std::max(change, std::abs(one.model.vs[i] - c.problem.model.vs[i]));
  EXPECT_GT(change, 1.0);
}

}  // namespace
}  // namespace pwave
