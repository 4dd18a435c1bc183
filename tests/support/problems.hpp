#pragma once
// Small ForwardProblem builders shared by the propagation tests.

#include <cmath>
#include <vector>

#include "pwave/acquisition/wavelet.hpp"
#include "pwave/propagation/forward_problem.hpp"

namespace pwave::test {

/// Homogeneous nz x nx model at spacing h, Ricker(f) with delay 1.5/f, CPML `width` per side.
inline ForwardProblem homogeneous_problem(int nz, int nx, double h, double v, double dt, int nt,
                                          double f, int order, int width) {
  ForwardProblem p;
  p.model = constant_model(Grid{nz, nx, h, h}, v);
  p.dt = dt;
  p.nt = nt;
  p.order = order;
  for (int s = 0; s < 4; ++s) p.boundary.width[s] = width;
  p.peak_frequency = f;
  p.wavelet = ricker(f, 1.5 / f, dt, nt);
  return p;
}

/// Homogeneous nz x ny x nx model at spacing h (3D), otherwise as homogeneous_problem.
inline ForwardProblem homogeneous_problem_3d(int nz, int ny, int nx, double h, double v, double dt,
                                             int nt, double f, int order, int width) {
  ForwardProblem p = homogeneous_problem(nz, nx, h, v, dt, nt, f, order, width);
  Grid g = p.model.grid;
  g.ny = ny;
  g.dy = h;
  g.dimension = 3;
  p.model = constant_model(g, v);
  for (int s = 0; s < num_sides; ++s) p.boundary.width[s] = width;
  return p;
}

/// One shot per source x (at depth zs), each recorded by receivers every `step` metres from 0 to
/// x_max on two lines, at depths z_top and z_bottom (top then bottom at each x): transmitted and
/// reflected waves both sample a body between the lines (the FWI tests' acquisition).
inline std::vector<ShotGeometry> shots_over_two_receiver_lines(const std::vector<double>& xs,
                                                               double zs, double step, double x_max,
                                                               double z_top, double z_bottom) {
  std::vector<ShotGeometry> shots;
  for (double x : xs) {
    ShotGeometry s;
    s.source = {x, zs};
    for (double xr = 0; xr <= x_max; xr += step) {
      s.receivers.push_back({xr, z_top});
      s.receivers.push_back({xr, z_bottom});
    }
    shots.push_back(s);
  }
  return shots;
}

/// The heterogeneous model of the misfit-gradient tests: 41 x 57 cells of 10 m, a vertical
/// gradient and a fast lens at cell (22, 30), CPML of 12 cells (pml_velocity fixed at 3000 m/s,
/// as in an inversion, so J depends on vp only), order 8, 300 steps of 1 ms, 15 Hz Ricker; two
/// shots at (100, 30) and (450, 40) m recorded by `receivers`.
inline ForwardProblem lens_problem(const std::vector<Position>& receivers) {
  const int nz = 41, nx = 57;
  ForwardProblem p = homogeneous_problem(nz, nx, 10.0, 2000.0, 0.001, 300, 15.0, 8, 12);
  for (int iz = 0; iz < nz; ++iz)
    for (int ix = 0; ix < nx; ++ix) {
      const double r2 = std::pow(ix - 30.0, 2) + std::pow(iz - 22.0, 2);
      p.model.vp[std::size_t(iz) * nx + ix] = 1800.0 + 15.0 * iz + 600.0 * std::exp(-r2 / 40.0);
    }
  p.boundary.pml_velocity = 3000.0;
  p.shots = {ShotGeometry{{100.0, 30.0}, receivers}, ShotGeometry{{450.0, 40.0}, receivers}};
  return p;
}

/// exp(-((iz - cz)^2 + (ix - cx)^2) / width2) on a 2D model grid [nz][nx]: a smooth perturbation.
inline std::vector<double> bump(const Grid& g, double cz, double cx, double width2) {
  std::vector<double> b(std::size_t(g.nz) * g.nx);
  for (int iz = 0; iz < g.nz; ++iz)
    for (int ix = 0; ix < g.nx; ++ix)
      b[std::size_t(iz) * g.nx + ix] =
          std::exp(-(std::pow(iz - cz, 2) + std::pow(ix - cx, 2)) / width2);
  return b;
}

/// A position in 3D.
inline Position at(double x, double y, double z) {
  Position p;
  p.x = x;
  p.y = y;
  p.z = z;
  return p;
}

/// Trace of receiver r of shot s as doubles.
template <class A>
std::vector<double> trace(const A& traces, int s, int r) {
  std::vector<double> t(traces.extent(2));
  for (std::size_t n = 0; n < t.size(); ++n) t[n] = double(traces(s, r, n));
  return t;
}

}  // namespace pwave::test
