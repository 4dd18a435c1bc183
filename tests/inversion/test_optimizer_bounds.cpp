// The optimiser's projection onto the bounds: each parameter's block clamped to its own range,
// and with Bounds::keep_zero (vs) the cells at exactly 0 (fluid) left at 0, whatever the lower
// bound: FWI of vs with vs_min > 0 must not turn a water layer solid.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace pwave::test
