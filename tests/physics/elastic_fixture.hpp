#pragma once
// A small driver of the elastic kernels (physics/elastic), for tests that exercise them without
// the propagator: a 2D or 3D model padded with a CPML on every side, one shot, a source on a
// grid point and receivers on grid points, nt steps, traces back on the host.
//
// Time sampling, as the acoustic loop's "record before step n": sample n of a pressure trace is
// p(t_n), of a velocity trace v(t_{n-1/2}). A force source's sample n is f(t_n) (the velocity
// update of step n is centred there), an explosive source's m(t_{n+1/2}) (the stress update's).

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "pwave/physics/stencil.hpp"

namespace pwave::test::elastic {

/// A model on its cells, row-major [nz][ny][nx] (ny = 1: 2D), cubic cells of h metres.
struct Model {
  int nz = 0, nx = 0, ny = 1;
  double h = 0;
  std::vector<double> vp, vs, rho;

  static Model homogeneous(int nz, int nx, double h, double vp, double vs, double rho, int ny = 1) {
    const std::size_t n = std::size_t(nz) * ny * nx;
    return Model{nz,
                 nx,
                 ny,
                 h,
                 std::vector<double>(n, vp),
                 std::vector<double>(n, vs),
                 std::vector<double>(n, rho)};
  }
  bool is_3d() const { return ny > 1; }
  double vp_max() const { return *std::max_element(vp.begin(), vp.end()); }
};

/// What a receiver records at a model cell: a velocity at its point (vx at (iz, iy, ix + 1/2),
/// vy at (iz, iy + 1/2, ix), vz at (iz + 1/2, iy, ix)) or the pressure -tr(sigma) / Dim at the
/// cell.
enum class Component { vx, vz, pressure, vy };
struct Receiver {
  Component component;
  int iz, ix, iy = 0;
};

/// A force along x, y or z (at the cell's point of that velocity), or an explosive source at the
/// cell. `samples`: f(t_n) in N/m in 2D (force per unit length: a line force), N in 3D; or
/// m(t_{n+1/2}), n = 0 .. nt - 1.
enum class SourceKind { force_x, force_z, explosive, force_y };
struct Source {
  SourceKind kind = SourceKind::force_z;
  int iz = 0, ix = 0;
  std::vector<double> samples;
  int iy = 0;
};

struct Simulation {
  int order = 8;
  int width = 20;  ///< CPML cells on every side
  int nt = 0;
  double dt = 0;
  double pml_frequency = 10.0;  ///< Hz, the CPML alpha term (the wavelet's peak)
  double reflection = 1e-3;     ///< the CPML profile's target R
  double pml_velocity = 0.0;    ///< m/s setting d0; 0: the model's largest vp
  Source source;
  std::vector<Receiver> receivers;
  /// >= 0: run to the end, restore the state::checkpointed() fields saved before this step,
  /// and run again from it (the traces from this step on are the second run's): a restart from
  /// a checkpoint, as the checkpoint history does.
  int restart_from = -1;
  /// A stress-free surface at the model's top (physics/elastic/free_surface.hpp), no CPML there.
  bool free_surface = false;

  /// CPML cells above the model: none under a free surface.
  int top() const { return free_surface ? 0 : width; }
};

namespace detail {

/// The run in precision T at one order and dimension: defined in fixtures/elastic_run.hpp,
/// compiled once for the test executables in fixtures/elastic_order*.cpp.
template <class T, int Order, int Dim>
std::vector<std::vector<double>> run(const Model& m, const Simulation& r);

}  // namespace detail

/// Runs `r` on model `m` in precision T: traces[receiver][n] (see the file's comment for the
/// times of the samples).
template <class T>
std::vector<std::vector<double>> run(const Model& m, const Simulation& r) {
  std::vector<std::vector<double>> traces;
  if (!physics::with_order(r.order, [&](auto o) {
        constexpr int order = decltype(o)::value;
        traces = m.is_3d() ? detail::run<T, order, 3>(m, r) : detail::run<T, order, 2>(m, r);
      })) {
    throw std::invalid_argument("elastic fixture: order must be 2, 4, 6 or 8");
  }
  return traces;
}

}  // namespace pwave::test::elastic
