// The elastic kernels (physics/elastic) without the propagator, through tests/physics/
// elastic_fixture.hpp: against the analytic 2D Green's function of a line force, the order of
// convergence, a fluid (vs = 0) against the variable-density acoustic equation, the CPML's
// reflection, and the CFL limit. float64 throughout.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "physics/elastic_fixture.hpp"
#include "pwave/acquisition/wavelet.hpp"
#include "pwave/physics/elastic/kernels.hpp"
#include "pwave/physics/elastic/material.hpp"
#include "pwave/physics/elastic/physics.hpp"
#include "pwave/physics/elastic/stability.hpp"
#include "pwave/propagation/forward.hpp"
#include "support/analytic.hpp"
#include "support/problems.hpp"

namespace pwave {
namespace {

using test::elastic::Component;
using test::elastic::Model;
using test::elastic::Receiver;
using test::elastic::Simulation;
using test::elastic::SourceKind;

// ---------------------------------------------------------------------------------------------
// The analytic solution. A line force f(t) e_j at the origin of a homogeneous plane-strain
// medium: rho u_tt = (lambda + 2 mu) grad div u - mu curl curl u + f(t) e_j delta(x). With
// u = U(omega) e^{i omega t}, the displacement per unit force is the Stokes form of the Green's
// tensor (Aki & Richards 2002, eq. 4.23, in the frequency domain; in 2D e.g. Kausel 2006,
// "Fundamental Solutions in Elastodynamics", the line load in a full plane):
//   G_ij = [k_s^2 g_s delta_ij + d_i d_j (g_s - g_p)] / (rho omega^2)
// with g_c = H0^(2)(k_c r) / (4 i) the outgoing solution of (lap + k_c^2) g_c = -delta,
// k_c = omega / v_c. (Checked by substitution: div G = g_p,j / (lambda + 2 mu) and the
// delta terms of lap g_s and lap g_p cancel in d_i d_j (g_s - g_p).) For a radial g(r) = C
// H0(k r), gamma = x / r:
//   d_i d_j g = C [-k^2 H0(k r) gamma_i gamma_j + (k H1(k r) / r) (2 gamma_i gamma_j - delta_ij)].
// The velocity is i omega G_ij F(omega), F the force's spectrum, back in time by a direct DFT
// over the wavelet's band (v real: v(t) = (1/pi) Re int_0^inf V(omega) e^{i omega t} d omega).

using Complex = std::complex<double>;

Complex hankel2(int n, double x) {
  return Complex(std::cyl_bessel_j(double(n), x), -std::cyl_neumann(double(n), x));
}

struct Medium {
  double vp, vs, rho;
};

/// d_i d_j of H0^(2)(k r) / (4 i) at offset (x[0], x[1]) = (dx, dz).
Complex hessian(int i, int j, const double* x, double r, double k) {
  const Complex c(0.0, -0.25);  // 1 / (4 i)
  const double gi = x[i] / r, gj = x[j] / r, d = i == j ? 1.0 : 0.0;
  return c * (-k * k * hankel2(0, k * r) * gi * gj + k * hankel2(1, k * r) / r * (2 * gi * gj - d));
}

/// G_ij(omega): displacement along i at offset (dx, dz) per unit line force along j (0 = x, 1 = z).
Complex green(const Medium& m, int i, int j, double dx, double dz, double omega) {
  const double x[2] = {dx, dz}, r = std::hypot(dx, dz);
  const double kp = omega / m.vp, ks = omega / m.vs;
  const Complex gs = Complex(0.0, -0.25) * hankel2(0, ks * r);
  return ((i == j ? ks * ks * gs : Complex(0)) + hessian(i, j, x, r, ks) -
          hessian(i, j, x, r, kp)) /
         (m.rho * omega * omega);
}

/// Spectrum of the Ricker wavelet of peak f delayed by t0: with s = pi f,
/// r(t) = -(1 / (2 s^2)) d^2/dt^2 exp(-s^2 t^2), so R(omega) = omega^2 sqrt(pi) / (2 s^3)
/// exp(-omega^2 / (4 s^2)) e^{-i omega t0}.
Complex ricker_spectrum(double f, double t0, double omega) {
  const double s = M_PI * f;
  return omega * omega * std::sqrt(M_PI) / (2 * s * s * s) *
         std::exp(-omega * omega / (4 * s * s)) * std::exp(Complex(0.0, -omega * t0));
}

/// v_i(t_k) at offset (dx, dz) of a line force ricker(f, t0) e_j (N/m), at the times `t`.
std::vector<double> analytic_velocity(const Medium& m, int i, int j, double dx, double dz, double f,
                                      double t0, const std::vector<double>& t) {
  // Midpoint rule on [0, 6 f] (the Ricker spectrum is below 1e-15 of its peak beyond), 0.05 Hz
  // apart: the DFT's period, 20 s, is far beyond the traces.
  const double dw = 2 * M_PI * 0.05;
  const int nw = int(6 * f / 0.05);
  std::vector<double> v(t.size(), 0.0);
  for (int k = 0; k < nw; ++k) {
    const double w = (k + 0.5) * dw;
    const Complex a = Complex(0.0, w) * green(m, i, j, dx, dz, w) * ricker_spectrum(f, t0, w);
    for (std::size_t n = 0; n < t.size(); ++n)
      v[n] += std::real(a * std::exp(Complex(0.0, w * t[n])));
  }
  for (double& x : v) x *= dw / M_PI;
  return v;
}

// ---------------------------------------------------------------------------------------------
// A vertical line force in a homogeneous medium, receivers of vx and vz at several offsets and
// angles, against the analytic velocities.

constexpr Medium rock{2000.0, 1000.0, 2000.0};
constexpr double peak = 10.0, delay = 1.5 / peak;

struct Offset {
  int dz, dx;  ///< cells from the source cell
};
// 200-300 m from the source, at 0 (below), 90 (beside), 45, 150, 120, 270 and 225 degrees.
constexpr Offset offsets[] = {{40, 0},   {0, 40},  {28, 28},  {-36, 20},
                              {52, -30}, {0, -60}, {-42, -42}};

struct ForceErrors {
  std::vector<double> total;  ///< per receiver, vx and vz together
  std::vector<double> p_window, s_window;
  std::vector<double> p_energy, s_energy;  ///< share of the analytic energy in each window
};

/// Relative L2 of (vx, vz) together over the samples with t in [t0, t1).
double window_error(const std::vector<double>& nx, const std::vector<double>& ax,
                    const std::vector<double>& nz, const std::vector<double>& az,
                    const std::vector<double>& t, double t0, double t1, double* energy = nullptr) {
  double num = 0, den = 0, all = 0;
  for (std::size_t n = 0; n < t.size(); ++n) {
    all += ax[n] * ax[n] + az[n] * az[n];
    if (t[n] < t0 || t[n] >= t1) continue;
    num += (nx[n] - ax[n]) * (nx[n] - ax[n]) + (nz[n] - az[n]) * (nz[n] - az[n]);
    den += ax[n] * ax[n] + az[n] * az[n];
  }
  if (energy) *energy = den / all;
  return std::sqrt(num / den);
}

/// The model is (2 * half + 1)^2 cells of `h` with the source in the middle; offsets scaled
/// to keep the same metres at any h (h = 5 m is the reference).
ForceErrors force_errors(int order, double h, double dt, double t_end) {
  const double scale = 5.0 / h;
  const int half = int(std::lround(80 * scale)), n = 2 * half + 1,
            nt = int(std::lround(t_end / dt));
  const Model model = Model::homogeneous(n, n, h, rock.vp, rock.vs, rock.rho);
  Simulation run;
  run.order = order, run.width = 20, run.nt = nt, run.dt = dt, run.pml_frequency = peak;
  run.source = {SourceKind::force_z, half, half, ricker(peak, delay, dt, nt)};
  for (const Offset& o : offsets) {
    const int iz = half + int(std::lround(o.dz * scale)),
              ix = half + int(std::lround(o.dx * scale));
    run.receivers.push_back({Component::vx, iz, ix});
    run.receivers.push_back({Component::vz, iz, ix});
  }
  const auto traces = test::elastic::run<double>(model, run);

  // Velocities are sampled at t_{n-1/2}; the force acts at the source cell's vz point.
  std::vector<double> t(static_cast<std::size_t>(nt));
  for (int k = 0; k < nt; ++k) t[std::size_t(k)] = (k - 0.5) * dt;
  ForceErrors e;
  for (std::size_t r = 0; r < run.receivers.size(); r += 2) {
    const Receiver& q = run.receivers[r];
    const double zs = (half + 0.5) * h, xs = half * h;
    // vx at (iz, ix + 1/2), vz at (iz + 1/2, ix).
    const auto ax =
        analytic_velocity(rock, 0, 1, (q.ix + 0.5) * h - xs, q.iz * h - zs, peak, delay, t);
    const auto az =
        analytic_velocity(rock, 1, 1, q.ix * h - xs, (q.iz + 0.5) * h - zs, peak, delay, t);
    const auto& nx = traces[r];
    const auto& nz = traces[r + 1];
    e.total.push_back(window_error(nx, ax, nz, az, t, -1.0, 1e9));
    const double dist = std::hypot(q.ix * h - xs, (q.iz + 0.5) * h - zs);
    const double tp = delay + dist / rock.vp, ts = delay + dist / rock.vs, w = 0.5 / peak;
    double ep = 0, es = 0;
    e.p_window.push_back(window_error(nx, ax, nz, az, t, tp - w, tp + w, &ep));
    e.s_window.push_back(window_error(nx, ax, nz, az, t, ts - w, ts + w, &es));
    e.p_energy.push_back(ep);
    e.s_energy.push_back(es);
  }
  return e;
}

double worst(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

// State::imaged_after(k) names the fields of checkpointed() that step n's imaging reads from the
// state after the step (the velocities and their memory variables, strains_of) and no others:
// the sampled `full` history keeps those from the state after the step and the rest from the
// state before it.
TEST(ElasticState, ImagedAfterNamesTheVelocitiesAndTheirMemoryVariables) {
  using S = physics::elastic::State<double>;
  S st;
  const auto field = [](const std::string& name) { return Field<double>(name, 1, 1, 1); };
  st.vx = field("v"), st.vy = field("v"), st.vz = field("v");
  st.sxx = field("s"), st.syy = field("s"), st.szz = field("s");
  st.sxy = field("s"), st.sxz = field("s"), st.syz = field("s");
  for (auto& a : st.cpml) {
    for (int c = 0; c < 3; ++c) a.stress[c] = field("s"), a.velocity[c] = field("v");
  }
  const auto fields = st.checkpointed();
  for (int k = 0; k < int(fields.size()); ++k) {
    EXPECT_EQ(S::imaged_after(k), fields[std::size_t(k)].label() == "v") << k;
  }
}

TEST(ElasticKernels, LineForceMatchesTheAnalyticGreensFunction) {
  // 5 m cells: 20 points per S wavelength at the peak (10 Hz), 8 at 2.5 times it. Measured
  // 2.7e-4 - 5.4e-4 (growing with the distance), the time discretisation's: at dt = 0.5 ms it
  // is 7e-4 - 2.1e-3.
  const ForceErrors e = force_errors(8, 5.0, 0.00025, 0.6);
  for (std::size_t r = 0; r < e.total.size(); ++r) {
    std::printf(
        "receiver %zu: relative L2 %.2e (P window %.2e, %.0f%% of the energy; S window "
        "%.2e, %.0f%%)\n",
        r, e.total[r], e.p_window[r], 100 * e.p_energy[r], e.s_window[r], 100 * e.s_energy[r]);
    EXPECT_LT(e.total[r], 7e-4) << "receiver " << r;
    // The P and S arrivals each carry their share of the energy, and match where they are.
    if (e.p_energy[r] > 0.05) EXPECT_LT(e.p_window[r], 7e-4) << "P, receiver " << r;
    if (e.s_energy[r] > 0.05) EXPECT_LT(e.s_window[r], 7e-4) << "S, receiver " << r;
  }
  EXPECT_GT(e.p_energy[0], 0.5) << "below the source: mostly P";
  EXPECT_GT(e.s_energy[1], 0.5) << "beside the source: mostly S";
  EXPECT_GT(e.p_energy[2], 0.1) << "at 45 degrees: both";
  EXPECT_GT(e.s_energy[2], 0.1) << "at 45 degrees: both";
}

TEST(ElasticKernels, ErrorFallsAtTheSchemesOrder) {
  // Order 2: halving h (10 m -> 5 m, 10 -> 20 points per S wavelength at the peak) divides the
  // (dispersion-dominated) error by about 4.
  const ForceErrors coarse = force_errors(2, 10.0, 0.0005, 0.6);
  const ForceErrors fine = force_errors(2, 5.0, 0.0005, 0.6);
  const ForceErrors order8 = force_errors(8, 10.0, 0.0005, 0.6);
  for (std::size_t r = 0; r < coarse.total.size(); ++r) {
    std::printf(
        "receiver %zu: order 2 at 10 m %.3e, at 5 m %.3e (ratio %.2f); order 8 at 10 m "
        "%.3e\n",
        r, coarse.total[r], fine.total[r], coarse.total[r] / fine.total[r], order8.total[r]);
    EXPECT_GT(coarse.total[r] / fine.total[r], 3.2) << "receiver " << r;
    EXPECT_LT(coarse.total[r] / fine.total[r], 5.0) << "receiver " << r;
    EXPECT_LT(order8.total[r], 0.1 * coarse.total[r]) << "receiver " << r;
  }
}

// ---------------------------------------------------------------------------------------------
// 3D: a vertical point force against the Stokes solution (Aki & Richards 2002, eq. 4.23), its
// time derivative in closed form for a Ricker force f (F its antiderivative, F' = f):
//   v_ij = (3 g_i g_j - d_ij) / (4 pi rho r^3) [(r/a) f(t - r/a) - (r/b) f(t - r/b)
//                                              + F(t - r/a) - F(t - r/b)]
//        + g_i g_j / (4 pi rho a^2 r) f'(t - r/a) - (g_i g_j - d_ij) / (4 pi rho b^2 r) f'(t - r/b)
// (a = vp, b = vs, g = x / r, d the Kronecker delta; the first line is the derivative of the
// near-field term's int_{r/a}^{r/b} tau f(t - tau) d tau).

/// v_i(t) at offset d = (dx, dy, dz) of a point force ricker(f, t0) e_j (N), i, j: 0 x, 1 y, 2 z.
double analytic_velocity_3d(const Medium& m, int i, int j, const double* d, double f, double t0,
                            double t) {
  const double s = M_PI * f, r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  const auto w = [&](double tau) {  // f(tau), F(tau), f'(tau)
    const double a = s * (tau - t0), e = std::exp(-a * a);
    return std::array<double, 3>{(1 - 2 * a * a) * e, (tau - t0) * e,
                                 s * (4 * a * a * a - 6 * a) * e};
  };
  const double gi = d[i] / r, gj = d[j] / r, dij = i == j ? 1.0 : 0.0;
  const double tp = r / m.vp, ts = r / m.vs;
  const auto p = w(t - tp), q = w(t - ts);
  const double c = 1 / (4 * M_PI * m.rho);
  return c * (3 * gi * gj - dij) / (r * r * r) * (tp * p[0] - ts * q[0] + p[1] - q[1]) +
         c * gi * gj / (m.vp * m.vp * r) * p[2] - c * (gi * gj - dij) / (m.vs * m.vs * r) * q[2];
}

TEST(ElasticKernels, PointForceMatchesTheStokesSolutionIn3D) {
  // 31^3 cells of 10 m (10 points per S wavelength at the peak), an 8-cell CPML, order 8.
  // Measured 1.2e-3 - 3.7e-3 relative L2 (vx, vy, vz together).
  constexpr int n = 31, c = 15, nt = 360;
  constexpr double h = 10.0, dt = 0.001;
  const Model model = Model::homogeneous(n, n, h, rock.vp, rock.vs, rock.rho, n);
  Simulation run;
  run.order = 8, run.width = 8, run.nt = nt, run.dt = dt, run.pml_frequency = peak;
  run.source = {SourceKind::force_z, c, c, ricker(peak, delay, dt, nt), c};
  // 100 m below, along x, along y, and on two diagonals (cells from the source: z, y, x).
  const int offsets3[][3] = {{10, 0, 0}, {0, 0, 10}, {0, 10, 0}, {6, 6, 6}, {-7, 4, -6}};
  for (const auto& o : offsets3) {
    for (Component k : {Component::vx, Component::vy, Component::vz})
      run.receivers.push_back({k, c + o[0], c + o[2], c + o[1]});
  }
  const auto traces = test::elastic::run<double>(model, run);
  // Points (x, y, z) in metres: the force at the source cell's vz point; v_x at x + 1/2, v_y
  // at y + 1/2, v_z at z + 1/2 of the receiver's cell; velocities sampled at t_{n-1/2}.
  const double src[3] = {c * h, c * h, (c + 0.5) * h};
  for (std::size_t k = 0; k < std::size(offsets3); ++k) {
    double num = 0, den = 0;
    for (int i = 0; i < 3; ++i) {
      const Receiver& q = run.receivers[3 * k + std::size_t(i)];
      const double at[3] = {(q.ix + (i == 0 ? 0.5 : 0.0)) * h, (q.iy + (i == 1 ? 0.5 : 0.0)) * h,
                            (q.iz + (i == 2 ? 0.5 : 0.0)) * h};
      const double d[3] = {at[0] - src[0], at[1] - src[1], at[2] - src[2]};
      // The trace's components: vx, vy, vz in that order (Component order differs).
      const auto& num_trace = traces[3 * k + std::size_t(i)];
      for (int s = 0; s < nt; ++s) {
        const double a = analytic_velocity_3d(rock, i, 2, d, peak, delay, (s - 0.5) * dt);
        num += (num_trace[std::size_t(s)] - a) * (num_trace[std::size_t(s)] - a);
        den += a * a;
      }
    }
    const double error = std::sqrt(num / den);
    std::printf("3D receiver %zu: relative L2 %.2e\n", k, error);
    EXPECT_LT(error, 5e-3) << "receiver " << k;
  }
}

// ---------------------------------------------------------------------------------------------
// A fluid (vs = 0 everywhere): sxz = 0 (mu at the shear points is 0), sxx = szz = -p, and the
// step is the variable-density acoustic one, CPML included (its memory variables are the
// differences in time of the acoustic ones), up to rounding. The acoustic reference is pwave's
// acoustic_variable_density propagator; its source v^2 dt^2 s^n / V at step n is the explosive
// source m^{n+1/2} = -v^2 dt sum_{k <= n} s^k (p falls by dt m / V).

TEST(ElasticKernels, FluidIsTheVariableDensityAcousticEquation) {
  constexpr int n = 121, nt = 600, width = 20, interface_row = 70;
  constexpr double h = 10.0, dt = 0.001, f = 12.0, v1 = 1500.0, v2 = 2500.0;
  Model model = Model::homogeneous(n, n, h, v1, 0.0, 1000.0);
  for (int iz = interface_row; iz < n; ++iz) {
    for (int ix = 0; ix < n; ++ix) {
      model.vp[std::size_t(iz) * n + ix] = v2;
      model.rho[std::size_t(iz) * n + ix] = 2000.0 + 5.0 * ix;  // a lateral density gradient too
    }
  }
  const int zs = 40, xs = 60;
  const std::vector<std::pair<int, int>> cells = {{40, 80}, {10, 60},   {100, 60}, {90, 20},
                                                  {5, 5},   {115, 110}, {69, 60},  {70, 60}};

  ForwardProblem acoustic = test::homogeneous_problem(n, n, h, v1, dt, nt, f, 8, width);
  acoustic.equation = physics::Equation::acoustic_variable_density;
  acoustic.model.vp = model.vp;
  acoustic.model.rho = model.rho;
  acoustic.boundary.pml_velocity = v2;
  ShotGeometry shot;
  shot.source = {xs * h, zs * h};
  for (const auto& c : cells) shot.receivers.push_back({c.second * h, c.first * h});
  acoustic.shots = {shot};
  const auto reference = forward_model<double>(acoustic);

  Simulation run;
  run.order = 8, run.width = width, run.nt = nt, run.dt = dt, run.pml_frequency = f;
  run.pml_velocity = v2, run.reflection = acoustic.boundary.reflection;
  run.source = {SourceKind::explosive, zs, xs, std::vector<double>(nt)};
  double sum = 0;
  for (int k = 0; k < nt; ++k) {
    sum += acoustic.wavelet[std::size_t(k)];
    run.source.samples[std::size_t(k)] = -v1 * v1 * dt * sum;
  }
  for (const auto& c : cells) run.receivers.push_back({Component::pressure, c.first, c.second});
  const auto traces = test::elastic::run<double>(model, run);

  double num = 0, den = 0;
  for (std::size_t r = 0; r < cells.size(); ++r) {
    for (int k = 0; k < nt; ++k) {
      const double a = reference(0, r, k), e = traces[r][std::size_t(k)];
      num += (e - a) * (e - a);
      den += a * a;
    }
  }
  const double error = std::sqrt(num / den);
  std::printf("fluid elastic against variable-density acoustic: relative L2 %.2e\n", error);
  EXPECT_LT(error, 1e-11);
}

// ---------------------------------------------------------------------------------------------
// CPML: the traces of a 1 km model with absorbing layers against those of the same geometry in a
// 3 km model, whose own layer is too far for anything to come back within the record (0.8 s).

/// vx and vz on a ring of receivers 5 cells (50 m) inside the edges of a 101 x 101 model of
/// 10 m cells (vertical force in the middle), the model `offset` cells inside one of n x n.
std::vector<std::vector<double>> ring_traces(int n, int offset, int width, double reflection) {
  const Model model = Model::homogeneous(n, n, 10.0, rock.vp, rock.vs, rock.rho);
  Simulation run;
  run.order = 8, run.width = width, run.nt = 800, run.dt = 0.001, run.pml_frequency = peak;
  run.reflection = reflection;
  run.source = {SourceKind::force_z, offset + 50, offset + 50, ricker(peak, delay, run.dt, run.nt)};
  for (int t = 5; t <= 95; t += 10) {
    for (const auto& c : {std::pair<int, int>{5, t}, {95, t}, {t, 5}, {t, 95}}) {
      run.receivers.push_back({Component::vx, offset + c.first, offset + c.second});
      run.receivers.push_back({Component::vz, offset + c.first, offset + c.second});
    }
  }
  return test::elastic::run<double>(model, run);
}

/// Reflected energy / direct energy at the ring: sum (a - b)^2 / sum b^2 over every trace.
double energy_ratio(const std::vector<std::vector<double>>& a,
                    const std::vector<std::vector<double>>& b) {
  double diff = 0, ref = 0;
  for (std::size_t r = 0; r < a.size(); ++r) {
    for (std::size_t k = 0; k < a[r].size(); ++k) {
      diff += (a[r][k] - b[r][k]) * (a[r][k] - b[r][k]);
      ref += b[r][k] * b[r][k];
    }
  }
  return diff / ref;
}

TEST(ElasticKernels, CpmlReflectedEnergyIsWhatTheDocsSay) {
  const auto reference = ring_traces(301, 100, 20, 1e-3);
  struct Documented {
    int width;
    double reflection, energy;  ///< docs/physics.md, "Elastic (kernels)"
  };
  // Measured 2026-11-26. R = 1e-3 (the default) leaves 5.7e-8 of the energy (relative L2
  // 2.4e-4); from R = 1e-4 on, what is left is the first-order scheme's own reflection
  // (4e-5 relative L2 for 20 cells, whatever R; the fluid, i.e. the variable-density acoustic
  // layer, has the same floor).
  const Documented documented[] = {{20, 1e-3, 5.7e-8}, {20, 1e-4, 1.6e-9}, {10, 1e-4, 8.3e-8}};
  for (const Documented& d : documented) {
    const double ratio = energy_ratio(ring_traces(101, 0, d.width, d.reflection), reference);
    std::printf(
        "CPML width %d R %.0e: reflected energy %.3e, relative L2 %.3e (documented "
        "%.1e)\n",
        d.width, d.reflection, ratio, std::sqrt(ratio), d.energy);
    EXPECT_LT(ratio, 2.0 * d.energy) << "width " << d.width << ", R " << d.reflection;
    EXPECT_GT(ratio, 0.5 * d.energy) << "width " << d.width << ", R " << d.reflection;
  }
  // The measurement sees reflections: rigid walls reflect everything.
  EXPECT_GT(energy_ratio(ring_traces(101, 0, 0, 1e-3), reference), 0.1);
}

// ---------------------------------------------------------------------------------------------
// The coefficients at the staggered points, on a 3 x 3 (x 3) padded grid with a fluid cell.

void check_material(int ny) {
  namespace el = physics::elastic;
  constexpr int n = 3;
  constexpr double dt = 0.5;
  const int plane = ny * n;
  // Cell values varying along every axis; (1, 0, 0) is a fluid (vs = 0).
  const auto vp = [](int iz, int iy, int ix) { return 2000.0 + 150 * iz + 70 * iy + 110 * ix; };
  const auto vs = [&](int iz, int iy, int ix) {
    return iz == 1 && iy == 0 && ix == 0 ? 0.0 : 0.45 * vp(iz, iy, ix) + 30 * ix * iz;
  };
  const auto rho = [](int iz, int iy, int ix) { return 1800.0 + 90 * iz + 40 * iy + 60 * ix; };
  el::State<double> st;
  st.nz = n, st.nx = n, st.ny = ny;
  const auto grid = [&](const char* name) { return GridView<double>(std::string(name), n, plane); };
  st.lambda = grid("lambda"), st.mu = grid("mu"), st.bx = grid("bx"), st.bz = grid("bz");
  st.mu_xz = grid("mu_xz");
  if (ny > 1) st.by = grid("by"), st.mu_xy = grid("mu_xy"), st.mu_yz = grid("mu_yz");
  const GridView<double> dvp = grid("vp"), dvs = grid("vs"), drho = grid("rho");
  auto hvp = Kokkos::create_mirror_view(dvp), hvs = Kokkos::create_mirror_view(dvs),
       hrho = Kokkos::create_mirror_view(drho);
  for (int iz = 0; iz < n; ++iz) {
    for (int q = 0; q < plane; ++q) {
      const int iy = q / n, ix = q % n;
      hvp(iz, q) = vp(iz, iy, ix), hvs(iz, q) = vs(iz, iy, ix), hrho(iz, q) = rho(iz, iy, ix);
    }
  }
  Kokkos::deep_copy(dvp, hvp);
  Kokkos::deep_copy(dvs, hvs);
  Kokkos::deep_copy(drho, hrho);
  Kokkos::parallel_for("pwave::physics::elastic::material",
                       Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {n, plane}),
                       el::BuildMaterial<double>{st, dvp, dvs, drho, dt, false});
  const auto host = [](const GridView<double>& v) {
    return Kokkos::create_mirror_view_and_copy(HostSpace(), v);
  };
  const auto lambda = host(st.lambda), mu = host(st.mu), bx = host(st.bx), bz = host(st.bz),
             mu_xz = host(st.mu_xz), by = host(st.by), mu_xy = host(st.mu_xy),
             mu_yz = host(st.mu_yz);
  // Neighbours beyond the last cell of an axis are that cell.
  const auto clamp = [&](int& iz, int& iy, int& ix) {
    iz = std::min(iz, n - 1), iy = std::min(iy, ny - 1), ix = std::min(ix, n - 1);
  };
  const auto m = [&](int iz, int iy, int ix) {
    clamp(iz, iy, ix);
    return rho(iz, iy, ix) * vs(iz, iy, ix) * vs(iz, iy, ix);
  };
  const auto b = [&](int iz, int iy, int ix) {
    clamp(iz, iy, ix);
    return 1.0 / rho(iz, iy, ix);
  };
  // dt times the harmonic mean of the four cells' mu, 0 next to the fluid.
  const auto harmonic = [&](std::initializer_list<std::array<int, 3>> cells) {
    double sum = 0;
    for (const auto& c : cells) {
      const double v = m(c[0], c[1], c[2]);
      if (v == 0) return 0.0;
      sum += 1 / v;
    }
    return dt * 4 / sum;
  };
  for (int iz = 0; iz < n; ++iz) {
    for (int iy = 0; iy < ny; ++iy) {
      for (int ix = 0; ix < n; ++ix) {
        const int q = iy * n + ix;
        const auto where = [&] {
          return "cell " + std::to_string(iz) + ", " + std::to_string(iy) + ", " +
                 std::to_string(ix);
        };
        const double v = vp(iz, iy, ix), w = vs(iz, iy, ix);
        EXPECT_DOUBLE_EQ(mu(iz, q), dt * m(iz, iy, ix)) << where();
        EXPECT_DOUBLE_EQ(lambda(iz, q), dt * rho(iz, iy, ix) * (v * v - 2 * w * w)) << where();
        EXPECT_DOUBLE_EQ(bx(iz, q), dt * 0.5 * (b(iz, iy, ix) + b(iz, iy, ix + 1))) << where();
        EXPECT_DOUBLE_EQ(bz(iz, q), dt * 0.5 * (b(iz, iy, ix) + b(iz + 1, iy, ix))) << where();
        const double xz =
            harmonic({{iz, iy, ix}, {iz, iy, ix + 1}, {iz + 1, iy, ix}, {iz + 1, iy, ix + 1}});
        EXPECT_NEAR(mu_xz(iz, q), xz, 1e-12 * xz) << where();
        if (ny > 1) {
          EXPECT_DOUBLE_EQ(by(iz, q), dt * 0.5 * (b(iz, iy, ix) + b(iz, iy + 1, ix))) << where();
          const double xy =
              harmonic({{iz, iy, ix}, {iz, iy, ix + 1}, {iz, iy + 1, ix}, {iz, iy + 1, ix + 1}});
          const double yz =
              harmonic({{iz, iy, ix}, {iz, iy + 1, ix}, {iz + 1, iy, ix}, {iz + 1, iy + 1, ix}});
          EXPECT_NEAR(mu_xy(iz, q), xy, 1e-12 * xy) << where();
          EXPECT_NEAR(mu_yz(iz, q), yz, 1e-12 * yz) << where();
        }
      }
    }
  }
  // The fluid cell (1, 0, 0) zeroes the shear points it is one of the four cells of.
  EXPECT_EQ(mu_xz(0, 0), 0.0);
  EXPECT_EQ(mu_xz(1, 0), 0.0);
  EXPECT_GT(mu_xz(2, 0), 0.0);
  if (ny > 1) {
    EXPECT_EQ(mu_yz(0, 0), 0.0);
    EXPECT_EQ(mu_xy(1, 0), 0.0);
    EXPECT_GT(mu_xy(0, 0), 0.0);
  }
}

TEST(ElasticKernels, MaterialAveragesAreTheDocumentedOnes) {
  check_material(1);
  check_material(3);
}

// ---------------------------------------------------------------------------------------------
// float32: the same run as float64, to rounding (2D and 3D, order 8, CPML on every side, both
// source kinds).

double float_against_double(const Model& model, SourceKind kind) {
  Simulation run;
  run.order = 8, run.width = 8, run.nt = 300, run.dt = 0.001, run.pml_frequency = peak;
  const int c = model.nz / 2;
  run.source = {kind, c, c, ricker(peak, delay, run.dt, run.nt), model.ny / 2};
  for (Component k : {Component::vx, Component::vz, Component::pressure})
    run.receivers.push_back({k, c + 5, c - 4, model.ny / 2 + (model.is_3d() ? 3 : 0)});
  const auto a = test::elastic::run<float>(model, run);
  const auto b = test::elastic::run<double>(model, run);
  double num = 0, den = 0;
  for (std::size_t r = 0; r < a.size(); ++r) {
    for (std::size_t k = 0; k < a[r].size(); ++k) {
      num += (a[r][k] - b[r][k]) * (a[r][k] - b[r][k]);
      den += b[r][k] * b[r][k];
    }
  }
  return std::sqrt(num / den);
}

TEST(ElasticKernels, FloatFollowsDouble) {
  const Model plane = Model::homogeneous(41, 41, 10.0, rock.vp, rock.vs, rock.rho);
  const Model cube = Model::homogeneous(15, 15, 10.0, rock.vp, rock.vs, rock.rho, 15);
  for (SourceKind kind : {SourceKind::force_z, SourceKind::explosive}) {
    const double e2 = float_against_double(plane, kind), e3 = float_against_double(cube, kind);
    std::printf("float32 against float64, %s: 2D %.2e, 3D %.2e\n",
                kind == SourceKind::explosive ? "explosive" : "force", e2, e3);
    // Measured 3.9e-7 - 2.0e-6.
    EXPECT_LT(e2, 1e-5);
    EXPECT_LT(e3, 1e-5);
  }
}

// ---------------------------------------------------------------------------------------------
// The checkpointed state (State::checkpointed(), what a checkpoint history keeps): a run that
// restarts from it, its fields saved after the waves have entered the CPML, gives the same
// traces, bit for bit, as one that does not.

TEST(ElasticKernels, CheckpointedFieldsAreTheWholeState) {
  for (int ny : {1, 15}) {
    const Model model = Model::homogeneous(15, 15, 10.0, rock.vp, rock.vs, rock.rho, ny);
    Simulation run;
    run.order = 8, run.width = 8, run.nt = 200, run.dt = 0.001, run.pml_frequency = peak;
    run.source = {SourceKind::force_z, 7, 7, ricker(peak, delay, run.dt, run.nt), ny / 2};
    for (Component k : {Component::vx, Component::vz, Component::pressure})
      run.receivers.push_back({k, 10, 3, ny / 2});
    const auto plain = test::elastic::run<double>(model, run);
    run.restart_from = 150;  // the direct waves left the model ~0.05 s before
    const auto restarted = test::elastic::run<double>(model, run);
    for (std::size_t r = 0; r < plain.size(); ++r)
      EXPECT_EQ(restarted[r], plain[r]) << (ny > 1 ? "3D" : "2D") << ", receiver " << r;
  }
}

// ---------------------------------------------------------------------------------------------
// The CFL limit: runs stable just below it and blows up above it.

double largest_sample(int order, double dt_factor) {
  constexpr double h = 10.0;
  constexpr int n = 61, nt = 500;
  const double dt = dt_factor * physics::elastic::max_stable_dt_elastic(order, rock.vp, h, h);
  const Model model = Model::homogeneous(n, n, h, rock.vp, rock.vs, rock.rho);
  Simulation run;
  run.order = order, run.width = 10, run.nt = nt, run.dt = dt, run.pml_frequency = peak;
  run.source = {SourceKind::force_z, 30, 30, ricker(peak, delay, dt, nt)};
  run.receivers = {{Component::vz, 10, 30}, {Component::vx, 30, 50}, {Component::pressure, 50, 50}};
  double largest = 0;
  for (const auto& trace : test::elastic::run<double>(model, run)) {
    for (double x : trace) largest = std::isfinite(x) ? std::max(largest, std::abs(x)) : HUGE_VAL;
  }
  return largest;
}

TEST(ElasticKernels, CflLimitIsSharp) {
  for (int order : {2, 8}) {
    const double below = largest_sample(order, 0.99), above = largest_sample(order, 1.01);
    std::printf("order %d: largest sample at 0.99 dt_max %.3e, at 1.01 dt_max %.3e\n", order, below,
                above);
    EXPECT_LT(below, 1.0) << "order " << order;
    EXPECT_GT(above, 1e6 * below) << "order " << order;
  }
}

}  // namespace
}  // namespace pwave
