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
