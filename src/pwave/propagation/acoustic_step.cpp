// The constant-density equation's forward step on the shared propagator (ConstantDensityForward,
// physics/acoustic/kernels.hpp): in 2D the interior and the CPML frame in one sweep (host) or
// one launch per region (GPU), in 3D the interior and the 26 CPML boxes around it. The loop that
// calls it is acoustic_forward.hpp's, instantiated here for this equation.

#include <algorithm>

#include "backends/wavefront.hpp"
#include "backends/z_march.hpp"
#include "pwave/physics/acoustic/forward_boxes_3d.hpp"
#include "pwave/propagation/acoustic_forward.hpp"

namespace pwave {
/// Every functor built once per parity of the step (no View copies or host work per step).
template <class T>
template <int Order, int Dim>
class AcousticPropagator<T>::ConstantDensityForward : public PressureForward {
 public:
  using State = physics::AcousticState<T>;
  ConstantDensityForward(const AcousticPropagator& prop, const Traces<T>& traces)
      : PressureForward(prop, traces),
        prop_(prop),
        coef_(prop.template coefficients<physics::ScaledStencil<T, Order>, Dim>()),
        interior_{{this->fields(0), coef_}, {this->fields(1), coef_}},
        side_{{this->fields(0), coef_}, {this->fields(1), coef_}},
        band_{{this->fields(0), coef_}, {this->fields(1), coef_}},
        corner_{{this->fields(0), coef_}, {this->fields(1), coef_}},
        frame_{prop.st_.nz,         prop.st_.nx,
               prop.st_.strip_top,  prop.st_.nz - prop.st_.strip_bottom,
               prop.st_.strip_left, prop.st_.nx - prop.st_.strip_right} {}
  ConstantDensityForward(const ConstantDensityForward&) = delete;
  ConstantDensityForward& operator=(const ConstantDensityForward&) = delete;

  /// The step runs as host wavefronts too (sweep()).
  static constexpr bool sweeps = true;
  /// What a run's wavefronts need: the frame's units in groups of rows (at least the stencil's
  /// reach and a receiver's rows), the receivers and source taps of each group, and the group
  /// after which the free surface mirrors u^{n+1} (-1: none). `record`: whether the run records
  /// its receivers.
  struct Wavefront {
    backend::WavefrontGroups groups;
    propagation::WavefrontPoints<T> points;
    int surface = -1;
    int levels = 1;  ///< steps per sweep
  };
  Wavefront wavefront(int count, bool record = true) const {
    const auto& taps = prop_.taps_;
    const int rows =
        std::max(physics::Stencil<Order>::radius,
                 propagation::WavefrontPoints<T>::receiver_rows(taps.receivers(), count));
    backend::WavefrontGroups groups = backend::wavefront_groups(
        backend::frame_units<physics::InteriorStep<T, Order>>(frame_), rows);
    propagation::WavefrontPoints<T> points(taps.sources(), taps.receivers(), count, groups, record);
    // The surface reads rows 1 .. halo below it (FreeSurface).
    const int surface = prop_.problem_.boundary.free_surface
                            ? groups.group_of(std::min(prop_.st_.halo, frame_.nz - 1))
                            : -1;
    // Steps per sweep: execution.wavefront_steps; in 3D at most as many as keep a sweep's
    // working set in backend::wavefront_cache_bytes: per step the tallest group's depths of
    // u^{n-1} and v^2 dt^2 and those with R more on either side of u^n (planes of ny x nx).
    int levels = prop_.problem_.wavefront_steps;
    if constexpr (Dim == 3) {
      const double plane = double(prop_.st_.ny) * prop_.st_.nx * sizeof(T);
      levels = backend::wavefront_levels(
          levels, (3.0 * groups.tallest() + 2.0 * physics::Stencil<Order>::radius) * plane);
    }
    return {std::move(groups), std::move(points), surface, levels};
  }
  /// Steps [n, n + m) (step n of parity p) of shots [0, count) as one host wavefront per shot
  /// (backends/wavefront.hpp): each group of rows (3D: depths) of each step gets the updates
  /// step() gives it (2D: the same units of for_each_frame_cell; 3D: the lines of
  /// for_each_box_3d's slabs at those depths), and its receivers, source taps and free surface
  /// as record(), inject() and free_surface() do; the same values, bit for bit. Before a group's
  /// update, `keep_rows(s, q, step, z0, z1)`: what a history keeps of rows [z0, z1) of the
  /// state the step starts from (parity q), which the sweep has finished and not yet overwritten.
  template <class KeepRows>
  void sweep(const ExecSpace& exec, int count, int p, int n, int m, const Wavefront& w,
             const KeepRows& keep_rows) const {
    if constexpr (Dim == 3 && backend::runs_wavefronts<ExecSpace>()) {
      const backend::WavefrontGroups& g = w.groups;
      const backend::BoxCuts cuts = physics::forward_box_cuts(this->fields(0));
      backend::for_each_shot_wavefront(
          "pwave::physics::acoustic3d::wavefront", exec, count, g.count(), m,
          [&](int s, int j, int i) {
            const int q = (p + j) & 1, step = n + j;
            keep_rows(s, q, step, g.first_row(i), g.first_row(i + 1));
            this->points_before(w.points, s, i, q, step);
            backend::host_boxes_3d_depths(cuts,
                                          physics::ForwardBoxes3D<T, Order>{this->fields(q), coef_},
                                          s, g.first_row(i), g.first_row(i + 1));
            this->points_after(w.points, s, i, q, step, w.surface);
          });
    } else if constexpr (Dim == 2 && backend::runs_wavefronts<ExecSpace>()) {
      const backend::WavefrontGroups& g = w.groups;
      backend::for_each_shot_wavefront(
          "pwave::physics::acoustic::wavefront", exec, count, g.count(), m,
          [&](int s, int j, int i) {
            const int q = (p + j) & 1, step = n + j;
            keep_rows(s, q, step, g.first_row(i), g.first_row(i + 1));
            this->points_before(w.points, s, i, q, step);
            for (int u = g.first[std::size_t(i)]; u < g.first[std::size_t(i) + 1]; ++u) {
              backend::host_frame_unit(g.units, s, u, interior_[q], side_[q], band_[q], corner_[q]);
            }
            this->points_after(w.points, s, i, q, step, w.surface);
          });
    }
  }

  /// u^{n+1} (written over u^{n-1}) and the CPML memory variables of parity p's fields.
  void step(const ExecSpace& exec, int count, int p) const {
    if constexpr (Dim == 3) {
      prop_.template step_3d<Order>(exec, count, this->fields(p), coef_);
    } else {
      // The interior, and the CPML frame: left/right strips (x terms), top/bottom bands (z
      // terms), four corners. Host backends do it in one sweep, GPUs in one launch per region.
      backend::for_each_frame_cell("pwave::physics::acoustic::step", exec, count, frame_,
                                   interior_[p], side_[p], band_[p], corner_[p]);
    }
  }

 private:
  const AcousticPropagator& prop_;
  const physics::ScaledStencil<T, Order> coef_;
  const physics::InteriorStep<T, Order> interior_[2];
  const physics::CpmlStep<T, Order, true, false> side_[2];
  const physics::CpmlStep<T, Order, false, true> band_[2];
  const physics::CpmlStep<T, Order, true, true> corner_[2];
  const backend::Frame frame_;
};

template <class T>
template <int Order>
void AcousticPropagator<T>::step_3d(const ExecSpace& exec, int count,
                                    const physics::AcousticState<T>& st,
                                    const physics::ScaledStencil<T, Order>& coef) const {
  // Each box launched with the kernel of exactly the strips it lies in, so no cell tests which.
  backend::for_each_box_3d_marched(
      "pwave::physics::acoustic3d::step", exec, count, physics::forward_box_cuts(st),
      physics::ForwardBoxes3D<T, Order>{st, coef}, problem_.interior_3d == Interior3D::z_march);
}

PWAVE_INSTANTIATE_FORWARD(physics::acoustic::Physics)

}  // namespace pwave
