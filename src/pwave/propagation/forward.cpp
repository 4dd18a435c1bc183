#include "pwave/propagation/forward.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "pwave/acquisition/hicks.hpp"
#include "pwave/core/error.hpp"
#include "pwave/physics/elastic/stability.hpp"
#include "pwave/physics/stability.hpp"
#include "pwave/physics/stencil.hpp"
#include "pwave/propagation/propagator.hpp"

namespace pwave {

namespace {

/// Calls f(i, rho_i / rho_min) for every cell i of the model, rho_min the smallest density of
/// the cell and its neighbours: the factor by which a density contrast raises the squared
/// Gershgorin velocity of the staggered operator at i, rho_i v_i^2 max b (physics/stability.hpp;
/// max b = 1 / rho_min: one division per cell).
template <class F>
void for_each_density_ratio(const Model& m, const F& f) {
  const Grid& g = m.grid;
  const std::size_t plane = std::size_t(g.ny) * g.nx;
  const std::vector<double>& rho = m.rho;
  for (int iz = 0; iz < g.nz; ++iz)
    for (int iy = 0; iy < g.ny; ++iy)
      for (int ix = 0; ix < g.nx; ++ix) {
        const std::size_t i = std::size_t(iz) * plane + std::size_t(iy) * g.nx + ix;
        double rmin = rho[i];
        if (iz > 0) rmin = std::min(rmin, rho[i - plane]);
        if (iz + 1 < g.nz) rmin = std::min(rmin, rho[i + plane]);
        if (iy > 0) rmin = std::min(rmin, rho[i - g.nx]);
        if (iy + 1 < g.ny) rmin = std::min(rmin, rho[i + g.nx]);
        if (ix > 0) rmin = std::min(rmin, rho[i - 1]);
        if (ix + 1 < g.nx) rmin = std::min(rmin, rho[i + 1]);
        f(i, rho[i] / rmin);
      }
}

}  // namespace

double stability_velocity(physics::Equation equation, const Model& m) {
  if (!physics::has_parameter(equation, physics::Parameter::rho)) return m.vmax();
  double v2max = 0;  // the square root once, at the end
  for_each_density_ratio(
      m, [&](std::size_t i, double r) { v2max = std::max(v2max, r * m.vp[i] * m.vp[i]); });
  return std::sqrt(v2max);
}

double stability_velocity(const ForwardProblem& p) {
  return stability_velocity(p.equation, p.model);
}

double density_contrast_factor(physics::Equation equation, const Model& m) {
  if (!physics::has_parameter(equation, physics::Parameter::rho)) return 1.0;
  double rmax = 1.0;
  for_each_density_ratio(m, [&](std::size_t, double r) { rmax = std::max(rmax, r); });
  return std::sqrt(rmax);
}

double dispersion_velocity(physics::Equation equation, const Model& m) {
  if (!physics::has_parameter(equation, physics::Parameter::vs)) return m.vmin();
  // The slowest wave of each cell: S where the cell is solid, P where it is fluid (vs = 0).
  double v = m.vp.empty() ? 0.0 : m.vp.front();
  for (std::size_t i = 0; i < m.vp.size(); ++i) {
    v = std::min(v, i < m.vs.size() && m.vs[i] > 0.0 ? m.vs[i] : m.vp[i]);
  }
  return v;
}

double max_stable_dt(const ForwardProblem& p, double velocity) {
  const Grid& g = p.model.grid;
  const double dy = g.is_3d() ? g.dy : 0.0;
  // The elastic limit is the staggered acoustic one with the P velocity (elastic/stability.hpp).
  if (p.equation == physics::Equation::elastic)
    return physics::elastic::max_stable_dt_elastic(p.order, velocity, g.dx, g.dz, dy);
  return physics::staggered(p.equation)
             ? physics::max_stable_dt_staggered(p.order, velocity, g.dx, g.dz, dy)
             : physics::max_stable_dt(p.order, velocity, g.dx, g.dz, dy);
}

void validate(const ForwardProblem& p) {
  const Grid& g = p.model.grid;
  if (g.nz < 1 || g.nx < 1 || g.ny < 1) throw InputError("model.shape", "", "must be positive");
  if (g.dimension != 2 && g.dimension != 3) {
    throw InputError("model.shape", "", "must have 2 ([nz, nx]) or 3 ([nz, ny, nx]) entries");
  }
  if (!g.is_3d() && g.ny != 1) throw InputError("model.shape", "", "a 2D grid has ny = 1");
  const double dy = g.is_3d() ? g.dy : 1.0;
  if (!(g.dz > 0) || !(g.dx > 0) || !(dy > 0) || !std::isfinite(g.dz) || !std::isfinite(g.dx) ||
      !std::isfinite(dy)) {
    throw InputError("model.spacing", "", "must be positive and finite");
  }
  {
    // Kernels index the columns of one depth of the padded grid (model + CPML + stencil halo,
    // rows rounded up to whole cache lines) with int: past 2^31 columns they would wrap.
    const auto width = [&](int side) { return long(std::max(0, p.boundary.width[side])); };
    const long h = std::max(0, p.order / 2);
    const long px = long(g.nx) + width(left) + width(right) + 2 * h + 64;
    const long py = g.is_3d() ? long(g.ny) + width(front) + width(back) + 2 * h : 1;
    if (py * px > 2147483647L) {
      throw InputError("model.shape", "",
                       "one depth of the grid with its CPML layers and stencil halo has about " +
                           std::to_string(py * px) +
                           " cells, more than the 2147483647 pwave can index");
    }
  }
  if (p.model.vp.size() != std::size_t(g.cells())) {
    throw InputError("model.vp", "",
                     "holds " + std::to_string(p.model.vp.size()) + " values but the grid has " +
                         std::to_string(g.cells()));
  }
  for (std::size_t i = 0; i < p.model.vp.size(); ++i) {
    if (!(p.model.vp[i] > 0) || !std::isfinite(p.model.vp[i])) {
      std::ostringstream m;
      const std::size_t plane = std::size_t(g.ny) * g.nx;
      m << "velocity at [iz=" << i / plane
        << (g.is_3d() ? ", iy=" + std::to_string(i % plane / g.nx) : "") << ", ix=" << i % g.nx
        << "] is " << p.model.vp[i] << "; velocities must be positive and finite";
      throw InputError("model.vp", "", m.str());
    }
  }
  if (!physics::is_supported_order(p.order)) {
    throw InputError("physics.order", "", "is " + std::to_string(p.order) + "; use 2, 4, 6 or 8");
  }
  if (!(p.dt > 0) || !std::isfinite(p.dt)) throw InputError("time.dt", "", "must be positive");
  if (p.nt < 1) throw InputError("time.nt", "", "must be at least 1");
  if (!p.shot_wavelets.empty()) {
    if (p.shot_wavelets.size() != p.shots.size()) {
      throw InputError("wavelet", "",
                       "has " + std::to_string(p.shot_wavelets.size()) +
                           " per-shot wavelets but the acquisition has " +
                           std::to_string(p.shots.size()) + " shots (one row per shot)");
    }
    for (std::size_t s = 0; s < p.shot_wavelets.size(); ++s) {
      if (p.shot_wavelets[s].size() != std::size_t(p.nt)) {
        throw InputError("wavelet", "",
                         "shot " + std::to_string(s) + "'s wavelet has " +
                             std::to_string(p.shot_wavelets[s].size()) +
                             " samples but time.nt is " + std::to_string(p.nt));
      }
    }
  } else if (p.wavelet.size() != std::size_t(p.nt)) {
    throw InputError("wavelet", "",
                     "has " + std::to_string(p.wavelet.size()) + " samples but time.nt is " +
                         std::to_string(p.nt));
  }
  for (int s = 0; s < num_sides; ++s) {
    if (p.boundary.width[s] < 0) throw InputError("boundary.width", "", "must not be negative");
  }
  if (p.boundary.free_surface && p.boundary.width[top] != 0) {
    throw InputError("boundary.free_surface", "", "needs boundary.width.top = 0");
  }
  if (!(p.boundary.reflection > 0 && p.boundary.reflection < 1)) {
    throw InputError("boundary.reflection", "", "must lie in (0, 1)");
  }
  if (p.shots.empty()) throw InputError("acquisition.sources", "", "no shots given");
  if (p.hicks_half_width < hicks_min_half_width || p.hicks_half_width > hicks_max_half_width) {
    throw InputError("acquisition.hicks_half_width", "",
                     "must be an integer from " + std::to_string(hicks_min_half_width) + " to " +
                         std::to_string(hicks_max_half_width));
  }
  // Receivers are named per shot when shots have their own lists.
  const bool shared = same_receiver_counts(p.shots);
  for (std::size_t s = 0; s < p.shots.size(); ++s) {
    const std::string shot = "[" + std::to_string(s) + "]";
    check_inside(g, p.shots[s].source, "acquisition.sources" + shot);
    const std::vector<Position>& receivers = p.shots[s].receivers;
    if (receivers.empty()) {
      throw InputError("acquisition.receivers", "",
                       max_receivers(p.shots) == 0
                           ? std::string("no receivers given")
                           : "shot " + std::to_string(s) + " has no receivers");
    }
    for (std::size_t r = 0; r < receivers.size(); ++r) {
      check_inside(g, receivers[r],
                   "acquisition.receivers" + (shared ? "" : shot) + "[" + std::to_string(r) + "]");
    }
  }
  // A density: the variable-density and elastic equations.
  const bool vd = physics::has_parameter(p.equation, physics::Parameter::rho);
  const bool elastic = p.equation == physics::Equation::elastic;
  if (vd) {
    if (p.model.rho.size() != std::size_t(g.cells())) {
      throw InputError(
          "model.rho", "",
          p.model.rho.empty()
              ? std::string("is required by physics.equation: ") + physics::name(p.equation)
              : "holds " + std::to_string(p.model.rho.size()) + " values but the grid has " +
                    std::to_string(g.cells()));
    }
    const std::size_t plane = std::size_t(g.ny) * g.nx;
    for (std::size_t i = 0; i < p.model.rho.size(); ++i) {
      if (!(p.model.rho[i] > 0) || !std::isfinite(p.model.rho[i])) {
        std::ostringstream m;
        m << "density at [iz=" << i / plane
          << (g.is_3d() ? ", iy=" + std::to_string(i % plane / g.nx) : "") << ", ix=" << i % g.nx
          << "] is " << p.model.rho[i] << "; densities must be positive and finite (kg/m^3)";
        throw InputError("model.rho", "", m.str());
      }
    }
  }
  if (physics::has_parameter(p.equation, physics::Parameter::vs)) {
    if (p.model.vs.size() != std::size_t(g.cells())) {
      throw InputError(
          "model.vs", "",
          p.model.vs.empty()
              ? std::string("is required by physics.equation: ") + physics::name(p.equation)
              : "holds " + std::to_string(p.model.vs.size()) + " values but the grid has " +
                    std::to_string(g.cells()));
    }
    const std::size_t plane = std::size_t(g.ny) * g.nx;
    for (std::size_t i = 0; i < p.model.vs.size(); ++i) {
      if (!shear_velocity_ok(p.model.vs[i], p.model.vp[i])) {
        std::ostringstream m;
        m << "S velocity at [iz=" << i / plane
          << (g.is_3d() ? ", iy=" + std::to_string(i % plane / g.nx) : "") << ", ix=" << i % g.nx
          << "] is " << p.model.vs[i] << " next to vp = " << p.model.vp[i]
          << "; S velocities must be finite, >= 0 (0: fluid) and below sqrt(3)/2 vp (m/s)";
        throw InputError("model.vs", "", m.str());
      }
    }
  } else if (!p.model.vs.empty()) {
    throw InputError("model.vs", "",
                     std::string("the equation ") + physics::name(p.equation) +
                         " has no S velocity (physics.equation: elastic has)");
  }
  const double vstab = stability_velocity(p);
  const double dt_max = max_stable_dt(p, vstab);
  if (p.dt > dt_max) {
    std::ostringstream m;
    m << "dt = " << p.dt << " s is unstable for order " << p.order
      << (elastic ? " (elastic)"
          : vd    ? " (variable density)"
                  : "")
      << " with vmax = " << vstab << " m/s and spacing dz = " << g.dz << " m, "
      << (g.is_3d() ? "dy = " + std::to_string(g.dy) + " m, " : "") << "dx = " << g.dx
      << " m; the largest stable dt is " << dt_max << " s";
    throw InputError("time.dt", "", m.str());
  }
}

template <class T>
HostArray3<T> forward_model(const ForwardProblem& problem, const ProgressCallback& progress) {
  const std::unique_ptr<Propagator<T>> made = make_propagator<T>(problem, problem.shot_batch);
  Propagator<T>& prop = *made;
  const int nshots = int(problem.shots.size());
  const int nrec = prop.max_receivers();
  HostArray3<T> out("pwave::receivers", nshots, nrec, problem.nt);
  Traces<T> traces("pwave::traces", prop.batch_capacity(), nrec, problem.nt);
  const long steps_total =
      long(problem.nt) * ((nshots + prop.batch_capacity() - 1) / prop.batch_capacity());
  long steps_before = 0;
  for (int first = 0; first < nshots; first += prop.batch_capacity()) {
    const int count = std::min(prop.batch_capacity(), nshots - first);
    std::vector<int> shots(std::size_t(count), 0);
    for (int k = 0; k < count; ++k) shots[std::size_t(k)] = first + k;
    prop.forward(shots, traces, progress, steps_before, steps_total);
    steps_before += problem.nt;
    const auto src = Kokkos::subview(traces, std::make_pair(0, count), Kokkos::ALL, Kokkos::ALL);
    const auto dst =
        Kokkos::subview(out, std::make_pair(first, first + count), Kokkos::ALL, Kokkos::ALL);
    Kokkos::deep_copy(dst, src);
  }
  return out;
}

template HostArray3<float> forward_model<float>(const ForwardProblem&, const ProgressCallback&);
template HostArray3<double> forward_model<double>(const ForwardProblem&, const ProgressCallback&);

}  // namespace pwave
