// The exact adjoint of the elastic step (physics/elastic/adjoint_kernels.hpp) through the
// fixtures (elastic_fixture.hpp, elastic_adjoint_fixture.hpp): dot-product tests of the whole
// nt-step map (state to state, source samples to traces) with a CPML on every side, and
// central finite differences of J = 0.5 ||d - d_obs||^2 with respect to vp, vs and rho. 2D and
// 3D, float64.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "physics/elastic_adjoint_fixture.hpp"
#include "pwave/acquisition/wavelet.hpp"
#include "pwave/physics/elastic/stability.hpp"

namespace pwave {
namespace {

using test::elastic::AdjointRun;
using test::elastic::Component;
using test::elastic::Model;
using test::elastic::Receiver;
using test::elastic::Simulation;
using test::elastic::SourceKind;
using Traces2 = std::vector<std::vector<double>>;

double relative(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(a), std::abs(b));
}

/// A smooth heterogeneous model (a Gaussian anomaly in each parameter) on an n^Dim grid.
Model heterogeneous(int n, int ny, double h) {
  Model m = Model::homogeneous(n, n, h, 2000.0, 1150.0, 2000.0, ny);
  for (int iz = 0; iz < n; ++iz) {
    for (int iy = 0; iy < ny; ++iy) {
      for (int ix = 0; ix < n; ++ix) {
        const double dz = iz - 0.6 * n, dy = ny > 1 ? iy - 0.4 * ny : 0.0, dx = ix - 0.45 * n;
        const double g = std::exp(-(dz * dz + dy * dy + dx * dx) / (0.05 * n * n));
        const std::size_t c = (std::size_t(iz) * ny + iy) * n + ix;
        m.vp[c] *= 1 + 0.15 * g, m.vs[c] *= 1 - 0.1 * g, m.rho[c] *= 1 + 0.2 * g;
      }
    }
  }
  return m;
}

/// A simulation of nt steps at half the CFL limit, an explosive or force source near one
/// corner and receivers of every component spread over the model.
Simulation simulation(const Model& m, int order, int width, int nt, SourceKind kind) {
  Simulation r;
  r.order = order, r.width = width, r.nt = nt;
  const double dy = m.is_3d() ? m.h : 0.0;
  r.dt = 0.5 * physics::elastic::max_stable_dt_elastic(order, m.vp_max(), m.h, m.h, dy);
  r.pml_frequency = 25.0;
  r.source.kind = kind;
  r.source.iz = m.nz / 3, r.source.ix = m.nx / 3, r.source.iy = m.ny / 2;
  r.source.samples = ricker(25.0, 0.04, r.dt, nt);
  const int y = m.ny / 2;
  for (int k = 0; k < 4; ++k) {
    const int iz = 1 + k * (m.nz - 3) / 3, ix = m.nx - 2 - k * (m.nx - 4) / 3;
    r.receivers.push_back(Receiver{Component::vx, iz, ix, y});
    r.receivers.push_back(Receiver{Component::vz, ix, iz, y});
    r.receivers.push_back(Receiver{Component::pressure, iz, iz, y});
    if (m.is_3d()) r.receivers.push_back(Receiver{Component::vy, ix, ix, y});
  }
  return r;
}

Traces2 random_traces(std::size_t count, int nt, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Traces2 t(count, std::vector<double>(std::size_t(nt)));
  for (auto& trace : t)
    for (double& x : trace) x = u(rng);
  return t;
}

double inner(const Traces2& a, const Traces2& b) {
  double s = 0;
  for (std::size_t r = 0; r < a.size(); ++r)
    for (std::size_t n = 0; n < a[r].size(); ++n) s += a[r][n] * b[r][n];
  return s;
}

// ---------------------------------------------------------------------------------------------
// Dot-product tests.

/// <L x0, y> = <x0, L^T y> for random states, L the nt source-free steps (every field and memory
/// variable, the CPML on every side, or on every side but the top, a free surface there).
void expect_state_adjoint(const Model& m, int order, int width, int nt, double tolerance,
                          bool free_surface = false) {
  Simulation r = simulation(m, order, width, nt, SourceKind::explosive);
  r.free_surface = free_surface;
  const auto [lhs, rhs] = test::elastic::state_dot_test<double>(m, r);
  const double e = relative(lhs, rhs);
  std::printf("state dot product %dD order %d%s: <Lx, y> = %.15e, <x, L^T y> = %.15e, rel %.2e\n",
              m.is_3d() ? 3 : 2, order, free_surface ? " free surface" : "", lhs, rhs, e);
  EXPECT_LT(e, tolerance) << "order " << order;
}

TEST(ElasticAdjoint, StateDotProduct2D) {
  const Model m = heterogeneous(24, 1, 10.0);
  for (int order : {2, 4, 6, 8}) expect_state_adjoint(m, order, 8, 60, 1e-12);
}

TEST(ElasticAdjoint, StateDotProduct3D) {
  const Model m = heterogeneous(8, 8, 10.0);
  for (int order : {2, 8}) expect_state_adjoint(m, order, 5, 20, 1e-12);
}

TEST(ElasticAdjoint, StateDotProductFreeSurface2D) {
  const Model m = heterogeneous(24, 1, 10.0);
  for (int order : {2, 4, 6, 8}) expect_state_adjoint(m, order, 8, 60, 1e-12, true);
}

TEST(ElasticAdjoint, StateDotProductFreeSurface3D) {
  const Model m = heterogeneous(8, 8, 10.0);
  for (int order : {2, 8}) expect_state_adjoint(m, order, 5, 20, 1e-12, true);
}

/// The backward steps computing the interior's bars at each tap (the GPUs' default) give those
/// storing them everywhere to rounding (the same products, contracted into fused multiply-adds
/// differently: measured 2-5e-16 in float64, 0.8-2.6e-7 in float32, relative to each field's
/// largest value), with the CPML on every side or a free surface on top. A bar missing from the
/// stored band, or a tap of the inline box in a strip, differs by O(1).
void expect_same_bars(const Model& m, int order, int width, int nt, bool free_surface) {
  Simulation r = simulation(m, order, width, nt, SourceKind::explosive);
  r.free_surface = free_surface;
  for (const bool single : {false, true}) {
    const auto [differ, covered] = single ? test::elastic::bars_paths_differ<float>(m, r)
                                          : test::elastic::bars_paths_differ<double>(m, r);
    std::printf("bars %dD order %d%s %s: largest difference %.2e, inline box %ld points\n",
                m.is_3d() ? 3 : 2, order, free_surface ? " free surface" : "",
                single ? "float32" : "float64", differ, covered);
    EXPECT_LT(differ, single ? 1e-6 : 2e-15) << "order " << order;
    EXPECT_GT(covered, 0) << "order " << order;
  }
}

TEST(ElasticAdjoint, InlineBarsMatchStoredBarsToRounding2D) {
  const Model m = heterogeneous(40, 1, 10.0);
  for (int order : {2, 4, 6, 8}) {
    expect_same_bars(m, order, 8, 12, false);
    expect_same_bars(m, order, 8, 12, true);
  }
}

TEST(ElasticAdjoint, InlineBarsMatchStoredBarsToRounding3D) {
  const Model m = heterogeneous(20, 20, 10.0);
  for (int order : {2, 8}) {
    expect_same_bars(m, order, 5, 4, false);
    expect_same_bars(m, order, 5, 4, true);
  }
}

/// <L s, y> = <s, L^T y> for the source samples s -> traces map.
void expect_source_adjoint(const Model& m, int order, int width, int nt, SourceKind kind,
                           double tolerance) {
  Simulation r = simulation(m, order, width, nt, kind);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& x : r.source.samples) x = u(rng);
  const Traces2 d = test::elastic::run<double>(m, r);
  const Traces2 y = random_traces(r.receivers.size(), nt, 5);
  const AdjointRun a = test::elastic::adjoint<double>(m, r, y);
  double rhs = 0;
  for (int n = 0; n < nt; ++n) rhs += r.source.samples[std::size_t(n)] * a.source[std::size_t(n)];
  const double lhs = inner(d, y), e = relative(lhs, rhs);
  std::printf("source dot product %dD order %d kind %d: %.15e vs %.15e, rel %.2e\n",
              m.is_3d() ? 3 : 2, order, int(kind), lhs, rhs, e);
  EXPECT_LT(e, tolerance);
}

TEST(ElasticAdjoint, SourceToTracesDotProduct2D) {
  const Model m = heterogeneous(24, 1, 10.0);
  expect_source_adjoint(m, 8, 8, 120, SourceKind::explosive, 1e-12);
  expect_source_adjoint(m, 4, 8, 120, SourceKind::force_z, 1e-12);
  expect_source_adjoint(m, 6, 8, 120, SourceKind::force_x, 1e-12);
}

TEST(ElasticAdjoint, SourceToTracesDotProduct3D) {
  const Model m = heterogeneous(8, 8, 10.0);
  expect_source_adjoint(m, 4, 5, 40, SourceKind::explosive, 1e-12);
  expect_source_adjoint(m, 8, 5, 40, SourceKind::force_y, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Finite differences of J with respect to vp, vs, rho.

double misfit(const Model& m, const Simulation& r, const Traces2& observed) {
  const Traces2 d = test::elastic::run<double>(m, r);
  double j = 0;
  for (std::size_t k = 0; k < d.size(); ++k)
    for (std::size_t n = 0; n < d[k].size(); ++n) j += 0.5 * std::pow(d[k][n] - observed[k][n], 2);
  return j;
}

/// The adjoint's dJ/dvp, dJ/dvs, dJ/drho at `cells` against central differences (step `rel`
/// of the value; a zero vs steps by rel vp: J is even in vs there).
void expect_gradient(const Model& m, const Simulation& r, const std::vector<std::size_t>& cells,
                     double tolerance) {
  // Observed data: the same acquisition over a model 3 % faster.
  Model truth = m;
  for (double& v : truth.vp) v *= 1.03;
  for (double& v : truth.vs) v *= 1.03;
  const Traces2 observed = test::elastic::run<double>(truth, r);
  const Traces2 d = test::elastic::run<double>(m, r);
  Traces2 residual = d;
  for (std::size_t k = 0; k < d.size(); ++k)
    for (std::size_t n = 0; n < d[k].size(); ++n) residual[k][n] -= observed[k][n];
  const AdjointRun a = test::elastic::adjoint<double>(m, r, residual);
  const double rel = 1e-4;
  struct Parameter {
    const char* name;
    std::vector<double> Model::*values;
    const std::vector<double>* gradient;
  };
  const Parameter parameters[] = {
      {"vp", &Model::vp, &a.vp}, {"vs", &Model::vs, &a.vs}, {"rho", &Model::rho, &a.rho}};
  for (const Parameter& p : parameters) {
    for (std::size_t c : cells) {
      // Fourth-order central difference (its truncation error far below the tolerance).
      const double value = (m.*p.values)[c], step = rel * (value != 0 ? value : m.vp[c]);
      const auto j_at = [&](double delta) {
        Model moved = m;
        (moved.*p.values)[c] += delta;
        return misfit(moved, r, observed);
      };
      const double fd =
          (8 * (j_at(step) - j_at(-step)) - (j_at(2 * step) - j_at(-2 * step))) / (12 * step);
      const double adjoint = (*p.gradient)[c];
      const double scale = std::max(std::abs(fd), std::abs(adjoint));
      const double e = scale > 0 ? std::abs(fd - adjoint) / scale : 0.0;
      std::printf("%dD d J / d %s at cell %zu: adjoint %.12e, fd %.12e, rel %.2e\n",
                  m.is_3d() ? 3 : 2, p.name, c, adjoint, fd, e);
      if (scale == 0) continue;  // vs of a fluid cell: J is even in vs, both are 0
      EXPECT_LT(e, tolerance) << p.name << " at cell " << c;
    }
  }
}

TEST(ElasticAdjoint, GradientMatchesFiniteDifferences2D) {
  // A fluid layer (vs = 0) on top of the heterogeneous solid.
  Model m = heterogeneous(24, 1, 10.0);
  for (int iz = 0; iz < 3; ++iz)
    for (int ix = 0; ix < m.nx; ++ix) m.vs[std::size_t(iz) * m.nx + ix] = 0.0;
  const Simulation r = simulation(m, 8, 8, 160, SourceKind::explosive);
  const auto cell = [&](int iz, int ix) { return std::size_t(iz) * m.nx + ix; };
  // A cell on the path, one on the model's edge (its copies fill the CPML strip beside it), a
  // fluid cell and a solid cell under the fluid.
  expect_gradient(m, r, {cell(12, 12), cell(10, 0), cell(1, 14), cell(3, 9)}, 1e-8);
}

TEST(ElasticAdjoint, ForceGradientMatchesFiniteDifferences2D) {
  const Model m = heterogeneous(20, 1, 10.0);
  const Simulation r = simulation(m, 4, 8, 140, SourceKind::force_z);
  // The source's own cell (its dt b) and a cell on the path.
  expect_gradient(m, r, {std::size_t(r.source.iz) * m.nx + r.source.ix, 10 * 20 + 12}, 1e-8);
}

TEST(ElasticAdjoint, GradientMatchesFiniteDifferences3D) {
  const Model m = heterogeneous(8, 8, 10.0);
  const Simulation r = simulation(m, 4, 5, 50, SourceKind::explosive);
  const auto cell = [&](int iz, int iy, int ix) {
    return (std::size_t(iz) * m.ny + iy) * m.nx + ix;
  };
  expect_gradient(m, r, {cell(4, 4, 4), cell(3, 0, 7)}, 1e-5);
}

/// A free surface at the top (no CPML there): the source one cell below it, receivers of every
/// component on it and one row below.
Simulation with_free_surface(const Model& m, Simulation r) {
  r.free_surface = true;
  r.source.iz = 1;
  const int y = m.ny / 2;
  r.receivers = {Receiver{Component::vx, 0, m.nx - 3, y}, Receiver{Component::vz, 0, m.nx / 2, y},
                 Receiver{Component::pressure, 0, m.nx - 6, y},
                 Receiver{Component::pressure, 1, 2, y}, Receiver{Component::vz, 4, m.nx - 2, y}};
  if (m.is_3d()) r.receivers.push_back(Receiver{Component::vy, 0, m.nx / 2, y + 1});
  return r;
}

TEST(ElasticAdjoint, FreeSurfaceGradientMatchesFiniteDifferences2D) {
  const Model m = heterogeneous(24, 1, 10.0);
  for (int order : {2, 8}) {
    const Simulation r = with_free_surface(m, simulation(m, order, 8, 160, SourceKind::explosive));
    const auto cell = [&](int iz, int ix) { return std::size_t(iz) * m.nx + ix; };
    // The surface row (lambda' there), the rows below it whose stencils reach the images and
    // the zero velocities above, a cell deeper on the path.
    expect_gradient(m, r, {cell(0, 12), cell(0, 19), cell(1, 15), cell(2, 9), cell(10, 14)}, 1e-8);
  }
}

TEST(ElasticAdjoint, FreeSurfaceForceGradientMatchesFiniteDifferences2D) {
  // A fluid top row (vs = 0: lambda' = 0, the acoustic free surface) over the solid.
  Model m = heterogeneous(20, 1, 10.0);
  for (int ix = 0; ix < m.nx; ++ix) m.vs[std::size_t(ix)] = 0.0;
  const Simulation r = with_free_surface(m, simulation(m, 4, 8, 140, SourceKind::force_z));
  const auto cell = [&](int iz, int ix) { return std::size_t(iz) * m.nx + ix; };
  expect_gradient(m, r, {cell(0, 6), cell(1, 6), cell(2, 13)}, 1e-8);
}

TEST(ElasticAdjoint, FreeSurfaceGradientMatchesFiniteDifferences3D) {
  const Model m = heterogeneous(8, 8, 10.0);
  const Simulation r = with_free_surface(m, simulation(m, 4, 5, 50, SourceKind::explosive));
  const auto cell = [&](int iz, int iy, int ix) {
    return (std::size_t(iz) * m.ny + iy) * m.nx + ix;
  };
  expect_gradient(m, r, {cell(0, 4, 3), cell(1, 3, 4), cell(3, 4, 4)}, 1e-5);
}

}  // namespace
}  // namespace pwave
