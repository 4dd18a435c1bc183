// pwave as a library: builds a small 2D model in memory (2000 m/s with a 2300 m/s disc), models
// three shots through it (the "observed" data), then computes the misfit and its exact gradient
// with respect to vp for a starting model without the disc. Prints the misfit and a few values
// of the gradient; exits 1 if they are not what a working build gives (finite, non-zero misfit,
// the gradient's largest magnitude near the disc). Runs in well under a second on one core.

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include "backends/host_pages.hpp"
#include "pwave/acquisition/wavelet.hpp"
#include "pwave/core/version.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/gradient.hpp"

namespace {

constexpr int nz = 60, nx = 100;                                      // cells, 10 m apart
constexpr double h = 10.0;                                            // m
constexpr double disc_x = 500.0, disc_z = 300.0, disc_radius = 80.0;  // m

/// The acquisition, time axis and wavelet; the model is a constant `vp` (m/s).
pwave::ForwardProblem make_problem(double vp) {
  pwave::ForwardProblem p;
  p.model = pwave::constant_model(pwave::Grid{nz, nx, h, h}, vp);
  p.dt = 0.001;  // s; v dt / h = 0.23, well inside the order-8 stability limit
  p.nt = 700;    // 0.7 s: reflections off the disc's far side reach the surface
  p.order = 8;
  for (int side = 0; side < pwave::num_sides; ++side) p.boundary.width[side] = 20;
  p.peak_frequency = 10.0;                            // Hz: 20 cells per wavelength
  p.wavelet = pwave::ricker(10.0, 0.12, p.dt, p.nt);  // delay 0.12 s
  for (double sx : {200.0, 500.0, 800.0}) {
    pwave::ShotGeometry shot;
    shot.source = pwave::Position{sx, 20.0};
    for (double rx = 0.0; rx <= (nx - 1) * h; rx += 20.0) {
      shot.receivers.push_back(pwave::Position{rx, 20.0});
    }
    p.shots.push_back(shot);
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  // Optional, first thing: huge pages for the host arrays (may re-execute the program; see
  // backends/host_pages.hpp). Setting GLIBC_TUNABLES=glibc.malloc.hugetlb=1 does the same.
  pwave::backend::request_huge_pages(argv);
  // Kokkos must be initialised before any pwave call and finalised after the last View is gone:
  // the guard outlives everything below. Threads/GPU come from KOKKOS_NUM_THREADS /
  // KOKKOS_DEVICE_ID or --kokkos-num-threads= / --kokkos-device-id= on the command line.
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::printf("pwave %s, Kokkos %s (%s), execution space %s\n", pwave::version,
              pwave::kokkos_version, pwave::kokkos_flavour, Kokkos::DefaultExecutionSpace::name());

  // The true model: the disc, 300 m/s faster than the background.
  pwave::ForwardProblem truth = make_problem(2000.0);
  for (int iz = 0; iz < nz; ++iz)
    for (int ix = 0; ix < nx; ++ix)
      if (std::hypot(ix * h - disc_x, iz * h - disc_z) <= disc_radius)
        truth.model.vp[std::size_t(iz) * nx + ix] = 2300.0;
  pwave::validate(truth);  // throws pwave::InputError (CFL, positions, ...) with a clear message

  // Forward modelling: traces [shot][receiver][time] on the host.
  const pwave::HostArray3<float> observed = pwave::forward_model<float>(truth);
  float peak = 0.0f;
  for (std::size_t s = 0; s < observed.extent(0); ++s)
    for (std::size_t r = 0; r < observed.extent(1); ++r)
      for (std::size_t n = 0; n < observed.extent(2); ++n)
        peak = std::max(peak, std::abs(observed(s, r, n)));
  std::printf("forward: %zu shots x %zu receivers x %zu samples, peak |u| %.4g\n",
              observed.extent(0), observed.extent(1), observed.extent(2), double(peak));

  // Misfit J = 0.5 sum (d - d_obs)^2 of the background model and dJ/dvp (exact adjoint,
  // boundary storage), [nz][nx] in J per (m/s).
  const pwave::ForwardProblem start = make_problem(2000.0);
  const pwave::GradientResult<float> g = pwave::misfit_gradient<float>(start, observed);
  double norm = 0.0, biggest = 0.0, at_disc = 0.0;
  int big_iz = 0, big_ix = 0;
  for (int iz = 0; iz < nz; ++iz)
    for (int ix = 0; ix < nx; ++ix) {
      const double v = g.gradient(iz, ix);
      norm += v * v;
      if (std::hypot(ix * h - disc_x, iz * h - disc_z) <= disc_radius) at_disc += v;
      // Below the source/receiver line only: the gradient peaks at the sources themselves.
      if (iz >= 10 && std::abs(v) > std::abs(biggest)) biggest = v, big_iz = iz, big_ix = ix;
    }
  std::printf("misfit J = %.6g\n", g.misfit);
  std::printf(
      "gradient: |dJ/dvp| = %.4g, sum over the disc %.4g, largest below 100 m depth "
      "%.4g at x = %.0f m, z = %.0f m\n",
      std::sqrt(norm), at_disc, biggest, big_ix * h, big_iz * h);

  const bool ok = std::isfinite(g.misfit) && g.misfit > 0.0 && norm > 0.0 &&
                  std::hypot(big_ix * h - disc_x, big_iz * h - disc_z) <= 2.5 * disc_radius;
  std::printf("%s\n", ok ? "ok" : "FAILED: unexpected misfit or gradient");
  return ok ? 0 : 1;
}
