#pragma once
// The launches of one backward elastic step (adjoint_kernels.hpp) and of its imaging, as
// step.hpp's: the Bar and Image kernels per strip box (they touch the memory variables), the
// Gathers once over the whole grid. The caller takes the sources' transposes and adds the
// receivers' residuals between and after them, in the reverse of the forward's order:
//   [explosive source's transpose], surface_stress, image_stress, adjoint_stress, [force source's
//   transpose and image], image_velocity, adjoint_velocity, [residuals of the samples of step n].
// With a free surface (free_surface_adjoint.hpp) the steps take its transposes in their places.

#include "pwave/physics/elastic/adjoint_kernels.hpp"
#include "pwave/physics/elastic/free_surface_adjoint.hpp"
#include "pwave/physics/elastic/step.hpp"

namespace pwave::physics::elastic {

/// Launches K's strip instance of each box of `cuts` (for_each_box_3d), shots [0, count).
template <class Instances>
void launch_strips(const char* label, const ExecSpace& exec, int count,
                   const backend::BoxCuts& cuts, const Instances& k) {
  backend::for_each_box_3d(
      label, exec, count, cuts, [&](auto in_x, auto in_y, auto in_z) -> const auto& {
        return k
            .template get<decltype(in_x)::value, decltype(in_y)::value, decltype(in_z)::value>();
      });
}

/// The box cuts of a state's strips.
template <class T>
backend::BoxCuts strip_cuts(const State<T>& st) {
  return backend::BoxCuts{{0, st.strip_top, st.nz - st.strip_bottom, st.nz},
                          {0, st.strip_front, st.ny - st.strip_back, st.ny},
                          {0, st.strip_left, st.nx - st.strip_right, st.nx}};
}

/// One backward step on an adjoint state, its functors built once. `free_surface`: the forward
/// steps had one (FreeSurface).
template <class T, int Order, int Dim>
class AdjointStep {
 public:
  AdjointStep(const AdjointState<T>& a, const Coefficients<T, Order>& c, bool free_surface)
      : cuts_(strip_cuts(a.st)),
        whole_{0, a.st.nz, 0, a.st.ny, 0, a.st.nx},
        free_surface_(free_surface),
        surface_(a, c),
        stress_bar_(a, c),
        velocity_bar_(a, c),
        stress_gather_{{}, a, c},
        velocity_gather_{{}, a, c} {}

  /// The free surface's szz = 0 transposed (nothing without one): first in a backward step.
  void surface_stress(const ExecSpace& exec, int count) const {
    if (free_surface_) surface_.stress(exec, count);
  }
  /// E^T: sigmabar^{n+1} -> vbar^{n+1/2} (vbar gains the strains' transposes).
  void adjoint_stress(const ExecSpace& exec, int count) const {
    launch_strips("pwave::physics::elastic::adjoint_stress_bar", exec, count, cuts_, stress_bar_);
    backend::for_each_cell_3d("pwave::physics::elastic::adjoint_stress", exec, count, whole_,
                              stress_gather_);
    if (free_surface_) surface_.mirror(exec, count);
  }
  /// V^T: vbar^{n+1/2} -> sigmabar^n (sigmabar gains the divergence's transposes).
  void adjoint_velocity(const ExecSpace& exec, int count) const {
    launch_strips("pwave::physics::elastic::adjoint_velocity_bar", exec, count, cuts_,
                  velocity_bar_);
    backend::for_each_cell_3d("pwave::physics::elastic::adjoint_velocity", exec, count, whole_,
                              velocity_gather_);
    if (free_surface_) surface_.images(exec, count);
  }

 private:
  backend::BoxCuts cuts_;
  backend::Box whole_;
  bool free_surface_;
  AdjointFreeSurface<T, Order, Dim> surface_;
  StripInstances<AdjointStressBar, T, Order, Dim> stress_bar_;
  StripInstances<AdjointVelocityBar, T, Order, Dim> velocity_bar_;
  AdjointStressGather<T, Order, Dim, false, false, false> stress_gather_;
  AdjointVelocityGather<T, Order, Dim, false, false, false> velocity_gather_;
};

/// The imaging of one step: an ImagingState whose `forward` is the state an update read.
template <class T, int Order, int Dim>
class Imaging {
 public:
  Imaging(const ImagingState<T>& i, const Coefficients<T, Order>& c)
      : cuts_(strip_cuts(i.forward)), velocity_(i, c), stress_(i, c) {}

  /// dJ/dB += vbar^{n+1/2} F^n; `forward` holds sigma^n and psi_sigma^{n-1}.
  void image_velocity(const ExecSpace& exec, int count) const {
    launch_strips("pwave::physics::elastic::image_velocity", exec, count, cuts_, velocity_);
  }
  /// dJ/d(lambda, mu, mu_ac) += sigmabar^{n+1} . e^{n+1/2}; `forward` is the state after step n
  /// (v^{n+1/2} and the velocity memory variables that step advanced; with a free surface the
  /// mirrored vz above it, which makes row 0's ezz 0 here as in the update).
  void image_stress(const ExecSpace& exec, int count) const {
    launch_strips("pwave::physics::elastic::image_stress", exec, count, cuts_, stress_);
  }

 private:
  backend::BoxCuts cuts_;
  StripInstances<ImageVelocity, T, Order, Dim> velocity_;
  StripInstances<ImageStress, T, Order, Dim> stress_;
};

}  // namespace pwave::physics::elastic
