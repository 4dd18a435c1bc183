// The variable-density acoustic equation: equal to the constant-density one when the density
// is constant, the analytic reflection of a density step, the exact adjoint (dot product) and
// the gradients with respect to vp and rho (central finite differences), 2D and 3D, CPML on
// every side and with a free surface, for each exact storage strategy.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/forward.hpp"
#include "support/adjoint_checks.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

// Heterogeneous vp and rho (a lens in each, offset), CPML of 12 cells, sources and receivers
// near every layer; 3D: a thin slab of the same.
// `off_grid`: every position moved 3.7 m in x and 2.3 m in z (Hicks interpolation; receivers at
// z = 0 then have taps mirrored by the free surface).
ForwardProblem vd_problem(int order, bool free_surface, bool three_d = false,
                          bool off_grid = false) {
  const int nz = 37, nx = 45, ny = three_d ? 21 : 1;
  ForwardProblem p =
      three_d ? test::homogeneous_problem_3d(nz, ny, nx, 10.0, 2000.0, 0.001, 260, 15.0, order, 10)
              : test::homogeneous_problem(nz, nx, 10.0, 2000.0, 0.001, 300, 15.0, order, 12);
  p.equation = physics::Equation::acoustic_variable_density;
  p.model.rho.assign(p.model.vp.size(), 0.0);
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < ny; ++iy)
      for (int ix = 0; ix < nx; ++ix) {
        const std::size_t i = (std::size_t(iz) * ny + iy) * nx + ix;
        const double r1 = std::pow(ix - 25.0, 2) + std::pow(iz - 18.0, 2) + std::pow(iy - 10.0, 2);
        const double r2 = std::pow(ix - 15.0, 2) + std::pow(iz - 22.0, 2) + std::pow(iy - 9.0, 2);
        p.model.vp[i] = 1800.0 + 12.0 * iz + 500.0 * std::exp(-r1 / 40.0);
        p.model.rho[i] = 1500.0 + 20.0 * iz + 900.0 * std::exp(-r2 / 30.0);
      }
  if (free_surface) p.boundary.width[top] = 0, p.boundary.free_surface = true;
  p.boundary.pml_velocity = 3000.0;
  const auto pos = [&](double x, double z) {
    Position q;
    q.x = x + (off_grid ? 3.7 : 0.0), q.z = z + (off_grid ? 2.3 : 0.0);
    q.y = three_d ? (off_grid ? 104.4 : 100.0) : 0.0;
    return q;
  };
  const std::vector<Position> recs = {pos(20.0, 30.0), pos(300.0, 10.0), pos(430.0, 200.0),
                                      pos(100.0, 350.0), pos(280.0, 0.0)};
  p.shots = {ShotGeometry{pos(50.0, 60.0), recs}, ShotGeometry{pos(400.0, 300.0), recs}};
  return p;
}

TEST(VariableDensity, DotProductOrder8) {
  test::expect_dot_product(vd_problem(8, false), Storage::full);
}
TEST(VariableDensity, DotProductOrder4FreeSurface) {
  test::expect_dot_product(vd_problem(4, true), Storage::full);
}
TEST(VariableDensity, DotProductOrder8FreeSurface3D) {
  test::expect_dot_product(vd_problem(8, true, true), Storage::full);
}
TEST(VariableDensity, DotProductOffGridFreeSurfaceBoundary) {
  test::expect_dot_product(vd_problem(8, true, false, true), Storage::boundary);
}
TEST(VariableDensity, DotProductOffGrid3DBoundary) {
  test::expect_dot_product(vd_problem(4, false, true, true), Storage::boundary);
}

struct Gradients {
  double misfit = 0;
  std::vector<double> vp, rho;
};

// J and dJ/dvp, dJ/drho through the propagator's API.
Gradients vd_gradient(const ForwardProblem& p, const HostArray3<double>& observed,
                      Storage storage) {
  AcousticPropagator<double> prop(p);
  const int ns = int(p.shots.size()), nrec = prop.max_receivers(), nt = p.nt;
  Traces<double> d("d", ns, nrec, nt), res("r", ns, nrec, nt);
  auto history = prop.make_history(ns, storage);
  prop.forward(0, ns, d, {}, 0, 0, history);
  auto hd = Kokkos::create_mirror_view(d);
  Kokkos::deep_copy(hd, d);
  auto hr = Kokkos::create_mirror_view(res);
  Gradients out;
  for (int s = 0; s < ns; ++s)
    for (int r = 0; r < nrec; ++r)
      for (int n = 0; n < nt; ++n) {
        hr(s, r, n) = hd(s, r, n) - observed(s, r, n);
        out.misfit += 0.5 * hr(s, r, n) * hr(s, r, n);
      }
  Kokkos::deep_copy(res, hr);
  GridView<double> imaging("img", 2 * prop.padded_nz(), prop.padded_plane());
  prop.adjoint(0, ns, res, history, imaging);
  const Grid& g = p.model.grid;
  GridView<double> gv("gv", g.nz, g.ny * g.nx), gr("gr", g.nz, g.ny * g.nx);
  ParameterGrids<double> grads;
  grads[physics::Parameter::vp] = gv;
  grads[physics::Parameter::rho] = gr;
  prop.model_gradients(imaging, grads);
  auto hv = Kokkos::create_mirror_view(gv);
  auto hrho = Kokkos::create_mirror_view(gr);
  Kokkos::deep_copy(hv, gv);
  Kokkos::deep_copy(hrho, gr);
  out.vp.assign(hv.data(), hv.data() + hv.size());
  out.rho.assign(hrho.data(), hrho.data() + hrho.size());
  return out;
}

std::vector<double> smooth_bumps(const Grid& g, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> dv(std::size_t(g.cells()), 0.0);
  for (int k = 0; k < 5; ++k) {
    const double cz = u(gen) * g.nz, cx = u(gen) * g.nx, cy = u(gen) * g.ny, amp = u(gen) * 2 - 1;
    for (int iz = 0; iz < g.nz; ++iz)
      for (int iy = 0; iy < g.ny; ++iy)
        for (int ix = 0; ix < g.nx; ++ix)
          dv[(std::size_t(iz) * g.ny + iy) * g.nx + ix] +=
              amp * std::exp(-(std::pow(iz - cz, 2) + std::pow(ix - cx, 2) +
                               (g.ny > 1 ? std::pow(iy - cy, 2) : 0.0)) /
                             30.0);
  }
  return dv;
}

// dJ/dvp and dJ/drho along smooth perturbations against central differences (relative 1e-5).
void expect_vd_gradients(const ForwardProblem& truth, Storage storage) {
  const auto observed = forward_model<double>(truth);
  ForwardProblem p = truth;
  for (double& v : p.model.vp) v = 0.97 * v + 40.0;
  for (double& r : p.model.rho) r = 1.05 * r - 30.0;
  const Gradients grad = vd_gradient(p, observed, storage);
  EXPECT_NEAR(grad.misfit, test::misfit(p, observed), 1e-12 * grad.misfit);
  for (int param = 0; param < 2; ++param) {
    const std::vector<double> dm = smooth_bumps(p.model.grid, 11 + param);
    const std::vector<double>& gm = param == 0 ? grad.vp : grad.rho;
    double directional = 0;
    for (std::size_t i = 0; i < dm.size(); ++i) directional += gm[i] * dm[i];
    // Central differences err by O(eps^2): with vp eps = 1 m/s the order-8 cases miss 1e-5 by
    // truncation alone (1.5e-5; 2.4e-7 at 0.125 m/s), so vp steps 0.25 m/s, rho 1 kg/m^3.
    const double eps = param == 0 ? 0.25 : 1.0;
    ForwardProblem plus = p, minus = p;
    auto& mp = param == 0 ? plus.model.vp : plus.model.rho;
    auto& mm = param == 0 ? minus.model.vp : minus.model.rho;
    for (std::size_t i = 0; i < dm.size(); ++i) mp[i] += eps * dm[i], mm[i] -= eps * dm[i];
    const double fd = (test::misfit(plus, observed) - test::misfit(minus, observed)) / (2 * eps);
    EXPECT_LT(std::abs(fd - directional) / std::abs(fd), 1e-5)
        << (param == 0 ? "vp" : "rho") << ": finite difference " << fd << ", adjoint "
        << directional;
  }
}

TEST(VariableDensity, GradientsMatchFiniteDifferencesOrder8Full) {
  expect_vd_gradients(vd_problem(8, false), Storage::full);
}
TEST(VariableDensity, GradientsMatchFiniteDifferencesOrder8Boundary) {
  expect_vd_gradients(vd_problem(8, false), Storage::boundary);
}
TEST(VariableDensity, GradientsMatchFiniteDifferencesOrder4FreeSurfaceCheckpoint) {
  expect_vd_gradients(vd_problem(4, true), Storage::checkpoint);
}
TEST(VariableDensity, GradientsMatchFiniteDifferencesOrder6FreeSurfaceBoundary) {
  expect_vd_gradients(vd_problem(6, true), Storage::boundary);
}
TEST(VariableDensity, GradientsMatchFiniteDifferencesOffGridFreeSurfaceBoundary) {
  expect_vd_gradients(vd_problem(8, true, false, true), Storage::boundary);
}
TEST(VariableDensity, GradientsMatchFiniteDifferences3DBoundary) {
  expect_vd_gradients(vd_problem(8, false, true), Storage::boundary);
}

}  // namespace
}  // namespace pwave
