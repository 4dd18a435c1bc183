// The adjoint's residual injection is deterministic: receivers between grid points whose Hicks
// taps share cells give the same gradient bit for bit run after run on parallel backends
// (OpenMP threads, GPUs), for constant and variable density.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <utility>

#include "pwave/physics/acoustic/adjoint_kernels.hpp"
#include "pwave/propagation/gradient.hpp"
#include "pwave/propagation/padded_layout.hpp"
#include "pwave/propagation/point_taps.hpp"
#include "support/adjoint_checks.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

/// The lens model with two shots recorded by 32 receivers a third of a cell apart on two close
/// lines between grid points: every receiver shares most of its 8 x 8 Hicks cells with its
/// neighbours, and a line's cells with the other line's. `density`: variable density.
ForwardProblem crowded_receivers(bool density) {
  std::vector<Position> receivers;
  for (int k = 0; k < 16; ++k) {
    receivers.push_back({250.4 + 3.3 * k, 201.7});
    receivers.push_back({251.9 + 3.3 * k, 214.2});
  }
  ForwardProblem p = test::lens_problem(receivers);
  if (density) {
    p.equation = physics::Equation::acoustic_variable_density;
    p.model.rho.assign(p.model.vp.size(), 0.0);
    const int nx = p.model.grid.nx;
    for (std::size_t i = 0; i < p.model.rho.size(); ++i) {
      const double iz = double(i / nx), ix = double(i % nx);
      p.model.rho[i] = 1500.0 + 20.0 * iz +
                       900.0 * std::exp(-(std::pow(ix - 24.0, 2) + std::pow(iz - 18.0, 2)) / 30.0);
    }
  }
  return p;
}

/// True when the two arrays hold the same bits.
template <class A>
bool same_bits(const A& a, const A& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a(0, 0))) == 0;
}

/// The misfit gradient of a wrong model, 5 times: every run bitwise the first.
void expect_same_gradient_every_run(bool density) {
  const ForwardProblem truth = crowded_receivers(density);
  const auto observed = forward_model<double>(truth);
  ForwardProblem p = truth;
  for (double& v : p.model.vp) v = 0.97 * v + 40.0;
  const GradientResult<double> first = misfit_gradient<double>(p, observed);
  ASSERT_GT(first.misfit, 0.0);
  for (int run = 1; run < 5; ++run) {
    const GradientResult<double> again = misfit_gradient<double>(p, observed);
    EXPECT_TRUE(same_bits(first.gradient, again.gradient)) << "dJ/dvp differs in run " << run;
    if (density) {
      EXPECT_TRUE(same_bits(first.of(physics::Parameter::rho), again.of(physics::Parameter::rho)))
          << "dJ/drho differs in run " << run;
    }
  }
}

TEST(DeterministicInjection, GradientIsBitwiseTheSameEveryRun) {
  expect_same_gradient_every_run(false);
}

TEST(DeterministicInjection, VariableDensityGradientsAreBitwiseTheSameEveryRun) {
  expect_same_gradient_every_run(true);
}

// The injection kernel alone against a serial host loop over each shot's receivers and their
// taps, g <- fma(w r, h, g) one tap at a time (what the atomic adds computed on one thread in
// the Serial build): two shots of crowded receivers, the second with fewer (so its slot has
// fewer cells), loaded in swapped slots; bitwise at every cell of the padded grid. Each slot
// lists a cell once, so no two threads write one cell.
TEST(DeterministicInjection, InjectionEqualsASerialLoopOverReceiversAndTaps) {
  ForwardProblem p = crowded_receivers(false);
  p.shots[1].receivers.resize(20);
  for (Position& r : p.shots[1].receivers) r.z += 43.1;
  const std::vector<int> slots = {1, 0};  // slot k holds shot slots[k]
  const auto layout = propagation::PaddedLayout::of(p);
  propagation::ShotTaps<double> taps(p, layout, 2);
  taps.load(slots);
  const int R = layout.radius, nz = layout.nz, nx = layout.nx, nrec = 32, nt = 3, n = 1;

  // Random G (halo layout), w and residuals.
  Field<double> g("g", 2, nz + 2 * R, nx + 2 * R);
  GridView<double> w("w", nz, nx);
  Traces<double> residual("residual", 2, nrec, nt);
  auto hg = Kokkos::create_mirror(g);  // a copy on every backend: the reference sums into it
  auto hw = Kokkos::create_mirror_view(w);
  auto hr = Kokkos::create_mirror_view(residual);
  const auto fill = [](auto& view, unsigned seed, double offset) {
    const auto values = test::random_vector(view.size(), seed);
    for (std::size_t i = 0; i < view.size(); ++i) view.data()[i] = offset + values[i];
  };
  fill(hg, 3, 0.0);
  fill(hw, 4, 5.0);
  fill(hr, 5, 0.0);
  Kokkos::deep_copy(g, hg);
  Kokkos::deep_copy(w, hw);
  Kokkos::deep_copy(residual, hr);

  const physics::CellTaps<double>& by_cell = taps.receiver_cells();
  ASSERT_GT(by_cell.cells(), 0);
  const auto cell = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_cell.cell);
  const auto start = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), by_cell.start);
  for (int k = 0; k < 2; ++k) {
    for (int c = 1; c < by_cell.cells() && start(k, c) < start(k, c + 1); ++c) {
      ASSERT_LT(std::make_pair(cell(k, c - 1, 0), cell(k, c - 1, 1)),
                std::make_pair(cell(k, c, 0), cell(k, c, 1)))
          << "slot " << k << " cell " << c;
    }
  }

  const physics::ColumnMap column{nx, 0, nx + 2 * R, R};
  Kokkos::parallel_for(
      "pwave::test::inject_residual",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>({0, 0, n}, {2, by_cell.cells(), n + 1}),
      physics::InjectResidual<double>{g, residual, w, by_cell, column});
  const auto got = Kokkos::create_mirror(g);
  Kokkos::deep_copy(got, g);

  for (int k = 0; k < 2; ++k) {
    const ShotGeometry& shot = p.shots[std::size_t(slots[std::size_t(k)])];
    for (std::size_t r = 0; r < shot.receivers.size(); ++r) {
      for (const propagation::Tap& t : propagation::point_taps(p, layout, shot.receivers[r], "r")) {
        double& cell = hg(k, t.iz + R, t.ix + R);
        cell = std::fma(hw(t.iz, t.ix) * hr(k, int(r), n), t.weight, cell);
      }
    }
  }
  for (int k = 0; k < 2; ++k)
    for (int z = 0; z < nz + 2 * R; ++z)
      for (int x = 0; x < nx + 2 * R; ++x) {
        ASSERT_EQ(got(k, z, x), hg(k, z, x)) << k << " " << z << " " << x;
      }
}

}  // namespace
}  // namespace pwave
