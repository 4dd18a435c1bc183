// The optimisers: the projection onto the bounds (each parameter's block clamped to its own
// range, and with Bounds::keep_zero (vs) the cells at exactly 0 (fluid) left at 0, whatever the
// lower bound: FWI of vs with vs_min > 0 must not turn a water layer solid), and Adam's
// independence of the gradient's scale.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pwave/inversion/optimizer.hpp"

namespace pwave::test {
namespace {

TEST(OptimizerBounds, FluidCellsStayFluidAndTheOthersAreClamped) {
  OptimizerConfig config;
  config.type = "sgd";
  config.learning_rate = 1.0;  // the first step moves the model by at most 1
  Optimizer<double> opt(config, 8, {{100.0, 200.0, false}, {500.0, 1700.0, true}});
  const std::vector<double> start = {0.0, 150.0, 250.0,  120.0,  // a velocity-like block
                                     0.0, 600.0, 2000.0, 0.0};   // vs: two fluid cells
  DeviceVector<double> model("model", 8), gradient("gradient", 8);
  auto h = Kokkos::create_mirror_view(model);
  for (int i = 0; i < 8; ++i) h(i) = start[std::size_t(i)];
  Kokkos::deep_copy(model, h);
  const Objective<double> objective = [](const DeviceVector<double>&,
                                         const DeviceVector<double>& g) {
    auto hg = Kokkos::create_mirror_view(g);
    for (int i = 0; i < 8; ++i) hg(i) = i == 1 || i == 5 ? 1.0 : 0.0;  // moves cells 1 and 5
    Kokkos::deep_copy(g, hg);
    return 1.0;
  };
  opt.step(model, gradient, objective);
  Kokkos::deep_copy(h, model);
  const std::vector<double> expected = {100.0, 149.0, 200.0,  120.0,  // 0 clamped up to 100
                                        0.0,   599.0, 1700.0, 0.0};   // 0 kept: fluid
  for (int i = 0; i < 8; ++i) EXPECT_EQ(h(i), expected[std::size_t(i)]) << "cell " << i;
}

/// The models of `iterations` Adam steps on J = sum_i scale (m_i - target_i)^2 / 2 (gradient
/// scale (m - target)), from 2000 everywhere.
template <class T>
std::vector<double> adam_models(double scale, int iterations) {
  OptimizerConfig config;
  config.type = "adam";
  config.learning_rate = 10.0;
  const int n = 6;
  Optimizer<T> opt(config, n, {{1000.0, 5000.0, false}});
  DeviceVector<T> model("model", n), gradient("gradient", n);
  Kokkos::deep_copy(model, T(2000));
  const Objective<T> objective = [&](const DeviceVector<T>& m, const DeviceVector<T>& g) {
    auto hm = Kokkos::create_mirror_view_and_copy(HostSpace(), m);
    auto hg = Kokkos::create_mirror_view(g);
    for (int i = 0; i < n; ++i) hg(i) = T(scale * (double(hm(i)) - (1900.0 + 40.0 * i)));
    Kokkos::deep_copy(g, hg);
    return 1.0;
  };
  for (int k = 0; k < iterations; ++k) opt.step(model, gradient, objective);
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), model);
  return std::vector<double>(h.data(), h.data() + n);
}

// Adam divides the gradient by the first one's largest |g|: the same steps whatever the data's
// amplitude, down to the 1e-24 gradients of a 1 N force in float32 (whose squares underflow).
// With epsilon absolute (1e-8) the tiny gradients left the model where it was.
TEST(OptimizerAdam, StepsDoNotDependOnTheGradientsScale) {
  const std::vector<double> unit = adam_models<double>(1.0, 12);
  EXPECT_NEAR(unit[0], 1900.0, 10.0);  // steps of about 10 took cell 0 from 2000 to its target
  for (double scale : {1e-24, 1e6}) {
    const std::vector<double> scaled = adam_models<double>(scale, 12);
    for (std::size_t i = 0; i < unit.size(); ++i)
      EXPECT_NEAR(scaled[i], unit[i], 1e-9 * unit[i]) << "scale " << scale << ", cell " << i;
  }
  const std::vector<double> single = adam_models<float>(1e-24, 12);
  for (std::size_t i = 0; i < unit.size(); ++i)
    EXPECT_NEAR(single[i], unit[i], 1e-4 * unit[i]) << "float32, cell " << i;
}

}  // namespace
}  // namespace pwave::test
