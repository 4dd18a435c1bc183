#pragma once
// Everything a forward run needs, independent of files and the command line.

#include <vector>

#include "pwave/acquisition/components.hpp"
#include "pwave/acquisition/geometry.hpp"
#include "pwave/grid/model.hpp"
#include "pwave/physics/boundary.hpp"
#include "pwave/physics/equation.hpp"

namespace pwave {

/// How the interior of a 3D grid is launched (execution.interior_3d), constant-density equation:
/// `cells`, cell by cell (an MDRange on GPUs, blocked x lines on host backends), or `z_march`,
/// (x, y) tiles marching down the depths with the z taps in registers and the plane in team
/// scratch (backends/z_march.hpp), in the forward step and the backward run. Both give the
/// same wavefields, traces and gradients bit for bit.
enum class Interior3D { cells, z_march };

/// The discretised problem: u_tt = v^2 lap(u) + v^2 s(t) delta(x - x_s), u = u_t = 0 at t = 0
/// (constant density), or u_tt = rho v^2 div(grad(u) / rho) + v^2 s(t) delta(x - x_s).
struct ForwardProblem {
  physics::Equation equation = physics::Equation::acoustic;
  Model model;                      ///< vp in m/s (and rho in kg/m^3 for variable density)
  double dt = 0.0;                  ///< seconds
  int nt = 0;                       ///< time steps (= samples per trace)
  int order = 8;                    ///< spatial order: 2, 4, 6 or 8
  BoundaryConfig boundary;          ///< CPML widths per side, free surface
  std::vector<ShotGeometry> shots;  ///< one source per shot
  SourceType source_type = SourceType::pressure;  ///< what every source injects
  /// Kaiser half-width (cells per side, 1-10) of the Hicks interpolation of sources and
  /// receivers between grid points (acquisition/hicks.hpp); points on grid points use that point.
  int hicks_half_width = 4;
  std::vector<double> wavelet;  ///< s(t_n), n = 0..nt-1, shared by all shots
  /// One wavelet per shot instead: shot_wavelets[shot][n] = s_shot(t_n), as many rows as shots,
  /// nt samples each. Empty (default): every shot injects `wavelet`. When given, `wavelet` is
  /// not used by the propagation (it may be empty).
  std::vector<std::vector<double>> shot_wavelets;
  double peak_frequency = 0.0;                 ///< Hz; used for the CPML alpha profile and checks
  int shot_batch = 0;                          ///< shots propagated together per launch; 0 = all
  int check_interval = 10;                     ///< steps between NaN/Inf checks of the wavefield
  Interior3D interior_3d = Interior3D::cells;  ///< the 3D interior launch (constant density)
  /// Host backends, 2D constant-density forward runs that keep no history or keep `boundary`
  /// frames: steps per sweep down the grid (backends/wavefront.hpp; execution.wavefront_steps);
  /// 1 = one step at a time.
  int wavefront_steps = 32;
};

}  // namespace pwave
