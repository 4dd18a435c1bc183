// Per-shot source wavelets (ForwardProblem::shot_wavelets): a batch of shots with their own
// wavelets records each shot's traces bitwise as that shot alone with its wavelet (both
// equations, 2D and 3D, one launch or several); identical rows are bitwise the shared wavelet
// (traces and gradients); the adjoint stays exact (dot-product test, dJ/ds per shot) and the
// gradient's imaging terms use each shot's wavelet; bad tables are refused.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "pwave/acquisition/wavelet.hpp"
#include "pwave/core/error.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/gradient.hpp"
#include "support/adjoint_checks.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

// A lens model, three shots and three receivers near a free surface, order 4, 2D or 3D; for
// acoustic_variable_density a density lens as well.
ForwardProblem three_shot_problem(physics::Equation equation, bool three_d) {
  ForwardProblem p =
      three_d ? test::homogeneous_problem_3d(30, 24, 40, 10.0, 2000.0, 0.001, 260, 15.0, 4, 8)
              : test::homogeneous_problem(50, 80, 10.0, 2000.0, 0.001, 400, 15.0, 4, 12);
  p.equation = equation;
  p.boundary.free_surface = true;
  p.boundary.width[top] = 0;
  const Grid& g = p.model.grid;
  if (equation == physics::Equation::acoustic_variable_density) {
    p.model.rho.assign(p.model.vp.size(), 1000.0);
  }
  for (int iz = 0; iz < g.nz; ++iz)
    for (int iy = 0; iy < g.ny; ++iy)
      for (int ix = 0; ix < g.nx; ++ix) {
        const double r2 = std::pow(iz - 0.6 * g.nz, 2) + std::pow(ix - 0.5 * g.nx, 2) +
                          (three_d ? std::pow(iy - 0.5 * g.ny, 2) : 0.0);
        const std::size_t i = (std::size_t(iz) * g.ny + iy) * g.nx + ix;
        p.model.vp[i] += 400.0 * std::exp(-r2 / 30.0);
        if (!p.model.rho.empty()) p.model.rho[i] += 600.0 * std::exp(-r2 / 20.0);
      }
  const double y = three_d ? 115.0 : 0.0, far = three_d ? 350.0 : 750.0;
  const std::vector<Position> recs = {test::at(100.0, y, 0.0), test::at(0.75 * far, y, 50.0),
                                      test::at(far, y, 13.0)};
  p.shots = {ShotGeometry{test::at(100.0, y, 20.0), recs},
             ShotGeometry{test::at(215.5, y, 140.0), recs},  // between grid points
             ShotGeometry{test::at(far - 20.0, y, 30.0), recs}};
  return p;
}

// Three different wavelets: a Ricker, a scaled and delayed one, another frequency.
std::vector<std::vector<double>> three_wavelets(const ForwardProblem& p) {
  return {ricker(15.0, 0.1, p.dt, p.nt), ricker(15.0, 0.13, p.dt, p.nt, -1.7),
          ricker(9.0, 0.12, p.dt, p.nt, 0.8)};
}

template <class A>
bool bitwise_equal(const A& a, int sa, const A& b, int sb) {
  for (std::size_t r = 0; r < a.extent(1); ++r)
    for (std::size_t n = 0; n < a.extent(2); ++n)
      if (std::memcmp(&a(sa, r, n), &b(sb, r, n), sizeof(a(sa, r, n))) != 0) return false;
  return true;
}

template <class T>
void expect_batch_equals_single_shots(physics::Equation equation, bool three_d) {
  ForwardProblem p = three_shot_problem(equation, three_d);
  p.shot_wavelets = three_wavelets(p);
  const auto batched = forward_model<T>(p);
  p.shot_batch = 2;  // two launches: the second batch loads its own wavelet rows
  const auto split = forward_model<T>(p);
  double peak[3] = {0, 0, 0};
  for (int s = 0; s < 3; ++s) {
    ForwardProblem one = p;
    one.shot_batch = 0;
    one.shots = {p.shots[s]};
    one.shot_wavelets.clear();
    one.wavelet = p.shot_wavelets[s];
    const auto single = forward_model<T>(one);
    EXPECT_TRUE(bitwise_equal(batched, s, single, 0)) << "shot " << s;
    EXPECT_TRUE(bitwise_equal(split, s, single, 0)) << "shot " << s << " (shot_batch 2)";
    for (std::size_t r = 0; r < single.extent(1); ++r)
      for (std::size_t n = 0; n < single.extent(2); ++n)
        peak[s] = std::max(peak[s], std::abs(double(single(0, r, n))));
  }
  // The shots really differ: shot 1 alone with shot 0's wavelet gives other traces.
  ForwardProblem swapped = p;
  swapped.shot_batch = 0;
  swapped.shots = {p.shots[1]};
  swapped.shot_wavelets.clear();
  swapped.wavelet = p.shot_wavelets[0];
  EXPECT_FALSE(bitwise_equal(batched, 1, forward_model<T>(swapped), 0));
  std::printf("[ measured ] peaks of the three shots' traces: %.3g %.3g %.3g\n", peak[0], peak[1],
              peak[2]);
  for (double v : peak) EXPECT_GT(v, 0.0);
}

TEST(ShotWavelets, BatchEqualsEachShotAloneConstantDensity) {
  expect_batch_equals_single_shots<double>(physics::Equation::acoustic, false);
  expect_batch_equals_single_shots<float>(physics::Equation::acoustic, false);
}
TEST(ShotWavelets, BatchEqualsEachShotAloneVariableDensity) {
  expect_batch_equals_single_shots<double>(physics::Equation::acoustic_variable_density, false);
}
TEST(ShotWavelets, BatchEqualsEachShotAlone3D) {
  expect_batch_equals_single_shots<float>(physics::Equation::acoustic, true);
  expect_batch_equals_single_shots<double>(physics::Equation::acoustic_variable_density, true);
}

// Identical rows are the shared wavelet, bit for bit: traces, misfit and gradients (boundary
// storage: the source is re-injected while rebuilding; variable density: the source's buoyancy
// imaging term).
template <class T>
void expect_identical_rows_equal_shared(physics::Equation equation) {
  ForwardProblem shared = three_shot_problem(equation, false);
  shared.wavelet = three_wavelets(shared)[1];
  ForwardProblem rows = shared;
  rows.shot_wavelets.assign(3, shared.wavelet);
  const auto a = forward_model<T>(shared);
  const auto b = forward_model<T>(rows);
  for (int s = 0; s < 3; ++s) EXPECT_TRUE(bitwise_equal(a, s, b, s)) << "shot " << s;
  // Observed data of another wavelet, so the misfit and the gradient are not zero.
  ForwardProblem other = shared;
  other.wavelet = three_wavelets(shared)[2];
  const auto observed = forward_model<T>(other);
  const GradientResult<T> ga = misfit_gradient<T>(shared, observed, Storage::boundary);
  const GradientResult<T> gb = misfit_gradient<T>(rows, observed, Storage::boundary);
  EXPECT_GT(ga.misfit, 0.0);
  EXPECT_EQ(0, std::memcmp(&ga.misfit, &gb.misfit, sizeof(double)));
  ASSERT_EQ(ga.gradient.size(), gb.gradient.size());
  EXPECT_EQ(0, std::memcmp(ga.gradient.data(), gb.gradient.data(), ga.gradient.size() * sizeof(T)));
  ASSERT_EQ(ga.of(physics::Parameter::rho).size(), gb.of(physics::Parameter::rho).size());
  if (ga.of(physics::Parameter::rho).size() > 0) {
    EXPECT_EQ(
        0, std::memcmp(ga.of(physics::Parameter::rho).data(), gb.of(physics::Parameter::rho).data(),
                       ga.of(physics::Parameter::rho).size() * sizeof(T)));
  }
}

TEST(ShotWavelets, IdenticalRowsAreTheSharedWaveletBitwise) {
  expect_identical_rows_equal_shared<float>(physics::Equation::acoustic);
  expect_identical_rows_equal_shared<double>(physics::Equation::acoustic);
  expect_identical_rows_equal_shared<double>(physics::Equation::acoustic_variable_density);
}

// <F x, y> = <x, F* y> with F mapping the three shots' own random wavelets x_s to their data:
// sum_s <x_s, dJ/ds_s> (the source adjoint of each shot against its own wavelet). Also with a
// checkpoint history (recomputed segments inject the shots' own wavelets).
void expect_per_shot_dot_product(physics::Equation equation, bool three_d, Storage storage) {
  ForwardProblem p = three_shot_problem(equation, three_d);
  p.nt = three_d ? 120 : 200;
  p.wavelet.clear();
  for (unsigned s = 0; s < 3; ++s) p.shot_wavelets.push_back(test::random_vector(p.nt, 11 + s));
  const test::DotProduct dp = test::dot_product(p, storage, 3);
  ASSERT_NE(dp.lhs, 0.0);
  // Measured 5e-15 .. 7e-15 (2D and 3D); the suite's dot-product bound is 1e-12. Each shot
  // alone too: a wavelet row paired with another shot's dJ/ds would break it per shot.
  std::printf("[ measured ] per-shot dot product (%s, %dD, %s): %.2e, worst shot %.2e\n",
              physics::name(equation), three_d ? 3 : 2, to_string(storage), dp.mismatch(),
              dp.worst_shot);
  EXPECT_LT(dp.mismatch(), 1e-12);
  EXPECT_LT(dp.worst_shot, 1e-12);
}

TEST(ShotWavelets, DotProductPerShotConstantDensity) {
  expect_per_shot_dot_product(physics::Equation::acoustic, false, Storage::boundary);
  expect_per_shot_dot_product(physics::Equation::acoustic, false, Storage::checkpoint);
}
TEST(ShotWavelets, DotProductPerShotVariableDensity) {
  expect_per_shot_dot_product(physics::Equation::acoustic_variable_density, false,
                              Storage::boundary);
}
TEST(ShotWavelets, DotProductPerShot3D) {
  expect_per_shot_dot_product(physics::Equation::acoustic, true, Storage::checkpoint);
}

// The gradient of three shots with their own wavelets equals the sum of each shot's gradient
// run alone with its wavelet (the imaging terms use each shot's own wavelet: boundary storage
// re-injects it, variable density images it into dJ/drho), to rounding: the sums are taken in
// another order.
void expect_gradient_is_sum_of_single_shots(physics::Equation equation, Storage storage) {
  ForwardProblem p = three_shot_problem(equation, false);
  p.shot_wavelets = three_wavelets(p);
  ForwardProblem truth = p;
  for (double& v : truth.model.vp) v *= 1.03;
  const auto observed = forward_model<double>(truth);
  const GradientResult<double> all = misfit_gradient<double>(p, observed, storage);
  std::vector<double> sum(all.gradient.size(), 0.0),
      sum_rho(all.of(physics::Parameter::rho).size(), 0.0);
  double misfit = 0;
  for (int s = 0; s < 3; ++s) {
    ForwardProblem one = p;
    one.shots = {p.shots[s]};
    one.shot_wavelets = {p.shot_wavelets[s]};  // a one-row table: per shot too
    HostArray3<double> obs("obs", 1, observed.extent(1), observed.extent(2));
    for (std::size_t r = 0; r < obs.extent(1); ++r)
      for (std::size_t n = 0; n < obs.extent(2); ++n) obs(0, r, n) = observed(s, r, n);
    const GradientResult<double> g = misfit_gradient<double>(one, obs, storage);
    misfit += g.misfit;
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += g.gradient.data()[i];
    for (std::size_t i = 0; i < sum_rho.size(); ++i)
      sum_rho[i] += g.of(physics::Parameter::rho).data()[i];
  }
  const auto rel = [](const std::vector<double>& a, const std::vector<double>& b) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) num += std::pow(a[i] - b[i], 2), den += b[i] * b[i];
    return den > 0 ? std::sqrt(num / den) : 0.0;
  };
  const auto values = [](const HostArray2<double>& v) {
    return std::vector<double>(v.data(), v.data() + v.size());
  };
  const double e = rel(values(all.gradient), sum);
  const double e_rho = rel(values(all.of(physics::Parameter::rho)), sum_rho);
  std::printf(
      "[ measured ] %s %s: gradient vs the single shots' sum %.2e (rho %.2e), misfit "
      "%.2e\n",
      physics::name(equation), to_string(storage), e, e_rho,
      std::abs(all.misfit - misfit) / misfit);
  EXPECT_GT(misfit, 0.0);
  // Measured: misfit 0 (the same sums), gradients 1.4e-16 .. 2e-16 (another summation order).
  EXPECT_LT(std::abs(all.misfit - misfit) / misfit, 1e-14);
  EXPECT_LT(e, 1e-14);
  EXPECT_LT(e_rho, 1e-14);
}

TEST(ShotWavelets, GradientIsTheSumOfSingleShotsConstantDensity) {
  expect_gradient_is_sum_of_single_shots(physics::Equation::acoustic, Storage::boundary);
}
TEST(ShotWavelets, GradientIsTheSumOfSingleShotsVariableDensity) {
  expect_gradient_is_sum_of_single_shots(physics::Equation::acoustic_variable_density,
                                         Storage::boundary);
  expect_gradient_is_sum_of_single_shots(physics::Equation::acoustic_variable_density,
                                         Storage::checkpoint);
}

TEST(ShotWavelets, WrongTablesAreRefused) {
  ForwardProblem p = three_shot_problem(physics::Equation::acoustic, false);
  p.shot_wavelets = three_wavelets(p);
  p.shot_wavelets.pop_back();
  try {
    validate(p);
    ADD_FAILURE() << "two wavelets for three shots accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("2 per-shot wavelets"), std::string::npos) << e.what();
  }
  p.shot_wavelets = three_wavelets(p);
  p.shot_wavelets[1].pop_back();
  try {
    validate(p);
    ADD_FAILURE() << "a short row accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("shot 1's wavelet has 399 samples"), std::string::npos)
        << e.what();
  }
  p.shot_wavelets = three_wavelets(p);
  p.wavelet.clear();  // unused with per-shot wavelets
  EXPECT_NO_THROW(validate(p));
  AcousticPropagator<double> prop(p);
  EXPECT_THROW(prop.set_shot_wavelets({p.shot_wavelets[0]}), RuntimeError);
  EXPECT_THROW(
      prop.set_shot_wavelets({p.shot_wavelets[0], p.shot_wavelets[1], std::vector<double>(5)}),
      RuntimeError);
  EXPECT_TRUE(prop.per_shot_wavelets());
  prop.set_wavelet(p.shot_wavelets[0]);
  EXPECT_FALSE(prop.per_shot_wavelets());
}

// set_shot_wavelets / set_wavelet between runs of the same batch take effect (the batch's rows
// are reloaded though the batch did not change).
TEST(ShotWavelets, SettersReloadTheCurrentBatch) {
  ForwardProblem p = three_shot_problem(physics::Equation::acoustic, false);
  const auto w = three_wavelets(p);
  AcousticPropagator<double> prop(p);
  const int nrec = prop.max_receivers();
  Traces<double> d("d", 3, nrec, p.nt);
  prop.set_shot_wavelets(w);
  prop.forward(0, 3, d);
  const auto first = Kokkos::create_mirror_view_and_copy(HostSpace(), d);
  ForwardProblem q = p;
  q.shot_wavelets = w;
  const auto expected = forward_model<double>(q);
  for (int s = 0; s < 3; ++s) EXPECT_TRUE(bitwise_equal(first, s, expected, s)) << s;
  prop.set_wavelet(w[2]);
  prop.forward(0, 3, d);
  const auto second = Kokkos::create_mirror_view_and_copy(HostSpace(), d);
  q.shot_wavelets.clear();
  q.wavelet = w[2];
  const auto shared = forward_model<double>(q);
  for (int s = 0; s < 3; ++s) EXPECT_TRUE(bitwise_equal(second, s, shared, s)) << s;
}

}  // namespace
}  // namespace pwave
