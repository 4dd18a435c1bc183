#pragma once
// The isotropic elastic propagator (physics/elastic/): velocities and stresses on a staggered
// grid, 2D and 3D, batches of shots, receivers recording the pressure or a particle velocity
// (each its own: ShotGeometry::components), sources injecting a pressure (an explosion) or a force,
// and the exact adjoint with the gradients with respect to vp, vs and rho. The gradient's imaging
// multiplies the adjoint fields by the right-hand sides of every step's updates (the divergence
// of the stresses, the strain rates): it keeps checkpoints (Storage::checkpoint) and recomputes
// one segment at a time, its steps keeping those terms; keeps every step's terms as the forward
// run computes them (Storage::full; with a stride or compression the states every stride-th
// step's imaging reads, in the format asked: approximate); or keeps the CPML strips and memory
// variables of every step and runs the interior backwards (Storage::boundary).

#include <array>
#include <memory>
#include <vector>

#include "pwave/physics/elastic/update_terms.hpp"
#include "pwave/propagation/batch_propagator.hpp"

namespace pwave {

template <class T>
class ElasticPropagator : public BatchPropagator<T> {
 public:
  using History = propagation::WavefieldHistory<T>;

  /// `batch_capacity` = most shots per forward() call; 0 = all shots of the problem.
  explicit ElasticPropagator(const ForwardProblem& problem, int batch_capacity = 0);
  ~ElasticPropagator() override;

  /// traces(k, receiver, n) of shot shots[k]: the pressure -tr(sigma)/Dim at t_n, or the
  /// velocity component at t_{n - 1/2} (what is recorded before step n). With a checkpoint
  /// `history`, the state every interval steps is kept for adjoint_per_shot().
  void forward(const std::vector<int>& shots, const Traces<T>& traces,
               const ProgressCallback& progress = {}, long steps_before = 0, long steps_total = 0,
               const History& history = History()) override;
  void adjoint_per_shot(const std::vector<int>& shots, const Traces<T>& residual,
                        const History& history) override;
  /// [slot][channels nz][ny nx]: the images of the step's coefficient arrays (dt lambda, dt mu,
  /// dt b_x, dt b_z, dt mu_xz; 3D: dt b_y, dt mu_xy, dt mu_yz), stacked along z.
  const Field<T>& shot_imaging() const override { return shot_imaging_; }
  int imaging_channels() const override;
  int imaging_rows() const override { return imaging_channels() * st_.nz; }
  int padded_plane() const override { return st_.ny * st_.nx; }

  /// vp, vs (m/s) or rho (kg/m^3) on the model grid [nz][ny nx] (device): the coefficients are
  /// rebuilt on the device. The sources' scaling and the CPML stay as built.
  void set_parameter(physics::Parameter p, const GridView<T>& values) override;
  /// dJ/dvp, dJ/dvs, dJ/drho on the model grid from an imaging sum of shot_imaging() rows.
  void model_gradients(const GridView<T>& imaging, const ParameterGrids<T>& grads) const override;

  /// Storage::checkpoint, Storage::boundary, Storage::full without stride or compression (a
  /// checkpoint every step), or with them (propagation::SampledStateHistory).
  History make_history(int count, const StorageOptions& options) const override;
  double history_bytes_per_shot(const StorageOptions& options) const override;

 private:
  using Base = BatchPropagator<T>;
  using Base::capacity_;
  using Base::check_traces;
  using Base::load_batch;
  using Base::nrec_;
  using Base::problem_;
  using Base::scaled_wavelet_;
  using Base::scaled_wavelet_host_;
  using Base::taps_;

  // The time loops and their helpers: elastic_loops.hpp, instantiated once per order.
  template <int Order, int Dim>
  class Steps;
  template <int Order, int Dim>
  void forward_impl(int count, const Traces<T>& traces, const ProgressCallback& progress,
                    long steps_before, long steps_total, const History& history);
  template <int Order, int Dim>
  void backward_impl(int count, const Traces<T>& residual, const History& history);
  /// back_ for checkpoints `interval` steps apart (kept while the interval stays; 0 for the
  /// other storages: no segment).
  void allocate_backward(int interval);
  /// How many update terms a step keeps (physics::elastic::UpdateTerms): 5 in 2D, 9 in 3D.
  int update_terms() const;
  /// The `boundary` storage's frame: the CPML strips, without the acoustic equations' band (the
  /// interior update reads no memory variable), in st_'s column map.
  propagation::FrameRegion frame_region() const;
  /// Calls f(order, dim) with compile-time order and dimension.
  template <class F>
  void dispatch(F&& f) const;

  void wavelets_changed() override;
  /// The explosive source's moment table for the current batch (pressure sources).
  void load_moments();
  void rebuild_material();
  void reset();
  /// A zero state of st_'s layout with fields of its own, `count` shots.
  physics::elastic::State<T> fresh_state(int count) const;

  physics::elastic::State<T> st_;
  GridView<T> vp_, vs_, rho_;              ///< model grid, as last set
  GridView<T> vp_pad_, vs_pad_, rho_pad_;  ///< the padded grid's copies
  /// vp^2 at each shot's source cell in the model given at construction: the pressure source's
  /// scaling (fixed while an inversion changes vp).
  std::vector<double> source_vp2_;
  /// [slot][time]: -vp_s^2 dt sum_{k <= n} s_k / V, the moment of a pressure source.
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> moments_;
  std::vector<int> moments_batch_;
  Field<T> shot_imaging_;
  /// The backward run's buffers, allocated by the first adjoint_per_shot().
  struct Backward;
  std::shared_ptr<Backward> back_;
};

}  // namespace pwave
