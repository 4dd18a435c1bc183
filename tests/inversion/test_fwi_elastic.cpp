// FWI with the elastic equation: vp and vs anomalies recovered together from two-component
// data (vx and vz of vertical forces), through the same FWI loop, optimiser, bounds and files
// as the acoustic equations, with the checkpointed elastic gradient.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "pwave/inversion/fwi.hpp"
#include "pwave/io/fwi_files.hpp"
#include "pwave/io/npy.hpp"
#include "pwave/propagation/forward.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

constexpr int nz = 41, nx = 81;
constexpr double h = 10.0, vp0 = 2000.0, vs0 = 1100.0, rho0 = 2000.0;

struct Disc {
  double z, x, radius;
  bool contains(int iz, int ix) const { return std::hypot(iz * h - z, ix * h - x) < radius; }
};
constexpr Disc vs_disc{200.0, 280.0, 70.0}, vp_disc{200.0, 560.0, 70.0};

// The true model: +200 m/s of vs in vs_disc, +250 m/s of vp in vp_disc.
Model true_model() {
  Model m = constant_model(Grid{nz, nx, h, h}, vp0);
  m.vs.assign(m.vp.size(), vs0);
  m.rho.assign(m.vp.size(), rho0);
  for (int iz = 0; iz < nz; ++iz)
    for (int ix = 0; ix < nx; ++ix) {
      const std::size_t i = std::size_t(iz) * nx + ix;
      if (vs_disc.contains(iz, ix)) m.vs[i] = vs0 + 200.0;
      if (vp_disc.contains(iz, ix)) m.vp[i] = vp0 + 250.0;
    }
  return m;
}

// Vertical forces along the top, vx and vz receivers along the top and the bottom.
FwiConfig elastic_config() {
  FwiConfig c;
  c.problem = test::homogeneous_problem(nz, nx, h, vp0, 0.001, 450, 15.0, 4, 15);
  c.problem.equation = physics::Equation::elastic;
  c.problem.model.vs.assign(c.problem.model.vp.size(), vs0);
  c.problem.model.rho.assign(c.problem.model.vp.size(), rho0);
  c.problem.source_type = SourceType::force_z;
  // A force of 1e10 N: velocities (and the misfit's gradient) far above Adam's epsilon.
  for (double& w : c.problem.wavelet) w *= 1e10;
  c.problem.boundary.pml_velocity = 2300.0;
  c.problem.shots = test::shots_over_two_receiver_lines({100.0, 300.0, 500.0, 700.0}, 20.0, 40.0,
                                                        800.0, 10.0, 390.0);
  for (ShotGeometry& shot : c.problem.shots) {  // each receiver's vx, then each one's vz
    const std::vector<Position> positions = shot.receivers;
    shot.receivers.insert(shot.receivers.end(), positions.begin(), positions.end());
    shot.components.assign(positions.size(), Component::vx);
    shot.components.resize(shot.receivers.size(), Component::vz);
  }
  c.storage = StorageOptions(Storage::checkpoint);
  c.stages = {StageConfig{12, 0.0}};
  c.optimizer.type = "adam";
  c.optimizer.learning_rate = 15.0;
  c.vmin = 1500.0, c.vmax = 3000.0;
  c.vs_min = 500.0, c.vs_max = 1700.0;
  c.output_every = 6;
  return c;
}

double error_in(const std::vector<double>& m, const std::vector<double>& truth, const Disc& disc) {
  double e = 0;
  for (int iz = 0; iz < nz; ++iz)
    for (int ix = 0; ix < nx; ++ix)
      if (disc.contains(iz, ix))
        e += std::pow(m[std::size_t(iz) * nx + ix] - truth[std::size_t(iz) * nx + ix], 2);
  return std::sqrt(e);
}

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::path(PWAVE_BINARY_DIR) / "test-scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

/// run_fwi of `c` on the data of `truth`, its files in `dir`.
FwiResult invert(const FwiConfig& c, const Model& truth, const std::string& dir) {
  ForwardProblem p = c.problem;
  p.model = truth;
  const auto observed = forward_model<double>(p);
  io::FwiFiles<double> files(dir, false);
  return run_fwi<double>(c, observed, files);
}

TEST(FwiElastic, RecoversVelocityAndShearVelocityAnomalies) {
  const std::string dir = scratch("fwi_elastic");
  FwiConfig c = elastic_config();
  c.parameters = {physics::Parameter::vp, physics::Parameter::vs};
  const Model truth = true_model();
  const FwiResult r = invert(c, truth, dir);
  const double ev0 = error_in(c.problem.model.vp, truth.vp, vp_disc);
  const double ev1 = error_in(r.model.vp, truth.vp, vp_disc);
  const double es0 = error_in(c.problem.model.vs, truth.vs, vs_disc);
  const double es1 = error_in(r.model.vs, truth.vs, vs_disc);
  const double misfit = r.misfits.back() / r.misfits.front();
  std::printf("elastic FWI, 12 iterations: vp error x%.2f, vs error x%.2f, misfit x%.3f\n",
              ev1 / ev0, es1 / es0, misfit);
  // Measured 2026-11-26 (float64, Adam, 12 iterations): vp x0.65, vs x0.52, misfit x0.186.
  EXPECT_LT(es1, 0.62 * es0);
  EXPECT_LT(ev1, 0.78 * ev0);
  EXPECT_LT(misfit, 0.24);
  EXPECT_EQ(r.model.rho, c.problem.model.rho) << "rho is not inverted: it must not move";
  for (const char* f : {"model_final.npy", "model_vs_final.npy", "model_vs_0006.npy",
                        "gradient_vs_0006.npy", "gradient_0006.npy"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
  }
  const auto final_vs = io::read_npy(dir + "/model_vs_final.npy");
  ASSERT_EQ(final_vs.shape, (std::vector<std::size_t>{nz, nx}));
  for (std::size_t i = 0; i < final_vs.data.size(); ++i) {
    ASSERT_NEAR(final_vs.data[i], r.model.vs[i], 1e-9);
    ASSERT_GE(final_vs.data[i], c.vs_min);
    ASSERT_LE(final_vs.data[i], c.vs_max);
  }
}

// A land survey: a free surface at z = 0 (no CPML on top), vertical forces 20 m below it and
// vx, vz receivers on the surface only, so that the data are dominated by the ground roll the
// surface makes; a shallow vs anomaly recovered through the surface's adjoint. With `boundary`
// storage (the other test keeps checkpoints): the surface's images and mirror rebuilt as the
// state runs backwards.
TEST(FwiElastic, RecoversAShearVelocityAnomalyUnderAFreeSurface) {
  const std::string dir = scratch("fwi_elastic_land");
  constexpr Disc shallow{60.0, 400.0, 50.0};
  FwiConfig c = elastic_config();
  c.problem.boundary.free_surface = true;
  c.problem.boundary.width[0] = 0;
  c.problem.shots = test::shots_over_two_receiver_lines({100.0, 300.0, 500.0, 700.0}, 20.0, 20.0,
                                                        800.0, 0.0, 0.0);
  for (ShotGeometry& shot : c.problem.shots) {  // one surface line: each receiver's vx, then vz
    std::vector<Position> line;
    for (std::size_t k = 0; k < shot.receivers.size(); k += 2) line.push_back(shot.receivers[k]);
    shot.receivers = line;
    shot.receivers.insert(shot.receivers.end(), line.begin(), line.end());
    shot.components.assign(line.size(), Component::vx);
    shot.components.resize(shot.receivers.size(), Component::vz);
  }
  c.parameters = {physics::Parameter::vs};
  c.optimizer.learning_rate = 25.0;
  c.storage = StorageOptions(Storage::boundary);
  Model truth = c.problem.model;
  for (int iz = 0; iz < nz; ++iz)
    for (int ix = 0; ix < nx; ++ix)
      if (shallow.contains(iz, ix)) truth.vs[std::size_t(iz) * nx + ix] = vs0 + 200.0;
  const FwiResult r = invert(c, truth, dir);
  const double es0 = error_in(c.problem.model.vs, truth.vs, shallow);
  const double es1 = error_in(r.model.vs, truth.vs, shallow);
  const double misfit = r.misfits.back() / r.misfits.front();
  std::printf("elastic FWI under a free surface, 12 iterations: vs error x%.2f, misfit x%.3f\n",
              es1 / es0, misfit);
  // Measured 2026-11-27 (float64, Adam at 25 m/s, 12 iterations): vs x0.53, misfit x0.214.
  EXPECT_LT(es1, 0.62 * es0);
  EXPECT_LT(misfit, 0.26);
  EXPECT_EQ(r.model.vp, c.problem.model.vp) << "vp is not inverted: it must not move";
}

}  // namespace
}  // namespace pwave
