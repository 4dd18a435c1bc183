// The elastic equation on the framework (propagation/elastic_propagator.*), through the
// Propagator<T> front as every task uses it: a fluid (vs = 0) gives the variable-density acoustic
// traces; sources and receivers on the staggered points give the kernels' own results (the test
// driver of tests/physics, which the kernels' analytic tests validate); the gradient from
// checkpoints equals the test driver's (which keeps every state) and central finite
// differences of the misfit.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "physics/elastic_adjoint_fixture.hpp"
#include "pwave/acquisition/wavelet.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/propagator.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

namespace fx = test::elastic;

double relative_l2(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

/// A 2D elastic problem: nz x nx cells of h, a layer below row `interface_row` (vp, vs, rho
/// changed), CPML `width` on every side, one shot.
ForwardProblem layered(int nz, int nx, double h, double dt, int nt, int order, int width,
                       int interface_row, double vs_top) {
  ForwardProblem p = test::homogeneous_problem(nz, nx, h, 2000.0, dt, nt, 15.0, order, width);
  p.equation = physics::Equation::elastic;
  const std::size_t n = std::size_t(nz) * nx;
  p.model.vs.assign(n, vs_top);
  p.model.rho.assign(n, 1800.0);
  for (int iz = interface_row; iz < nz; ++iz) {
    for (int ix = 0; ix < nx; ++ix) {
      const std::size_t c = std::size_t(iz) * nx + ix;
      p.model.vp[c] = 2600.0;
      p.model.vs[c] = vs_top > 0 ? 1400.0 : 0.0;
      p.model.rho[c] = 2100.0 + 3.0 * ix;
    }
  }
  return p;
}

std::vector<double> flat(const HostArray3<double>& t, int shot = 0) {
  std::vector<double> out;
  for (std::size_t r = 0; r < t.extent(1); ++r)
    for (std::size_t n = 0; n < t.extent(2); ++n) out.push_back(t(shot, r, n));
  return out;
}

// A fluid: the pressure source scaled by vp^2 at its cell, the pressure recorded as
// -tr(sigma)/2, is the variable-density acoustic propagator's source and trace; off-grid
// positions take the same Hicks taps.
TEST(ElasticPropagator, FluidGivesTheVariableDensityAcousticTraces) {
  ForwardProblem p = layered(81, 101, 10.0, 0.001, 500, 8, 20, 50, 0.0);
  ShotGeometry shot;
  shot.source = {503.0, 301.5};
  for (int k = 0; k < 9; ++k) shot.receivers.push_back({100.0 + 100.0 * k + 3.3, 150.0 + 40 * k});
  p.shots = {shot, shot};
  p.shots[1].source = {300.0, 200.0};
  p.boundary.pml_velocity = 2600.0;
  ForwardProblem acoustic = p;
  acoustic.equation = physics::Equation::acoustic_variable_density;
  acoustic.model.vs.clear();
  const auto a = forward_model<double>(acoustic);
  const auto e = forward_model<double>(p);
  for (int s = 0; s < 2; ++s) {
    const double error = relative_l2(flat(e, s), flat(a, s));
    std::printf("shot %d: fluid elastic against variable-density acoustic: %.2e\n", s, error);
    EXPECT_LT(error, 1e-11);
  }
}

/// The test driver's model and run of `p` (2D, its CPML width on every side, one shot with its
/// source and receivers on the kernels' points).
fx::Model driver_model(const ForwardProblem& p) {
  const Grid& g = p.model.grid;
  fx::Model m;
  m.nz = g.nz, m.nx = g.nx, m.ny = g.ny, m.h = g.dx;
  m.vp = p.model.vp, m.vs = p.model.vs, m.rho = p.model.rho;
  return m;
}

struct Receiver {
  int iz, ix;
  Component component;
};
struct Points {
  int source_z, source_x;
  std::vector<Receiver> receivers;
};

/// Where component c of cell (iz, ix) lives (metres): the cell for the pressure, half a cell
/// further along the velocity's axis.
Position point_of(int iz, int ix, Component c, double h) {
  return {(ix + (c == Component::vx ? 0.5 : 0.0)) * h, (iz + (c == Component::vz ? 0.5 : 0.0)) * h};
}

/// `p` with one shot: a force_z source at the vz point of cell (zs, xs), each receiver at the
/// point of its component in its cell.
ForwardProblem with_points(ForwardProblem p, const Points& pts) {
  const double h = p.model.grid.dx;
  p.source_type = SourceType::force_z;
  ShotGeometry shot;
  shot.source = point_of(pts.source_z, pts.source_x, Component::vz, h);
  for (const Receiver& r : pts.receivers) {
    shot.receivers.push_back(point_of(r.iz, r.ix, r.component, h));
    shot.components.push_back(r.component);
  }
  p.shots = {shot};
  return p;
}

fx::Component driver_component(Component c) {
  return c == Component::vx   ? fx::Component::vx
         : c == Component::vy ? fx::Component::vy
         : c == Component::vz ? fx::Component::vz
                              : fx::Component::pressure;
}

fx::Simulation driver_run(const ForwardProblem& p, const Points& pts) {
  fx::Simulation r;
  r.order = p.order, r.width = p.boundary.width[top], r.nt = p.nt, r.dt = p.dt;
  r.pml_frequency = p.peak_frequency, r.pml_velocity = p.boundary.pml_velocity;
  r.reflection = p.boundary.reflection;
  r.source = {fx::SourceKind::force_z, pts.source_z, pts.source_x, p.wavelet};
  for (const Receiver& c : pts.receivers)
    r.receivers.push_back({driver_component(c.component), c.iz, c.ix});
  return r;
}

/// Receivers of every 2D component, two of them on one cell.
std::vector<Receiver> mixed(const std::vector<std::pair<int, int>>& cells) {
  const Component order[] = {Component::vz, Component::vx, Component::pressure};
  std::vector<Receiver> out;
  for (std::size_t k = 0; k < cells.size(); ++k)
    out.push_back({cells[k].first, cells[k].second, order[k % 3]});
  out.push_back({cells[0].first, cells[0].second, Component::vx});
  return out;
}

// Sources and receivers placed on their components' points act on those points alone (the stagger
// of point_taps), so the traces are the test driver's, whose kernels the analytic tests check.
TEST(ElasticPropagator, StaggeredPointsGiveTheKernelsTraces) {
  ForwardProblem p = layered(61, 81, 10.0, 0.001, 400, 4, 15, 40, 1100.0);
  p.boundary.pml_velocity = 2600.0;
  const Points pts{20, 30, mixed({{10, 10}, {30, 60}, {50, 40}, {5, 75}})};
  p = with_points(p, pts);
  const auto e = forward_model<double>(p);
  const auto ref = fx::run<double>(driver_model(p), driver_run(p, pts));
  std::vector<double> b;
  for (const auto& t : ref) b.insert(b.end(), t.begin(), t.end());
  const double error = relative_l2(flat(e), b);
  std::printf("elastic propagator against the kernels' driver (vx, vz, p; force_z): %.2e\n", error);
  EXPECT_LT(error, 1e-13);
}

/// J = 0.5 |d(model) - o|^2 and its gradients through the Propagator front with `storage` (J
/// alone without).
struct Gradients {
  double misfit = 0;
  std::vector<double> vp, vs, rho;
};

StorageOptions checkpoints_every(int interval) {
  StorageOptions o(Storage::checkpoint);
  o.interval = interval;
  return o;
}

/// In precision T (float64 by default); the misfit summed in float64.
template <class T = double>
Gradients gradients(const ForwardProblem& p, const HostArray3<double>& observed,
                    std::optional<StorageOptions> storage) {
  auto prop = make_propagator<T>(p);
  const int nrec = prop->max_receivers();
  Traces<T> traces("traces", 1, nrec, p.nt);
  const auto history =
      storage ? prop->make_history(1, *storage) : typename Propagator<T>::History();
  prop->forward({0}, traces, {}, 0, 0, history);
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), traces);
  Gradients out;
  for (int r = 0; r < nrec; ++r) {
    for (int n = 0; n < p.nt; ++n) {
      const double d = double(h(0, r, n)) - observed(0, r, n);
      out.misfit += 0.5 * d * d;
      h(0, r, n) = T(d);
    }
  }
  if (!storage) return out;
  Traces<T> residual("residual", 1, nrec, p.nt);
  Kokkos::deep_copy(residual, h);
  prop->adjoint_per_shot({0}, residual, history);
  GridView<T> imaging("imaging", prop->imaging_rows(), prop->padded_plane());
  Kokkos::deep_copy(imaging, Kokkos::subview(prop->shot_imaging(), 0, Kokkos::ALL, Kokkos::ALL));
  const Grid& g = p.model.grid;
  ParameterGrids<T> grads;
  for (physics::Parameter q :
       {physics::Parameter::vp, physics::Parameter::vs, physics::Parameter::rho}) {
    grads[q] = GridView<T>("grad", g.nz, g.ny * g.nx);
  }
  prop->model_gradients(imaging, grads);
  const auto host = [&](physics::Parameter q) {
    auto a = Kokkos::create_mirror_view_and_copy(HostSpace(), grads[q]);
    return std::vector<double>(a.data(), a.data() + a.size());
  };
  out.vp = host(physics::Parameter::vp);
  out.vs = host(physics::Parameter::vs);
  out.rho = host(physics::Parameter::rho);
  return out;
}

/// `p` with a free surface at the top (no CPML there) and the CPML velocity of its layers.
ForwardProblem with_free_surface(ForwardProblem p) {
  p.boundary.pml_velocity = 2600.0;
  p.boundary.free_surface = true;
  p.boundary.width[top] = 0;
  return p;
}

/// The "true" model of the gradient tests: vp 3 % faster, vs 3 % slower, rho 2 % denser.
ForwardProblem perturbed(ForwardProblem p) {
  for (std::size_t c = 0; c < p.model.vp.size(); ++c) {
    p.model.vp[c] *= 1.03, p.model.vs[c] *= 0.97, p.model.rho[c] *= 1.02;
  }
  return p;
}

/// `full` against `checkpoint` gradients: the same bits.
void expect_same_bits(const Gradients& full, const Gradients& g) {
  EXPECT_EQ(full.misfit, g.misfit);
  EXPECT_EQ(full.vp, g.vp);
  EXPECT_EQ(full.vs, g.vs);
  EXPECT_EQ(full.rho, g.rho);
}

/// `boundary` gradients (the interior rebuilt backwards in time, so the same to rounding) against
/// `full` ones: the same misfit bits (the forward run is the same) and gradients within `tol`
/// (relative L2).
void expect_close_to_full(const Gradients& boundary, const Gradients& full, double tol) {
  EXPECT_EQ(boundary.misfit, full.misfit);
  const double evp = relative_l2(boundary.vp, full.vp), evs = relative_l2(boundary.vs, full.vs),
               erho = relative_l2(boundary.rho, full.rho);
  std::printf("boundary gradients against full's: vp %.2e, vs %.2e, rho %.2e\n", evp, evs, erho);
  EXPECT_LT(evp, tol);
  EXPECT_LT(evs, tol);
  EXPECT_LT(erho, tol);
}

/// The gradients g of p's misfit against central differences (step 1e-3 of the value) of vp,
/// vs and rho at each (iz, ix) of `cells`, to 2e-5.
void expect_finite_differences(const ForwardProblem& p, const HostArray3<double>& observed,
                               const Gradients& g, const std::vector<std::pair<int, int>>& cells) {
  const int nx = p.model.grid.nx;
  for (const auto& [iz, ix] : cells) {
    const std::size_t c = std::size_t(iz) * nx + ix;
    for (physics::Parameter q :
         {physics::Parameter::vp, physics::Parameter::vs, physics::Parameter::rho}) {
      const double base = p.model.values(q)[c], step = 1e-3 * base;
      const auto misfit = [&](double v) {
        ForwardProblem m = p;
        m.model.values(q)[c] = v;
        return gradients(m, observed, std::nullopt).misfit;
      };
      const double fd = (misfit(base + step) - misfit(base - step)) / (2 * step);
      const double adj = (q == physics::Parameter::vp   ? g.vp
                          : q == physics::Parameter::vs ? g.vs
                                                        : g.rho)[c];
      std::printf("  d J / d %s at (%d, %d): adjoint %.9e, central difference %.9e\n",
                  physics::name(q), iz, ix, adj, fd);
      EXPECT_NEAR(adj, fd, 2e-5 * std::abs(fd) + 1e-30)
          << physics::name(q) << " " << iz << " " << ix;
    }
  }
}

// The checkpointed backward run (segments recomputed, 7 steps apart so that the last is short)
// gives the test driver's gradients (and `full` storage the same bits), which keep every state, for
// vp, vs and rho at every cell; and central differences of J at cells near the source, a receiver,
// the interface and the top CPML. Receivers of vx, vz and p, two on one cell.
TEST(ElasticPropagator, CheckpointGradientsMatchTheDriverAndFiniteDifferences) {
  ForwardProblem p = layered(41, 51, 10.0, 0.001, 250, 4, 10, 25, 1100.0);
  p.boundary.pml_velocity = 2600.0;
  const Points pts{12, 20, mixed({{8, 5}, {30, 40}, {20, 30}, {3, 45}})};
  p = with_points(p, pts);
  const auto observed = forward_model<double>(perturbed(p));
  const Gradients g = gradients(p, observed, checkpoints_every(7));

  // The driver: residuals [receiver][n].
  auto syn = forward_model<double>(p);
  std::vector<std::vector<double>> residual(pts.receivers.size(), std::vector<double>(p.nt));
  for (std::size_t r = 0; r < residual.size(); ++r)
    for (int n = 0; n < p.nt; ++n) residual[r][n] = syn(0, r, n) - observed(0, r, n);
  const auto ref = fx::adjoint<double>(driver_model(p), driver_run(p, pts), residual);
  const double evp = relative_l2(g.vp, ref.vp), evs = relative_l2(g.vs, ref.vs),
               erho = relative_l2(g.rho, ref.rho);
  std::printf("checkpoint gradients against the driver's: vp %.2e, vs %.2e, rho %.2e\n", evp, evs,
              erho);
  EXPECT_LT(evp, 1e-12);
  EXPECT_LT(evs, 1e-12);
  EXPECT_LT(erho, 1e-12);
  // `full` storage (every state kept, nothing recomputed) gives the same bits, `boundary` the
  // same to rounding.
  expect_same_bits(gradients(p, observed, StorageOptions(Storage::full)), g);
  expect_close_to_full(gradients(p, observed, StorageOptions(Storage::boundary)), g,
                       4e-15);  // measured 3.8e-16 - 8.9e-16
  expect_finite_differences(p, observed, g, {{12, 21}, {24, 30}, {26, 10}, {4, 18}, {30, 39}});
}

/// 30 x 41 cells of 10 m, 220 steps, order 4, a free surface, an explosive source off the grid
/// points near it, four receivers (vz, vx, `third`, vz; the last one 23 m deep).
ForwardProblem explosion_under_a_free_surface(Component third) {
  ForwardProblem p = with_free_surface(layered(30, 41, 10.0, 0.001, 220, 4, 10, 12, 1100.0));
  p.source_type = SourceType::pressure;
  ShotGeometry shot;
  shot.source = {123.0, 14.0};
  for (int k = 0; k < 4; ++k) {
    shot.receivers.push_back({180.0 + 50.0 * k, k == 3 ? 23.0 : 0.0});
    shot.components.push_back(k == 1 ? Component::vx : k == 2 ? third : Component::vz);
  }
  p.shots = {shot};
  return p;
}

// A free surface (no CPML at the top), sources and receivers near it (off the grid points:
// the taps above the surface left out and the others renormalised). `checkpoint` and `full`
// give the same bits; central differences of J at the surface row (lambda' there), the rows
// whose stencils reach the images, and a deeper cell.
TEST(ElasticPropagator, FreeSurfaceGradientsMatchFiniteDifferences) {
  const ForwardProblem p = explosion_under_a_free_surface(Component::pressure);
  const auto observed = forward_model<double>(perturbed(p));
  const Gradients g = gradients(p, observed, checkpoints_every(6));
  expect_same_bits(gradients(p, observed, StorageOptions(Storage::full)), g);
  expect_close_to_full(gradients(p, observed, StorageOptions(Storage::boundary)), g,
                       4e-15);  // measured 3.8e-16 - 8.9e-16
  expect_finite_differences(p, observed, g, {{0, 15}, {0, 22}, {1, 18}, {2, 25}, {8, 20}});
}

/// `full` storage with a stride or compression.
StorageOptions sampled(int stride, Compression compression) {
  StorageOptions o(Storage::full);
  o.stride = stride;
  o.compression = compression;
  return o;
}

/// The largest relative L2 difference of the vp, vs and rho gradients of `a` from `exact`'s,
/// printed with `what`; the misfit must be the same bits (the forward run does not change).
double gradient_error(const char* what, const Gradients& a, const Gradients& exact) {
  EXPECT_EQ(a.misfit, exact.misfit) << what;
  const double evp = relative_l2(a.vp, exact.vp), evs = relative_l2(a.vs, exact.vs),
               erho = relative_l2(a.rho, exact.rho);
  std::printf("%-16s against exact full: vp %.2e, vs %.2e, rho %.2e\n", what, evp, evs, erho);
  return std::max({evp, evs, erho});
}

// `full` storage with a stride or compression: what every stride-th step's imaging reads (the
// stresses before it, the velocities after it; bf16 or int8), imaged times the stride. A free
// surface (its images are in the fields kept), an explosive source near it, receivers of vz and
// vx, 220 steps (not a multiple of 3 or 4: a short last stride). The errors grow with the
// stride and the coarser format, and stay near what they were measured at.
TEST(ElasticPropagator, SampledFullGradientsApproximateTheExactOnes) {
  const ForwardProblem p = explosion_under_a_free_surface(Component::vz);
  const auto observed = forward_model<double>(perturbed(p));
  const Gradients exact = gradients(p, observed, StorageOptions(Storage::full));
  const auto error = [&](const char* what, int stride, Compression c) {
    return gradient_error(what, gradients(p, observed, sampled(stride, c)), exact);
  };
  const double bf16 = error("bf16", 1, Compression::bf16);
  const double int8 = error("int8", 1, Compression::int8);
  const double stride2 = error("stride 2", 2, Compression::none);
  const double stride3 = error("stride 3", 3, Compression::none);
  const double stride4_int8 = error("stride 4 + int8", 4, Compression::int8);
  EXPECT_GT(bf16, 0.0);  // an approximation: 0 would mean the exact path ran
  // Measured (the largest of vp, vs, rho; rho's each time): bf16 1.5e-3, int8 9.9e-3, stride 2
  // 6.6e-5, stride 3 1.8e-4, stride 4 + int8 1.75e-2. Unweighted strides would be off by ~0.5.
  EXPECT_LT(bf16, 3e-3);
  EXPECT_LT(int8, 2e-2);
  EXPECT_LT(stride2, 1.5e-4);
  EXPECT_LT(stride3, 4e-4);
  EXPECT_LT(stride2, stride3);
  EXPECT_LT(stride4_int8, 3.5e-2);
}

// With a free surface too, sources and receivers on their components' points give the test
// driver's traces (whose surface tests/physics/test_elastic_free_surface.cpp checks against
// Lamb's problem): receivers on the surface row and just below it.
TEST(ElasticPropagator, FreeSurfaceGivesTheKernelsTraces) {
  ForwardProblem p = with_free_surface(layered(41, 61, 10.0, 0.001, 300, 8, 12, 20, 1100.0));
  const Points pts{1, 20, mixed({{0, 10}, {0, 30}, {2, 40}, {5, 55}})};
  p = with_points(p, pts);
  fx::Simulation r = driver_run(p, pts);
  r.width = p.boundary.width[bottom], r.free_surface = true;
  const auto e = forward_model<double>(p);
  const auto ref = fx::run<double>(driver_model(p), r);
  std::vector<double> b;
  for (const auto& t : ref) b.insert(b.end(), t.begin(), t.end());
  const double error = relative_l2(flat(e), b);
  std::printf("free surface: elastic propagator against the kernels' driver: %.2e\n", error);
  EXPECT_LT(error, 1e-13);
}

/// The relative L2 difference between p's traces (a fluid: vs = 0, one shot) and those of the
/// variable-density acoustic equation on the same problem.
double fluid_against_acoustic(const ForwardProblem& p) {
  ForwardProblem acoustic = p;
  acoustic.equation = physics::Equation::acoustic_variable_density;
  acoustic.model.vs.clear();
  return relative_l2(flat(forward_model<double>(p)), flat(forward_model<double>(acoustic)));
}

// A fluid under a free surface is the variable-density acoustic equation under its own (the
// pressure odd about the surface, its vertical gradient even: the elastic surface's szz images
// and mirrored vz): the same traces, sources and receivers on grid points.
TEST(ElasticPropagator, FluidUnderAFreeSurfaceGivesTheAcousticTraces) {
  ForwardProblem p = with_free_surface(layered(61, 81, 10.0, 0.001, 400, 8, 15, 30, 0.0));
  ShotGeometry shot;
  shot.source = {400.0, 20.0};
  for (int k = 0; k < 7; ++k) shot.receivers.push_back({100.0 + 100.0 * k, 10.0 * (k % 3 + 1)});
  p.shots = {shot};
  const double error = fluid_against_acoustic(p);
  std::printf("free surface: fluid elastic against variable-density acoustic: %.2e\n", error);
  EXPECT_LT(error, 1e-11);
}

/// `p` made 3D: ny cells of h along y, the same layers, CPML `width` on the y sides too.
ForwardProblem in_3d(const ForwardProblem& p2, int ny, int width) {
  const Grid& g2 = p2.model.grid;
  ForwardProblem p = test::homogeneous_problem_3d(g2.nz, ny, g2.nx, g2.dx, 2000.0, p2.dt, p2.nt,
                                                  p2.peak_frequency, p2.order, width);
  p.equation = p2.equation;
  p.boundary.pml_velocity = p2.boundary.pml_velocity;
  for (auto* v : {&p.model.vp, &p.model.vs, &p.model.rho}) v->clear();
  for (int iz = 0; iz < g2.nz; ++iz) {
    for (int iy = 0; iy < ny; ++iy) {
      for (int ix = 0; ix < g2.nx; ++ix) {
        const std::size_t c = std::size_t(iz) * g2.nx + ix;
        p.model.vp.push_back(p2.model.vp[c] + 2.0 * iy);
        p.model.vs.push_back(p2.model.vs[c]);
        p.model.rho.push_back(p2.model.rho[c]);
      }
    }
  }
  return p;
}

TEST(ElasticPropagator, FluidGivesTheVariableDensityAcousticTraces3D) {
  ForwardProblem p = in_3d(layered(31, 35, 10.0, 0.001, 200, 4, 8, 18, 0.0), 27, 8);
  ShotGeometry shot;
  shot.source = {173.0, 101.5, 130.0};  // on a y grid point: the source cells share one vp
  for (int k = 0; k < 5; ++k)
    shot.receivers.push_back({60.0 + 50.0 * k, 40.0 + 45 * k, 55.0 + 30 * k});
  p.shots = {shot};
  const double error = fluid_against_acoustic(p);
  std::printf("3D fluid elastic against variable-density acoustic: %.2e\n", error);
  EXPECT_LT(error, 1e-11);
}

// 3D: a vy receiver set and an x force, on their own points; the checkpointed gradients equal
// the driver's.
TEST(ElasticPropagator, CheckpointGradientsMatchTheDriver3D) {
  ForwardProblem p = in_3d(layered(21, 23, 10.0, 0.001, 90, 2, 6, 12, 1100.0), 19, 6);
  const double h = 10.0;
  p.source_type = SourceType::force_x;
  const int zs = 8, ys = 9, xs = 11;
  ShotGeometry shot;
  shot.source = {(xs + 0.5) * h, zs * h, ys * h};
  const int cells[][3] = {{3, 4, 5}, {15, 12, 17}, {10, 9, 3}};  // (iz, iy, ix)
  for (const auto& c : cells) {
    shot.receivers.push_back({c[2] * h, c[0] * h, (c[1] + 0.5) * h});
    shot.components.push_back(Component::vy);
  }
  p.shots = {shot};
  ForwardProblem truth = p;
  for (std::size_t c = 0; c < truth.model.vp.size(); ++c) {
    truth.model.vs[c] *= 0.96, truth.model.rho[c] *= 1.02;
  }
  const auto observed = forward_model<double>(truth);
  const Gradients g = gradients(p, observed, checkpoints_every(11));

  fx::Simulation r;
  r.order = p.order, r.width = 6, r.nt = p.nt, r.dt = p.dt, r.pml_frequency = p.peak_frequency;
  r.pml_velocity = p.boundary.pml_velocity, r.reflection = p.boundary.reflection;
  r.source = {fx::SourceKind::force_x, zs, xs, p.wavelet, ys};
  for (const auto& c : cells) r.receivers.push_back({fx::Component::vy, c[0], c[2], c[1]});
  const auto syn = forward_model<double>(p);
  std::vector<std::vector<double>> residual(3, std::vector<double>(p.nt));
  for (int k = 0; k < 3; ++k)
    for (int n = 0; n < p.nt; ++n) residual[k][n] = syn(0, k, n) - observed(0, k, n);
  const auto ref = fx::adjoint<double>(driver_model(p), r, residual);
  const double evp = relative_l2(g.vp, ref.vp), evs = relative_l2(g.vs, ref.vs),
               erho = relative_l2(g.rho, ref.rho);
  std::printf("3D checkpoint gradients against the driver's: vp %.2e, vs %.2e, rho %.2e\n", evp,
              evs, erho);
  EXPECT_LT(evp, 1e-12);
  EXPECT_LT(evs, 1e-12);
  EXPECT_LT(erho, 1e-12);
  const Gradients full = gradients(p, observed, StorageOptions(Storage::full));
  EXPECT_EQ(full.vp, g.vp);
  EXPECT_EQ(full.vs, g.vs);
  EXPECT_EQ(full.rho, g.rho);
  expect_close_to_full(gradients(p, observed, StorageOptions(Storage::boundary)), full,
                       2e-13);  // measured 4.1e-14 - 4.5e-14
  // Every other step's states, and every step's in bfloat16.
  const double stride2 =
      gradient_error("3D stride 2", gradients(p, observed, sampled(2, Compression::none)), full);
  const double bf16 =
      gradient_error("3D bf16", gradients(p, observed, sampled(1, Compression::bf16)), full);
  // Measured: stride 2 3.3e-2 (a short run at order 2; 2D's above is 6.6e-5), bf16 1.7e-3.
  EXPECT_GT(bf16, 0.0);
  EXPECT_LT(stride2, 6e-2);
  EXPECT_LT(bf16, 3.5e-3);
}

// float32 runs, and its traces stay within single precision's rounding of float64's.
TEST(ElasticPropagator, SinglePrecisionFollowsDouble) {
  ForwardProblem p = layered(61, 81, 10.0, 0.001, 400, 8, 15, 40, 1100.0);
  p.boundary.pml_velocity = 2600.0;
  p = with_points(p, Points{20, 30, mixed({{10, 10}, {30, 60}, {50, 40}})});
  p.source_type = SourceType::pressure;
  const auto d = forward_model<double>(p);
  const auto f = forward_model<float>(p);
  std::vector<double> a, b;
  for (std::size_t r = 0; r < d.extent(1); ++r) {
    for (std::size_t n = 0; n < d.extent(2); ++n) a.push_back(f(0, r, n)), b.push_back(d(0, r, n));
  }
  const double error = relative_l2(a, b);
  std::printf("float32 against float64 (pressure source and receivers): %.2e\n", error);
  EXPECT_LT(error, 1.5e-6);  // measured 5.7e-7 - 6.0e-7
}

// float32 `boundary` gradients: the interior run backwards over 600 steps in single precision
// (a free surface, an explosive source near it, receivers of p, vx and vz) stays within single
// precision's rounding of the `full` gradients, which keep every state.
TEST(ElasticPropagator, SinglePrecisionBoundaryFollowsFull) {
  ForwardProblem p = with_free_surface(layered(81, 121, 10.0, 0.001, 600, 8, 15, 40, 1100.0));
  p.source_type = SourceType::pressure;
  ShotGeometry shot;
  shot.source = {405.0, 30.0};
  for (int k = 0; k < 12; ++k) {
    shot.receivers.push_back({100.0 + 90.0 * k, k % 3 == 0 ? 0.0 : 15.0});
    shot.components.push_back(k % 3 == 0   ? Component::vz
                              : k % 3 == 1 ? Component::vx
                                           : Component::pressure);
  }
  p.shots = {shot};
  const auto observed = forward_model<double>(perturbed(p));
  const Gradients full = gradients<float>(p, observed, StorageOptions(Storage::full));
  const Gradients boundary = gradients<float>(p, observed, StorageOptions(Storage::boundary));
  expect_close_to_full(boundary, full, 1.5e-6);  // measured 1.9e-7 - 4.1e-7
}

// Reciprocity: a vertical force at A recorded as vz at B equals the force at B recorded at A,
// in a heterogeneous model (a layer, a lateral density gradient), both points on vz points.
TEST(ElasticPropagator, ForceToVelocityIsReciprocal) {
  ForwardProblem p = layered(61, 81, 10.0, 0.001, 500, 8, 15, 40, 1100.0);
  p.boundary.pml_velocity = 2600.0;
  const Points ab{15, 20, {{47, 62, Component::vz}}};
  const Points ba{47, 62, {{15, 20, Component::vz}}};
  const auto gab = forward_model<double>(with_points(p, ab));
  const auto gba = forward_model<double>(with_points(p, ba));
  const double error = relative_l2(flat(gab), flat(gba));
  std::printf("reciprocity, force_z -> vz across a layer: %.2e\n", error);
  EXPECT_LT(error, 1e-12);
}

}  // namespace
}  // namespace pwave
