#pragma once
// The acoustic propagator (constant or variable density, 2D or 3D): owns the device data of
// one shot batch and runs the time loop.

#include <type_traits>

#include "pwave/physics/acoustic/adjoint_kernels.hpp"
#include "pwave/physics/acoustic/kernels.hpp"
#include "pwave/physics/acoustic_vd/adjoint_kernels.hpp"
#include "pwave/propagation/batch_propagator.hpp"
#include "pwave/propagation/boundary_storage.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/parameter_grids.hpp"
#include "pwave/propagation/point_taps.hpp"
#include "pwave/propagation/storage.hpp"
#include "pwave/propagation/wavefield_history.hpp"

namespace pwave {

/// Whether equation descriptor P is one AcousticPropagator runs.
template <class P>
inline constexpr bool acoustic_equation = std::is_same_v<P, physics::acoustic::Physics> ||
                                          std::is_same_v<P, physics::acoustic_vd::Physics>;

/// Propagates batches of shots of a ForwardProblem on the default execution space.
/// Construction copies the model, CPML profiles and geometry to the device and allocates the
/// wavefields once; forward() allocates nothing.
template <class T>
class AcousticPropagator : public BatchPropagator<T> {
 public:
  /// What forward() keeps for the gradient: one strategy's history (see Storage), made by
  /// make_history(); the default keeps nothing.
  using History = propagation::WavefieldHistory<T>;

  /// `batch_capacity` = most shots per forward() call; 0 = all shots of the problem.
  explicit AcousticPropagator(const ForwardProblem& problem, int batch_capacity = 0);

  const physics::AcousticState<T>& state() const { return st_; }

  /// Runs shots [first, first + count) from rest and records traces(shot - first, receiver, n)
  /// = u(x_r, n dt). `progress(steps, total)` is called once per step with the counts offset by
  /// `steps_before` and `steps_total`. Throws RuntimeError naming the step on NaN/Inf.
  void forward(int first, int count, const Traces<T>& traces, const ProgressCallback& progress = {},
               long steps_before = 0, long steps_total = 0, const History& history = History());

  /// As above for any set of shots (indices into problem.shots, at most batch_capacity()):
  /// traces(k, ...) belong to shots[k]. This is how minibatches are run.
  void forward(const std::vector<int>& shots, const Traces<T>& traces,
               const ProgressCallback& progress = {}, long steps_before = 0, long steps_total = 0,
               const History& history = History()) override;

  /// Replaces the velocity model by `vp` [nz][nx] ([nz][ny nx] in 3D; m/s, device, model grid)
  /// without a host
  /// copy: v^2 dt^2 is rebuilt on the device, extended into the CPML by edge values. The CPML
  /// profiles stay as built (BoundaryConfig::pml_velocity).
  void set_velocity(const GridView<T>& vp);

  /// Variable density only: replaces the density by `rho` [nz][ny nx] (kg/m^3, device, model
  /// grid), rebuilding rho v^2 dt^2 and the half-point buoyancies on the device.
  void set_density(const GridView<T>& rho);

  /// Replaces material parameter `p` by `values` [nz][ny nx] (its unit, device, model grid):
  /// set_velocity or set_density. Throws RuntimeError for a parameter the equation lacks.
  void set_parameter(physics::Parameter p, const GridView<T>& values) override;

  /// Variable density: the equation's device state over state()'s fields (rho v^2 dt^2, the
  /// half-point buoyancies, the CPML profiles and the flux buffers beside them).
  physics::acoustic_vd::State<T> vd_state() const {
    physics::acoustic_vd::State<T> v = vd_;
    v.st = st_;
    return v;
  }
  /// One variable-density step of shots [0, count) on `v` (vd_state() or a copy of it over
  /// other fields): flux and update launches over the boxes of the padded grid (free-surface
  /// mirror between them), on host backends in 2D the rows between the z strips fused
  /// (acoustic_vd::FusedStep). What forward() runs each step; public for the tests that hold
  /// the two launches to the same bits.
  template <int Order, int Dim>
  void step_vd(const ExecSpace& exec, int count, const physics::acoustic_vd::State<T>& v,
               const physics::acoustic_vd::Coefficients<T, Order>& coef) const;

  /// The equation this propagator runs.
  physics::Equation equation() const { return problem_.equation; }
  /// Imaging channels per shot: 1 (dJ/dw) for constant density, 2 (dJ/dw, dJ/db) for variable
  /// density. shot_imaging() rows stack them along z: [shot][channels nz][ny nx].
  int imaging_channels() const override { return physics::imaging_channels(problem_.equation); }
  /// Rows of an imaging sum: imaging_channels() padded grids stacked along z.
  int imaging_rows() const override { return imaging_channels() * st_.nz; }

  /// Allocates a history able to hold `count` shots with the given strategy (`interval`: steps
  /// between checkpoints, 0 = ceil(sqrt(nt))).
  History make_history(int count, const StorageOptions& options) const override;
  History make_history(int count, Storage storage, int interval) const {
    StorageOptions o(storage);
    o.interval = interval;
    return make_history(count, o);
  }
  /// Bytes per shot a history of this strategy takes.
  double history_bytes_per_shot(const StorageOptions& options) const override;

  /// Padded-grid extents (model + CPML), without the stencil halo.
  int padded_nz() const { return st_.nz; }
  int padded_nx() const { return st_.nx; }
  int padded_ny() const { return st_.ny; }                       ///< 1 in 2D
  int padded_plane() const override { return st_.ny * st_.nx; }  ///< columns of [nz][ny nx] grids

  /// The exact adjoint of forward() for shots [first, first + count): back-propagates the data
  /// residuals `residual` [shot][receiver][time] (the adjoint source, dJ/d(trace)) and adds
  /// dJ/dw, w = v^2 dt^2, on the padded grid to `grad_w` [nz][nx], using the `history` filled by
  /// the forward() call just before (with `boundary` storage it also needs that call's final
  /// wavefields, which it consumes). If `source_adjoint` [shot][time] is given it receives
  /// dJ/ds(t_n) of each shot's wavelet (for adjoint tests).
  void adjoint(int first, int count, const Traces<T>& residual, const History& history,
               const GridView<T>& grad_w,
               const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>& source_adjoint = {});
  /// As adjoint(shots, ...) but without summing the shots: slot k's imaging sum stays in
  /// shot_imaging()(k, z, x) (dJ/dw of that shot = imaging / w^2), so that shots spread over
  /// ranks can be summed in a fixed order (parallel::OrderedSum) and then finished with
  /// add_imaging().
  void adjoint_per_shot(const std::vector<int>& shots, const Traces<T>& residual,
                        const History& history) override;
  const Field<T>& shot_imaging() const override {
    return imaging_channels() > 1 ? shot_channels_ : shot_grad_;
  }
  /// grad_w += imaging / w^2 on the padded grid ([nz][nx] views).
  void add_imaging(const GridView<T>& imaging, const GridView<T>& grad_w) const;

  /// dJ/dp on the model grid [nz][ny nx] of each parameter p that `grads` has an array for (any
  /// of the equation's parameters), from an imaging sum of shot_imaging() rows ([channels
  /// nz][ny nx]): the chain rule from the equation's imaged quantities (w = rho v^2 dt^2, b =
  /// 1/rho) to its parameters, CPML cells folded onto the edge cells they copy
  /// (propagation/chain_rule.cpp). Throws RuntimeError for a parameter the equation lacks.
  void model_gradients(const GridView<T>& imaging, const ParameterGrids<T>& grads) const override;

  /// The adjoint of forward(shots, ...), which must be the forward() call just before.
  void adjoint(const std::vector<int>& shots, const Traces<T>& residual, const History& history,
               const GridView<T>& grad_w,
               const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>& source_adjoint = {});

 private:
  using Base = BatchPropagator<T>;
  using Base::capacity_;
  using Base::check_finite;
  using Base::check_traces;
  using Base::load_batch;
  using Base::nrec_;
  using Base::problem_;
  using Base::scaled_wavelet_;
  using Base::taps_;
  // Steps [n_begin, n_end). `recompute`: continue from the state in st_ (restored from a
  // checkpoint), record nothing, fill the segment of the (checkpoint) history; otherwise start
  // from rest at step 0.
  template <class Physics, int Order, int Dim = 2>
  void forward_impl(int count, const Traces<T>& traces, const ProgressCallback& progress,
                    long steps_before, long steps_total, const History& history, int n_begin,
                    int n_end, bool recompute);
  // What one forward step of an equation does, built once per run by forward_impl from the
  // propagator and the run's traces: fields(p) (the state in parity p's copy), current(p) and
  // next(p) (the fields the histories keep), record, step, inject and free_surface, in the
  // order the loop calls them. acoustic_step.cpp and acoustic_vd_step.cpp, which instantiate the
  // loop (acoustic_forward.hpp) for their equation; PressureForward (acoustic_forward.hpp) is
  // what the two acoustic equations share.
  class PressureForward;
  template <int Order, int Dim>
  class ConstantDensityForward;
  template <int Order, int Dim>
  class VariableDensityForward;
  template <class Physics, int Order, int Dim>
  using Forward =
      std::conditional_t<std::is_same_v<Physics, physics::acoustic::Physics>,
                         ConstantDensityForward<Order, Dim>, VariableDensityForward<Order, Dim>>;
  // One 3D step over the padded grid: the interior and the 26 CPML boxes around it.
  template <int Order>
  void step_3d(const ExecSpace& exec, int count, const physics::AcousticState<T>& st,
               const physics::ScaledStencil<T, Order>& coef) const;
  // The backward step of 3D grids: the 26 boxes around the interior, and in the interior
  // `interior` (a cell functor: the forward interior kernel on G, or that fused with the
  // reversed step), none when it is a null pointer (another launch did it).
  template <int Order, class Interior>
  void adjoint_step_3d(const ExecSpace& exec, int count, const physics::AcousticAdjointState<T>& st,
                       const physics::ScaledStencil<T, Order>& coef,
                       const Interior& interior) const;
  // Stencil coefficients (physics::ScaledStencil, acoustic_vd::Coefficients) for the grid's
  // spacings, dy in 3D only: what every Forward and Backward class builds its kernels with.
  template <class Coefficients, int Dim>
  Coefficients coefficients() const {
    const Grid& g = problem_.model.grid;
    return Coefficients(g.dz, g.dx, Dim == 3 ? g.dy : 0.0);
  }
  void allocate_adjoint_vd();
  void rebuild_vd_material();
  using Snapshots = Kokkos::View<T****, Kokkos::LayoutRight, MemSpace>;
  // dst(k, shot, z, plane index) = u on the padded grid (halo dropped).
  template <int Dim>
  void store_snapshot(const ExecSpace& exec, int count, const Snapshots& dst, const Field<T>& u,
                      int k) const;
  // The second difference D^n = u^{n+1} - 2 u^n + u^{n-1} into d's stored step n / stride.
  void store_difference(const ExecSpace& exec, const propagation::DifferenceHistory<T>& d,
                        const Field<T>& u_next, const Field<T>& u_cur, int count, int n) const;
  using SourceAdjoint = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>;
  // The backward run of both equations (propagation/acoustic_backward.hpp, on the framework's
  // backward_loop.hpp): steps n = nt-1 .. 0 of the batch's `count` shots, the checkpoint
  // segments recomputed, one branch per kind of history; the equation's own kernels come from
  // its Backward class.
  template <class Physics, int Order, bool FreeSurface, int Dim>
  void backward_impl(int count, const Traces<T>& residual, const History& history,
                     const GridView<T>& grad, const SourceAdjoint& source_adjoint);
  // What one backward step of an equation does, in the order backward_impl calls it:
  // source_adjoint, then rebuild_and_image (boundary history), image_differences (stride or
  // compression) or image_snapshots (full, checkpoint), then adjoint_step, inject_residual;
  // finish once at the end. acoustic_propagator_adjoint.cpp and acoustic_vd_adjoint.cpp.
  template <int Order, bool FreeSurface, int Dim>
  class ConstantDensityBackward;
  template <int Order, bool FreeSurface, int Dim>
  class VariableDensityBackward;
  template <class Physics, int Order, bool FreeSurface, int Dim>
  using Backward = std::conditional_t<std::is_same_v<Physics, physics::acoustic::Physics>,
                                      ConstantDensityBackward<Order, FreeSurface, Dim>,
                                      VariableDensityBackward<Order, FreeSurface, Dim>>;
  void allocate_adjoint();
  propagation::FrameRegion frame_region() const;
  void reset();

  physics::AcousticState<T> st_;
  GridView<T> vp_;              // [nz][ny nx] the velocity on the model grid, as last set
  mutable GridView<T> grad_w_;  // padded dJ/dw scratch of model_gradients (constant density)
  physics::AcousticAdjointState<T> adj_;  // allocated by the first adjoint() call
  Field<T> shot_grad_;                    // [shot][nz][nx] dJ/dw per shot, idem
  // Variable density: its device data, the padded density, the backward run's buffers, and
  // the per-shot imaging of both channels packed as shot_imaging() returns them.
  physics::acoustic_vd::State<T> vd_;
  GridView<T> rho_pad_;
  physics::acoustic_vd::AdjointState<T> vd_adj_;
  Field<T> vd_u_;  // u^n in halo layout for the buoyancy imaging (full / checkpoint storage)
  Field<T> shot_channels_;
};

}  // namespace pwave
