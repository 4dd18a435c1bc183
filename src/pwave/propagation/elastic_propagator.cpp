#include "pwave/propagation/elastic_propagator.hpp"

#include <cmath>
#include <string>

#include "backends/launch.hpp"
#include "pwave/core/error.hpp"
#include "pwave/physics/cpml.hpp"
#include "pwave/physics/elastic/adjoint_kernels.hpp"
#include "pwave/physics/elastic/material.hpp"
#include "pwave/physics/elastic/physics.hpp"
#include "pwave/propagation/chain_rule.hpp"
#include "pwave/propagation/extend_model.hpp"
#include "pwave/propagation/field_block.hpp"
#include "pwave/propagation/padded_layout.hpp"
#include "pwave/propagation/wavefield_layout.hpp"

namespace pwave {

namespace el = physics::elastic;

namespace {

/// Where the points of the field a source or receiver acts on lie, in cells (kernels.hpp's
/// table): velocities half a cell along their own axis, the pressure at the cells.
Position stagger_of(Component c) {
  Position p;
  if (c == Component::vx) p.x = 0.5;
  if (c == Component::vy) p.y = 0.5;
  if (c == Component::vz) p.z = 0.5;
  return p;
}
std::array<Position, component_count> component_staggers() {
  return {stagger_of(Component::pressure), stagger_of(Component::vx), stagger_of(Component::vy),
          stagger_of(Component::vz)};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Construction and model.

template <class T>
ElasticPropagator<T>::ElasticPropagator(const ForwardProblem& problem, int batch_capacity)
    : BatchPropagator<T>(problem, batch_capacity, "ElasticPropagator",
                         stagger_of(component_of(problem.source_type)), component_staggers()) {
  const Grid& g = problem_.model.grid;
  const bool is3d = g.is_3d();
  if (problem_.model.vs.size() != problem_.model.vp.size() ||
      problem_.model.rho.size() != problem_.model.vp.size()) {
    throw InputError("model.vs", "", "the elastic equation needs vp, vs and rho of the same shape");
  }
  bool vy = false;
  for (const ShotGeometry& shot : problem_.shots)
    for (std::size_t r = 0; r < shot.receivers.size(); ++r)
      vy = vy || shot.component(r) == Component::vy;
  if (!is3d && (problem_.source_type == SourceType::force_y || vy))
    throw InputError("acquisition", "", "force_y and vy exist on 3D models only");
  const propagation::PaddedLayout layout = propagation::PaddedLayout::of(problem_);
  const int R = layout.radius;
  st_.nz = layout.nz, st_.nx = layout.nx, st_.ny = layout.ny;
  st_.halo = R, st_.hy = is3d ? R : 0;
  st_.strip_top = layout.strip[top], st_.strip_bottom = layout.strip[bottom];
  st_.strip_left = layout.strip[left], st_.strip_right = layout.strip[right];
  st_.strip_front = layout.strip[front], st_.strip_back = layout.strip[back];
  st_.ys = propagation::WavefieldLayout::of(layout, is3d, sizeof(T)).line;
  const int plane = st_.ny * st_.nx;
  // lambda, mu, bx, bz, mu_xz, by, mu_xy, mu_yz: one block (FieldBlock), the 3D ones empty in 2D.
  const propagation::BlockExtents cells{1, st_.nz, plane},
      only3d = is3d ? cells : propagation::BlockExtents{};
  const propagation::FieldBlock<T> material(
      "pwave::elastic::material", {cells, cells, cells, cells, cells, only3d, only3d, only3d});
  st_.lambda = material.grid(0), st_.mu = material.grid(1);
  st_.bx = material.grid(2), st_.bz = material.grid(3), st_.mu_xz = material.grid(4);
  st_.by = material.grid(5), st_.mu_xy = material.grid(6), st_.mu_yz = material.grid(7);
  st_.material_memory = material.storage();

  // CPML: the acoustic equations' profiles at the cells and at the half points, per axis.
  const BoundaryConfig& bc = problem_.boundary;
  const double vmax = bc.pml_velocity > 0 ? bc.pml_velocity : problem_.model.vmax();
  const double f = bc.pml_frequency > 0 ? bc.pml_frequency : problem_.peak_frequency;
  const auto axis = [&](int lo, int cells, int hi, double h, el::AxisCpml<T>& a, const char* n) {
    const auto cell = physics::cpml_profile(lo, cells, hi, h, problem_.dt, vmax, f, bc.reflection,
                                            problem_.order);
    const auto half =
        physics::cpml_profile_half(lo, cells, hi, h, problem_.dt, vmax, f, bc.reflection);
    const std::string name(n);
    a.cell.a = to_device<T>(cell.a, "pwave::elastic::cpml_a" + name);
    a.cell.b = to_device<T>(cell.b, "pwave::elastic::cpml_b" + name);
    a.half.a = to_device<T>(half.a, "pwave::elastic::cpml_half_a" + name);
    a.half.b = to_device<T>(half.b, "pwave::elastic::cpml_half_b" + name);
  };
  axis(layout.layer[left], g.nx, layout.layer[right], g.dx, st_.cpml[el::X], "x");
  axis(layout.layer[top], g.nz, layout.layer[bottom], g.dz, st_.cpml[el::Z], "z");
  if (is3d) axis(layout.layer[front], g.ny, layout.layer[back], g.dy, st_.cpml[el::Y], "y");
  st_ = fresh_state(capacity_);  // the batch's fields

  vp_ = this->model_grid(physics::Parameter::vp);
  vs_ = this->model_grid(physics::Parameter::vs);
  rho_ = this->model_grid(physics::Parameter::rho);
  vp_pad_ = GridView<T>("pwave::elastic::vp_padded", st_.nz, plane);
  vs_pad_ = GridView<T>("pwave::elastic::vs_padded", st_.nz, plane);
  rho_pad_ = GridView<T>("pwave::elastic::rho_padded", st_.nz, plane);
  rebuild_material();

  // The pressure source's scaling: vp^2 at the cell nearest each source.
  for (const ShotGeometry& shot : problem_.shots) {
    const auto nearest = [](double x, double h, int n) {
      return std::min(std::max(int(std::lround(x / h)), 0), n - 1);
    };
    const int iz = nearest(shot.source.z, g.dz, g.nz), ix = nearest(shot.source.x, g.dx, g.nx);
    const int iy = is3d ? nearest(shot.source.y, g.dy, g.ny) : 0;
    const double v = problem_.model.at(iz, iy, ix);
    source_vp2_.push_back(v * v);
  }
  moments_ = decltype(moments_)("pwave::elastic::moments", capacity_, problem_.nt);
  shot_imaging_ = Field<T>("pwave::elastic::shot_imaging", capacity_, imaging_rows(), plane);
}

template <class T>
ElasticPropagator<T>::~ElasticPropagator() = default;

template <class T>
int ElasticPropagator<T>::imaging_channels() const {
  return el::Physics::model_arrays_of(problem_.model.grid.is_3d() ? 3 : 2);
}

template <class T>
el::State<T> ElasticPropagator<T>::fresh_state(int count) const {
  el::State<T> s = st_;
  const bool is3d = st_.hy > 0;
  const int R = st_.halo, plane = st_.ny * st_.nx;
  const int rows = st_.nz + 2 * R, cols = (st_.ny + 2 * st_.hy) * st_.ys;
  // The fields of checkpointed(), in its order, as one block (FieldBlock); empty where unused.
  using propagation::BlockExtents;
  const BlockExtents none{}, wave{count, rows, cols}, wave3d = is3d ? wave : none;
  std::vector<BlockExtents> views = {wave, wave3d, wave, wave, wave3d, wave, wave3d, wave, wave3d};
  const BlockExtents memory[3] = {
      {count, st_.nz, st_.ny * (st_.strip_left + st_.strip_right)},                    // x strips
      is3d ? BlockExtents{count, st_.nz, (st_.strip_front + st_.strip_back) * st_.nx}  // y strips
           : none,
      {count, st_.strip_top + st_.strip_bottom, plane}};  // z strips
  for (int a : {el::X, el::Y, el::Z}) {
    for (int c : {el::X, el::Y, el::Z}) {
      const BlockExtents m = is3d || c != el::Y ? memory[a] : none;
      views.insert(views.end(), {m, m});  // stress[c], velocity[c]
    }
  }
  const propagation::FieldBlock<T> block("pwave::elastic::fields", views);
  std::size_t k = 0;
  el::State<T>::for_each_checkpointed(s, [&](Field<T>& f) { f = block.field(k++); });
  s.field_memory = block.storage();
  return s;
}

template <class T>
void ElasticPropagator<T>::rebuild_material() {
  const Grid& g = problem_.model.grid;
  const propagation::PaddedLayout layout = propagation::PaddedLayout::of(problem_);
  const propagation::Identity<T> same;
  propagation::extend_model("pwave::elastic::extend_vp", layout, g.nz, g.ny, g.nx, vp_, vp_pad_,
                            same);
  propagation::extend_model("pwave::elastic::extend_vs", layout, g.nz, g.ny, g.nx, vs_, vs_pad_,
                            same);
  propagation::extend_model("pwave::elastic::extend_rho", layout, g.nz, g.ny, g.nx, rho_, rho_pad_,
                            same);
  Kokkos::parallel_for(
      "pwave::physics::elastic::material",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {st_.nz, st_.ny * st_.nx}),
      el::BuildMaterial<T>{st_, vp_pad_, vs_pad_, rho_pad_, T(problem_.dt),
                           problem_.boundary.free_surface});
  Kokkos::fence();
}

template <class T>
void ElasticPropagator<T>::set_parameter(physics::Parameter p, const GridView<T>& values) {
  const Grid& g = problem_.model.grid;
  if (int(values.extent(0)) != g.nz || int(values.extent(1)) != g.ny * g.nx) {
    throw RuntimeError(std::string("ElasticPropagator::set_parameter: ") + physics::name(p) +
                       " must be the model grid [nz][ny nx]");
  }
  GridView<T>& dst = p == physics::Parameter::vp ? vp_ : p == physics::Parameter::vs ? vs_ : rho_;
  Kokkos::deep_copy(dst, values);
  rebuild_material();
}

template <class T>
void ElasticPropagator<T>::wavelets_changed() {
  moments_batch_.clear();  // the moments follow the wavelets: rebuilt for the next batch
}

template <class T>
void ElasticPropagator<T>::load_moments() {
  const std::vector<int>& batch = this->batch();
  if (problem_.source_type != SourceType::pressure || batch == moments_batch_) return;
  auto h = Kokkos::create_mirror_view(moments_);
  Kokkos::deep_copy(h, moments_);
  // scaled_wavelet_ row k holds slot k's s_n / V (the host mirror is current).
  for (std::size_t k = 0; k < batch.size(); ++k) {
    const double scale = -source_vp2_[std::size_t(batch[k])] * problem_.dt;
    double sum = 0;
    for (int n = 0; n < problem_.nt; ++n) {
      sum += double(scaled_wavelet_host_(k, n));
      h(k, n) = T(scale * sum);
    }
  }
  Kokkos::deep_copy(moments_, h);
  moments_batch_ = batch;
}

template <class T>
propagation::FrameRegion ElasticPropagator<T>::frame_region() const {
  // No band: the interior update reads no memory variable, so it is undone up to the strips.
  return propagation::FrameRegion(st_.nz, st_.nx, st_.strip_top, st_.strip_bottom, st_.strip_left,
                                  st_.strip_right, 0, st_.ny, st_.strip_front, st_.strip_back)
      .on_columns(st_.halo, st_.hy, st_.ys);
}

template <class T>
void ElasticPropagator<T>::reset() {
  for (const Field<T>& f : st_.checkpointed()) {
    if (f.size() > 0) Kokkos::deep_copy(f, T(0));
  }
}

template <class T>
template <class F>
void ElasticPropagator<T>::dispatch(F&& f) const {
  const bool is3d = problem_.model.grid.is_3d();
  const bool known = physics::with_order(problem_.order, [&](auto order) {
    constexpr int O = decltype(order)::value;
    if (is3d) {
      f(std::integral_constant<int, O>{}, std::integral_constant<int, 3>{});
    } else {
      f(std::integral_constant<int, O>{}, std::integral_constant<int, 2>{});
    }
  });
  if (!known) throw InputError("physics.order", "", "order must be 2, 4, 6 or 8");
}

// ---------------------------------------------------------------------------------------------
// Forward.

template <class T>
void ElasticPropagator<T>::forward(const std::vector<int>& shots, const Traces<T>& traces,
                                   const ProgressCallback& progress, long steps_before,
                                   long steps_total, const History& history) {
  load_batch(shots);
  load_moments();
  const int count = int(shots.size());
  check_traces("ElasticPropagator::forward: the traces", traces, count);
  if (!history.empty() && !history.holds(problem_.nt, count)) {
    throw RuntimeError("ElasticPropagator::forward: history has the wrong shape");
  }
  dispatch([&](auto order, auto dim) {
    forward_impl<decltype(order)::value, decltype(dim)::value>(count, traces, progress,
                                                               steps_before, steps_total, history);
  });
}

// ---------------------------------------------------------------------------------------------
// Histories.

template <class T>
int ElasticPropagator<T>::update_terms() const {
  return physics::elastic::UpdateTerms<T>::count(problem_.model.grid.is_3d() ? 3 : 2);
}

template <class T>
typename ElasticPropagator<T>::History ElasticPropagator<T>::make_history(
    int count, const StorageOptions& options) const {
  if (options.strategy == Storage::boundary) {
    return History(propagation::FrameHistory<T>::allocate(
        frame_region(), problem_.nt, count, int(st_.wavefields().size()), st_.memory_variables()));
  }
  if (options.strategy == Storage::full && !options.exact_full()) {
    if (options.stride < 1) throw RuntimeError("ElasticPropagator: gradient.stride must be >= 1");
    return History(propagation::SampledStateHistory<T>::allocate(st_, problem_.nt, count, options));
  }
  if (options.strategy == Storage::full) {
    // Every step's update terms, kept by the forward run's updates.
    return History(propagation::TermHistory<T>::allocate(problem_.nt, update_terms(), count, st_.nz,
                                                         st_.ny * st_.nx));
  }
  auto h = propagation::CheckpointHistory<T>::allocate(st_, problem_.nt, count, options);
  h.segment = decltype(h.segment)();  // the backward run keeps its own segment (of update terms)
  return History(std::move(h));
}

template <class T>
double ElasticPropagator<T>::history_bytes_per_shot(const StorageOptions& options) const {
  if (options.strategy == Storage::boundary) {
    double memory = 0;
    for (const Field<T>& f : st_.memory_variables()) memory += double(f.extent(1)) * f.extent(2);
    return propagation::FrameHistory<T>::bytes_per_shot(frame_region(), problem_.nt,
                                                        int(st_.wavefields().size()), memory);
  }
  double state = 0;
  for (const Field<T>& f : st_.checkpointed()) state += double(f.extent(1)) * f.extent(2);
  const double cells = double(st_.nz) * st_.ny * st_.nx;
  if (options.strategy == Storage::full && !options.exact_full()) {
    // The slots, and the state the backward run decodes them into.
    return propagation::SampledStateHistory<T>::bytes_per_shot(st_, problem_.nt, options) +
           state * sizeof(T);
  }
  if (options.strategy == Storage::full) {
    return propagation::TermHistory<T>::bytes_per_shot(problem_.nt, update_terms(), cells);
  }
  const int k = propagation::CheckpointHistory<T>::interval_for(problem_.nt, options.interval);
  const double checkpoints = (problem_.nt + k - 1) / k;
  // The checkpoints, and the backward run's segment: the update terms of k steps.
  return checkpoints * state * sizeof(T) +
         propagation::TermHistory<T>::bytes_per_shot(k, update_terms(), cells);
}

// ---------------------------------------------------------------------------------------------
// Backward.

template <class T>
void ElasticPropagator<T>::adjoint_per_shot(const std::vector<int>& shots,
                                            const Traces<T>& residual, const History& history) {
  if (shots != this->batch()) {
    throw RuntimeError("ElasticPropagator::adjoint: run forward() on the same shots first");
  }
  const int count = int(shots.size());
  check_traces("ElasticPropagator::adjoint: the residuals", residual, count);
  if (!history.holds(problem_.nt, count)) {
    throw RuntimeError(
        "ElasticPropagator::adjoint: needs the history of the forward() just before");
  }
  dispatch([&](auto order, auto dim) {
    backward_impl<decltype(order)::value, decltype(dim)::value>(count, residual, history);
  });
}

// ---------------------------------------------------------------------------------------------
// The chain rule.

template <class T>
void ElasticPropagator<T>::model_gradients(const GridView<T>& imaging,
                                           const ParameterGrids<T>& grads) const {
  const Grid& g = problem_.model.grid;
  const int channels = imaging_channels(), nz = st_.nz, plane = st_.ny * st_.nx;
  if (int(imaging.extent(0)) != channels * nz || int(imaging.extent(1)) != plane) {
    throw RuntimeError("ElasticPropagator::model_gradients: the imaging is " +
                       std::to_string(imaging.extent(0)) + " x " +
                       std::to_string(imaging.extent(1)) + ", expected " +
                       std::to_string(channels * nz) + " x " + std::to_string(plane));
  }
  for (const physics::Parameter p : physics::all_parameters) {
    if (grads.has(p) &&
        (int(grads[p].extent(0)) != g.nz || int(grads[p].extent(1)) != g.ny * g.nx)) {
      throw RuntimeError(std::string("ElasticPropagator::model_gradients: the gradient of ") +
                         physics::name(p) + " must be the model grid [nz][ny nx]");
    }
  }
  el::MaterialGradient<T, 3> chain3;
  el::MaterialGradient<T, 2> chain2;
  const auto run = [&](auto& chain) {
    chain.material = el::BuildMaterial<T>{st_,      vp_pad_,        vs_pad_,
                                          rho_pad_, T(problem_.dt), problem_.boundary.free_surface};
    for (int k = 0; k < channels; ++k) {
      chain.image[k] = Field<T>("pwave::elastic::image_sum", 1, nz, plane);
      Kokkos::deep_copy(
          Kokkos::subview(chain.image[k], 0, Kokkos::ALL, Kokkos::ALL),
          Kokkos::subview(imaging, std::make_pair(k * nz, (k + 1) * nz), Kokkos::ALL));
    }
    chain.vp = Field<T>("pwave::elastic::dvp_padded", 1, nz, plane);
    chain.vs = Field<T>("pwave::elastic::dvs_padded", 1, nz, plane);
    chain.rho = Field<T>("pwave::elastic::drho_padded", 1, nz, plane);
    Kokkos::parallel_for(
        "pwave::physics::elastic::material_gradient",
        Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>({0, 0, 0}, {1, nz, plane}), chain);
    const auto fold = [&](physics::Parameter p, const Field<T>& padded) {
      if (!grads.has(p)) return;
      fold_padding(problem_, GridView<T>(Kokkos::subview(padded, 0, Kokkos::ALL, Kokkos::ALL)),
                   grads[p]);
    };
    fold(physics::Parameter::vp, chain.vp);
    fold(physics::Parameter::vs, chain.vs);
    fold(physics::Parameter::rho, chain.rho);
  };
  if (g.is_3d()) {
    run(chain3);
  } else {
    run(chain2);
  }
  Kokkos::fence();
}

template class ElasticPropagator<float>;
template class ElasticPropagator<double>;

}  // namespace pwave
