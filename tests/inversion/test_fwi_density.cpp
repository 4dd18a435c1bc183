// FWI with the variable-density equation: a density anomaly recovered with the velocity known,
// and velocity and density inverted together; outputs per parameter; bitwise resume.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "pwave/core/error.hpp"
#include "pwave/inversion/fwi.hpp"
#include "pwave/io/fwi_files.hpp"
#include "pwave/io/npy.hpp"
#include "pwave/propagation/forward.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

constexpr int nz = 41, nx = 81;
constexpr double h = 10.0, v0 = 2000.0, rho0 = 2000.0;

struct Disc {
  double z, x, radius;
  bool contains(int iz, int ix) const { return std::hypot(iz * h - z, ix * h - x) < radius; }
};
constexpr Disc rho_disc{200.0, 300.0, 70.0}, vp_disc{200.0, 550.0, 70.0};

// The true model: +400 kg/m^3 in rho_disc and, with `vp_anomaly`, +250 m/s in vp_disc.
Model true_model(bool vp_anomaly) {
  Model m = constant_model(Grid{nz, nx, h, h}, v0);
  m.rho.assign(m.vp.size(), rho0);
  for (int iz = 0; iz < nz; ++iz)
    for (int ix = 0; ix < nx; ++ix) {
      const std::size_t i = std::size_t(iz) * nx + ix;
      if (rho_disc.contains(iz, ix)) m.rho[i] = rho0 + 400.0;
      if (vp_anomaly && vp_disc.contains(iz, ix)) m.vp[i] = v0 + 250.0;
    }
  return m;
}

// Sources along the top, receivers along the top and the bottom (as tests/inversion/test_fwi).
FwiConfig density_config() {
  FwiConfig c;
  c.problem = test::homogeneous_problem(nz, nx, h, v0, 0.001, 450, 15.0, 4, 15);
  c.problem.equation = physics::Equation::acoustic_variable_density;
  c.problem.model.rho.assign(c.problem.model.vp.size(), rho0);
  c.problem.shots = test::shots_over_two_receiver_lines({100.0, 250.0, 400.0, 550.0, 700.0}, 20.0,
                                                        40.0, 800.0, 10.0, 390.0);
  c.stages = {StageConfig{20, 0.0}};
  c.optimizer.type = "adam";
  c.optimizer.learning_rate = 20.0;
  c.vmin = 1500.0, c.vmax = 3000.0;
  c.rho_min = 1000.0, c.rho_max = 3000.0;
  c.output_every = 10;
  return c;
}

// L2 distance to the truth over the cells of `disc`.
double error_in(const std::vector<double>& m, const std::vector<double>& truth, const Disc& disc) {
  double e = 0;
  for (int iz = 0; iz < nz; ++iz)
    for (int ix = 0; ix < nx; ++ix)
      if (disc.contains(iz, ix))
        e += std::pow(m[std::size_t(iz) * nx + ix] - truth[std::size_t(iz) * nx + ix], 2);
  return std::sqrt(e);
}

// The data of the config's acquisition modelled in `truth`.
HostArray3<double> observed_in(const FwiConfig& c, const Model& truth) {
  ForwardProblem p = c.problem;
  p.model = truth;
  return forward_model<double>(p);
}

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::path(PWAVE_BINARY_DIR) / "test-scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Measured 2026-11-25 (float64, Adam, 20 iterations): density error in the anomaly x0.64, misfit
// x0.095.
TEST(FwiDensity, RecoversADensityAnomalyWithTheVelocityKnown) {
  const std::string dir = scratch("fwi_density_rho");
  FwiConfig c = density_config();
  c.parameters = {physics::Parameter::rho};
  const Model truth = true_model(false);
  const auto observed = observed_in(c, truth);
  io::FwiFiles<double> files(dir, false);
  const FwiResult r = run_fwi<double>(c, observed, files);
  const double e0 = error_in(c.problem.model.rho, truth.rho, rho_disc);
  const double e1 = error_in(r.model.rho, truth.rho, rho_disc);
  ::testing::Test::RecordProperty("rho_error_ratio", std::to_string(e1 / e0));
  ::testing::Test::RecordProperty("misfit_ratio",
                                  std::to_string(r.misfits.back() / r.misfits.front()));
  EXPECT_LT(e1, 0.7 * e0);
  EXPECT_LT(r.misfits.back(), 0.15 * r.misfits.front());
  EXPECT_EQ(r.model.vp, c.problem.model.vp) << "vp is not inverted: it must not move";
  // The density's files carry its name; a density-only inversion writes no vp model.
  EXPECT_EQ(io::read_npy(dir + "/model_rho_final.npy").shape, (std::vector<std::size_t>{nz, nx}));
  EXPECT_TRUE(std::filesystem::exists(dir + "/model_rho_0010.npy"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/gradient_rho_0010.npy"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/model_final.npy"));
  const auto final_rho = io::read_npy(dir + "/model_rho_final.npy");
  for (std::size_t i = 0; i < final_rho.data.size(); ++i) {
    ASSERT_NEAR(final_rho.data[i], r.model.rho[i], 1e-9);
    ASSERT_GE(final_rho.data[i], c.rho_min);
    ASSERT_LE(final_rho.data[i], c.rho_max);
  }
}

// Measured 2026-11-25: vp error in its anomaly x0.60, density error in its own x0.72, misfit
// x0.050.
TEST(FwiDensity, InvertsVelocityAndDensityTogether) {
  const std::string dir = scratch("fwi_density_joint");
  FwiConfig c = density_config();
  c.parameters = {physics::Parameter::vp, physics::Parameter::rho};
  const Model truth = true_model(true);
  const auto observed = observed_in(c, truth);
  io::FwiFiles<double> files(dir, false);
  const FwiResult r = run_fwi<double>(c, observed, files);
  const double ev0 = error_in(c.problem.model.vp, truth.vp, vp_disc);
  const double ev1 = error_in(r.model.vp, truth.vp, vp_disc);
  const double er0 = error_in(c.problem.model.rho, truth.rho, rho_disc);
  const double er1 = error_in(r.model.rho, truth.rho, rho_disc);
  ::testing::Test::RecordProperty("vp_error_ratio", std::to_string(ev1 / ev0));
  ::testing::Test::RecordProperty("rho_error_ratio", std::to_string(er1 / er0));
  ::testing::Test::RecordProperty("misfit_ratio",
                                  std::to_string(r.misfits.back() / r.misfits.front()));
  EXPECT_LT(ev1, 0.7 * ev0);
  EXPECT_LT(er1, 0.8 * er0);
  EXPECT_LT(r.misfits.back(), 0.1 * r.misfits.front());
  for (const char* f : {"model_final.npy", "model_rho_final.npy", "model_0010.npy",
                        "model_rho_0010.npy", "gradient_0010.npy", "gradient_rho_0010.npy"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
  }
}

TEST(FwiDensity, ResumeReachesTheSameModels) {
  FwiConfig c = density_config();
  c.parameters = {physics::Parameter::vp, physics::Parameter::rho};
  c.stages = {StageConfig{4, 0.0}};
  c.optimizer.type = "lbfgs";
  const Model truth = true_model(true);
  const auto observed = observed_in(c, truth);
  const FwiResult straight = run_fwi<double>(c, observed);
  FwiConfig part = c;
  const std::string dir = scratch("fwi_density_resumed");
  part.stop_after = 2;
  io::FwiFiles<double> killed(dir, false);
  run_fwi<double>(part, observed, killed);
  part.stop_after = 0;
  io::FwiFiles<double> resuming(dir, true);
  const FwiResult resumed = run_fwi<double>(part, observed, resuming);
  EXPECT_EQ(straight.model.vp, resumed.model.vp);
  EXPECT_EQ(straight.model.rho, resumed.model.rho);
}

TEST(FwiDensity, DensityNeedsTheVariableDensityEquation) {
  FwiConfig c = density_config();
  c.problem.equation = physics::Equation::acoustic;
  c.problem.model.rho.clear();
  c.parameters = {physics::Parameter::rho};
  const auto observed = observed_in(c, c.problem.model);
  try {
    run_fwi<double>(c, observed);
    ADD_FAILURE() << "inverting rho with the constant-density equation was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "inversion.parameters");
    EXPECT_NE(std::string(e.what()).find("the equation acoustic has no rho"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pwave
