#pragma once
// The elastic propagator's runs on the framework's loops (forward_loop.hpp, backward_loop.hpp):
// one step's launches (Steps), ElasticPropagator::forward_impl, which picks the history's keeper,
// and backward_impl, which picks what feeds each backward step's imaging, and the backward run's
// buffers. Included by the generated order units (src/pwave/CMakeLists.txt, pwave_order_units):
// each instantiates the runs of one order, so the compiler builds the four orders side by side
// (nvcc needs minutes for a file holding all of them). elastic_propagator.cpp calls them through
// dispatch().

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/launch.hpp"
#include "backends/wavefront.hpp"
#include "pwave/core/error.hpp"
#include "pwave/physics/elastic/adjoint_step.hpp"
#include "pwave/physics/elastic/free_surface.hpp"
#include "pwave/physics/elastic/physics.hpp"
#include "pwave/physics/elastic/sources_receivers.hpp"
#include "pwave/physics/elastic/step.hpp"
#include "pwave/physics/stencil.hpp"
#include "pwave/propagation/backward_loop.hpp"
#include "pwave/propagation/elastic_propagator.hpp"
#include "pwave/propagation/forward_loop.hpp"
#include "pwave/propagation/wavefront_points.hpp"

namespace pwave {

namespace el = physics::elastic;

namespace elastic_loops {
/// Why a history of another equation family is refused (forward and backward runs).
inline constexpr const char* histories_kept =
    "the elastic equation keeps whole states, update terms or frames (checkpoint, full or "
    "boundary)";

/// The update terms of slot n of a TermHistory (its first terms() of UpdateTerms' list).
template <class T>
el::UpdateTerms<T> terms_at(const propagation::TermHistory<T>& h, int n) {
  el::UpdateTerms<T> terms;
  int k = 0;
  el::UpdateTerms<T>::for_each(terms, [&](Field<T>& f) {
    if (k < h.terms()) f = h.term(n, k);
    ++k;
  });
  return terms;
}
}  // namespace elastic_loops

// ---------------------------------------------------------------------------------------------
// One step's launches on one state: records, the two updates, the source; and the step undone.

template <class T>
template <int Order, int Dim>
class ElasticPropagator<T>::Steps {
 public:
  using Range3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;
  /// `kept`: the steps keep their updates' right-hand sides there, step n in slot
  /// n % kept->steps() (`full` and `checkpoint` storage's imaging).
  Steps(const ElasticPropagator& prop, const el::State<T>& st, const Traces<T>& traces, int count,
        const propagation::TermHistory<T>* kept = nullptr)
      : state_(st),
        count_(count),
        coef_(prop.problem_.model.grid.dz, prop.problem_.model.grid.dx,
              Dim == 3 ? prop.problem_.model.grid.dy : 0.0),
        step_(st, coef_),
        free_surface_(prop.problem_.boundary.free_surface),
        surface_(st),
        column_{st.nx, st.hy, st.ys, st.halo},
        source_(prop.problem_.source_type),
        receivers_(prop.nrec_),
        source_taps_(prop.taps_.source_taps()),
        record_{{traces, st.sxx, st.syy, st.szz, prop.taps_.receivers(), column_, 0},
                {{traces, st.vx, prop.taps_.receivers(), column_, 0},
                 {traces, st.vy, prop.taps_.receivers(), column_, 0},
                 {traces, st.vz, prop.taps_.receivers(), column_, 0}},
                prop.taps_.receiver_components()},
        force_{velocity(st, component_of(source_)),
               buoyancy(st, component_of(source_)),
               prop.taps_.sources(),
               prop.scaled_wavelet_,
               column_,
               0},
        moment_{st.sxx,        st.syy,  st.szz, prop.taps_.sources(),
                prop.moments_, column_, 0,      T(prop.problem_.dt)},
        unforce_{force_.v, force_.b, force_.source, force_.wave, column_, 0},
        unmoment_{st.sxx,        st.syy,  st.szz, prop.taps_.sources(),
                  prop.moments_, column_, 0,      T(prop.problem_.dt)},
        kept_(kept),
        source_points_(prop.taps_.sources()),
        receiver_points_(prop.taps_.receivers()) {}

  static Field<T> velocity(const el::State<T>& st, Component c) {
    return c == Component::vx ? st.vx : c == Component::vy ? st.vy : st.vz;
  }
  static GridView<T> buoyancy(const el::State<T>& st, Component c) {
    return c == Component::vx ? st.bx : c == Component::vy ? st.by : st.bz;
  }
  const el::Coefficients<T, Order>& coefficients() const { return coef_; }

  /// The state every step starts from and leaves (the fields update in place: one copy for
  /// both parities of forward_loop).
  const el::State<T>& fields(int) const { return state_; }
  /// What a `boundary` history keeps: the wavefields on the frame (velocities first), the memory
  /// variables whole.
  std::vector<Field<T>> frame_fields(int) const { return state_.wavefields(); }
  std::vector<Field<T>> frame_memory(int) const { return state_.memory_variables(); }

  /// traces(shot, receiver, n): the state before step n.
  void record(const ExecSpace& exec, int, int n) const {
    Kokkos::parallel_for("pwave::physics::elastic::record",
                         Range3(exec, {0, 0, n}, {count_, receivers_, n + 1}), record_);
  }
  bool free_surface() const { return free_surface_; }

  /// Step n: velocities, a force source, stresses, a pressure source, the free surface's two
  /// launches around the stress update; the updates keep their terms where `kept` says.
  void step(const ExecSpace& exec, int, int n) const {
    if (kept_) {
      const el::UpdateTerms<T> terms = elastic_loops::terms_at(*kept_, n % kept_->steps());
      run_step(
          exec, n, [&] { step_.update_velocity(exec, count_, terms); },
          [&] { step_.update_stress(exec, count_, terms); });
    } else {
      run_step(
          exec, n, [&] { step_.update_velocity(exec, count_); },
          [&] { step_.update_stress(exec, count_); });
    }
  }
  /// step() with its two updates' launches.
  template <class Velocity, class Stress>
  void run_step(const ExecSpace& exec, int n, const Velocity& update_velocity,
                const Stress& update_stress) const {
    const int count = count_;
    const bool pressure = source_ == SourceType::pressure;
    update_velocity();
    if (!pressure) {
      Kokkos::parallel_for("pwave::physics::elastic::inject_force", taps(exec, count, n), force_);
    }
    if (free_surface_) surface_.prepare(exec, count);
    update_stress();
    if (pressure) {
      Kokkos::parallel_for("pwave::physics::elastic::inject_pressure", taps(exec, count, n),
                           moment_);
    }
    if (free_surface_) surface_.images(exec, count);
  }

  /// Host wavefronts (backends/wavefront.hpp): each update is a level of the sweep, a step two
  /// (the velocity update, then the stress update), so that a sweep of m steps runs 2m levels
  /// down each shot's grid, in groups of the launches' blocks of depths (Step::depth_units) at
  /// least the stencil's reach and a receiver's rows tall; the receivers recorded before the
  /// group holding their first row (the fields update in place: WavefrontPoints' `in_place`),
  /// each source tap injected after its group's update, the free surface's mirror after the
  /// velocity update's group holding the rows it reads (the first: the stress update's first
  /// group runs after the velocity update's second), its images after the stress update's
  /// group holding the deepest row they read (the explosive taps there injected first). Every
  /// cell then sees what step() gives it, in the same order: the same values, bit for bit.
  struct Wavefront {
    backend::SlabGroups groups;
    propagation::WavefrontPoints<T> points;
    int mirror = -1, images = -1;  ///< the groups after which the surface's launches run; -1: none
    int levels = 1;                ///< steps per sweep (2 levels each)
  };
  /// `steps`: the steps per sweep asked for (execution.wavefront_steps), at most as many as keep
  /// a sweep's working set within backend::wavefront_cache_bytes: per step, two groups of
  /// depths of every wavefield and material grid with the stencil's reach on either side.
  Wavefront wavefront(int steps) const {
    constexpr int R = physics::StaggeredStencil<Order>::radius;
    const int rows =
        std::max(R, propagation::WavefrontPoints<T>::receiver_rows(receiver_points_, count_));
    backend::SlabGroups groups = backend::wavefront_groups(step_.depth_units(), rows);
    propagation::WavefrontPoints<T> points(source_points_, receiver_points_, count_, groups, true,
                                           true);
    const int mirror = free_surface_ ? groups.group_of(std::min(R - 1, state_.nz - 1)) : -1;
    const int images = free_surface_ ? groups.group_of(std::min(R, state_.nz - 1)) : -1;
    const int grids = Dim == 3 ? 9 + 8 : 5 + 5;  // wavefields, material grids
    const double plane = double(state_.ny) * state_.nx * sizeof(T) * grids;
    const int levels = backend::wavefront_levels(steps, (2.0 * groups.tallest() + 2.0 * R) * plane);
    return {std::move(groups), std::move(points), mirror, images, levels};
  }
  /// Steps [n, n + m) of the batch as one host wavefront per shot (Wavefront), the same values
  /// as m calls of record() and step(), bit for bit. A run that keeps no update terms.
  void sweep(const ExecSpace& exec, int n, int m, const Wavefront& w) const {
    if constexpr (backend::runs_wavefronts<ExecSpace>()) {
      const backend::SlabGroups& g = w.groups;
      const bool pressure = source_ == SourceType::pressure;
      backend::for_each_shot_wavefront(
          "pwave::physics::elastic::wavefront", exec, count_, g.count(), 2 * m,
          [&](int s, int j, int i) {
            const int step = n + j / 2, z0 = g.first_row(i), z1 = g.first_row(i + 1);
            if (j % 2 == 0) {
              w.points.each_receiver(s, i, [&](int r) { record_(s, r, step); });
              step_.update_velocity(s, z0, z1);
              if (!pressure) w.points.each_source_tap(s, i, [&](int k) { force_(s, k, step); });
              if (i == w.mirror) surface_.prepare(s);
            } else {
              step_.update_stress(s, z0, z1);
              if (pressure) w.points.each_source_tap(s, i, [&](int k) { moment_(s, k, step); });
              if (i == w.images) surface_.images(s);
            }
          });
    }
  }

  /// `boundary` storage: step n undone on the state after it, in two halves around the adjoint
  /// stress update, each with its imaging. Between the strips the updates and sources run
  /// backwards (exact to rounding: the leapfrog is reversible where no memory variable acts;
  /// `reverse` launches the reversed update fused with its imaging, Imaging::
  /// image_stress_reversing / image_velocity_reversing); the strips and every memory variable
  /// come from `frames`' slot n; the free surface's images and mirror are rebuilt from the rows
  /// below them. A source's taps in the strips are undone too, then overwritten by the slot.
  /// The first half: sigma^{n+1} -> sigma^n (and the memory variables of the state before step n).
  template <class Reverse>
  void unstep_stress(const ExecSpace& exec, int n, const Reverse& reverse,
                     const propagation::StateFrames<T>& frames) const {
    const int count = count_;
    if (source_ == SourceType::pressure) {
      Kokkos::parallel_for("pwave::physics::elastic::undo_pressure", taps(exec, count, n),
                           unmoment_);
    }
    reverse();
    frames.restore_trailing(exec, count, n);  // the stresses, every memory variable
    if (free_surface_) surface_.images(exec, count);
  }
  /// The second half: v^{n+1/2} -> v^{n-1/2}.
  template <class Reverse>
  void unstep_velocity(const ExecSpace& exec, int n, const Reverse& reverse,
                       const propagation::StateFrames<T>& frames) const {
    const int count = count_;
    if (source_ != SourceType::pressure) {
      Kokkos::parallel_for("pwave::physics::elastic::undo_force", taps(exec, count, n), unforce_);
    }
    reverse();
    frames.restore_leading(exec, count, n);  // the velocities
    if (free_surface_) surface_.prepare(exec, count);
  }

 private:
  const el::State<T> state_;
  const int count_;
  const el::Coefficients<T, Order> coef_;
  const el::Step<T, Order, Dim> step_;
  const bool free_surface_;
  const el::FreeSurface<T, Order, Dim> surface_;
  const physics::ColumnMap column_;
  const SourceType source_;
  const int receivers_, source_taps_;
  const el::RecordComponents<T, Dim> record_;
  const el::InjectForce<T> force_;
  const el::InjectExplosive<T, Dim> moment_;
  const el::InjectForce<T, el::Direction::reverse> unforce_;
  const el::InjectExplosive<T, Dim, el::Direction::reverse> unmoment_;
  const propagation::TermHistory<T>* kept_;
  const physics::PointTaps<T> source_points_, receiver_points_;

  /// The source's taps at step n.
  Range3 taps(const ExecSpace& exec, int count, int n) const {
    return Range3(exec, {0, 0, n}, {count, source_taps_, n + 1});
  }
};

// ---------------------------------------------------------------------------------------------
// Forward.

template <class T>
template <int Order, int Dim>
void ElasticPropagator<T>::forward_impl(int count, const Traces<T>& traces,
                                        const ProgressCallback& progress, long steps_before,
                                        long steps_total, const History& history) {
  using namespace propagation;
  reset();
  ExecSpace exec;
  const Steps<Order, Dim> steps(*this, st_, traces, count);
  const auto report = [&](int done) {
    if (problem_.check_interval > 0 && done % problem_.check_interval == 0) {
      this->check_finite(st_.sxx, count, done);
    }
    if (progress) progress(steps_before + done, steps_total);
  };
  const int nt = problem_.nt;
  const auto run = [&](const auto& keep) { forward_loop(exec, steps, keep, 0, nt, true, report); };
  if constexpr (backend::runs_wavefronts<ExecSpace>()) {
    // A run that keeps nothing, or a checkpoint history's states: several steps per sweep down
    // each shot's grid (Steps::sweep), a checkpoint kept before the sweep that starts at its
    // step (the sweeps end at every checkpoint). A NaN check due within a sweep looks at the
    // state after it.
    const auto* checkpoints = history.template get_if<CheckpointHistory<T>>();
    std::optional<typename Steps<Order, Dim>::Wavefront> swept;
    if (problem_.wavefront_steps > 1 && (history.empty() || checkpoints)) {
      swept = steps.wavefront(problem_.wavefront_steps);
    }
    if (swept && swept->levels > 1) {
      const typename Steps<Order, Dim>::Wavefront& wavefront = *swept;
      const int check = problem_.check_interval;
      const auto sweeps = [&](int n_begin, int n_end) {
        sweep_loop(
            wavefront.levels, n_begin, n_end,
            [&](int, int n, int m) { steps.sweep(exec, n, m, wavefront); },
            [&](int before, int done) {
              if (check > 0 && done / check > before / check) {
                this->check_finite(st_.sxx, count, done);
              }
              if (progress) progress(steps_before + done, steps_total);
            });
      };
      if (checkpoints) {
        const KeepCheckpoints<T, Steps<Order, Dim>> keep{*checkpoints, steps, count};
        for (int n = 0; n < nt; n += checkpoints->interval) {
          keep.before(exec, 0, n);
          sweeps(n, std::min(nt, n + checkpoints->interval));
        }
      } else {
        sweeps(0, nt);
      }
      exec.fence();
      return;
    }
  }
  history.visit([&](const auto& h) {
    using H = std::decay_t<decltype(h)>;
    if constexpr (std::is_same_v<H, TermHistory<T>>) {
      const Steps<Order, Dim> keeping(*this, st_, traces, count, &h);
      forward_loop(exec, keeping, KeepNothing(), 0, nt, true, report);
    } else if constexpr (std::is_same_v<H, FrameHistory<T>>) {
      run(KeepFrames<T>(h, steps, frame_region(), count));
    } else if constexpr (std::is_same_v<H, CheckpointHistory<T>>) {
      run(KeepCheckpoints<T, Steps<Order, Dim>>{h, steps, count});
    } else if constexpr (std::is_same_v<H, SampledStateHistory<T>>) {
      run(KeepSamples<T, Steps<Order, Dim>>{h, steps, count});
    } else if constexpr (std::is_same_v<H, std::monostate>) {
      run(KeepNothing());
    } else {  // a history of one field per step (the acoustic equations'), before any step
      throw RuntimeError(std::string("ElasticPropagator: ") + elastic_loops::histories_kept);
    }
  });
  exec.fence();
}

// ---------------------------------------------------------------------------------------------
// Backward.

/// The backward run's device data, allocated once for the capacity: the adjoint state, the
/// update terms of one checkpoint segment's steps (as its recomputation keeps them), and the
/// images.
template <class T>
struct ElasticPropagator<T>::Backward {
  el::AdjointState<T> adj;
  propagation::TermHistory<T> segment;
  Field<T> image[8];
  el::State<T> decoded;  ///< sampled `full` storage: a slot decoded (allocated when first used)
  int interval = 0;
};

template <class T>
void ElasticPropagator<T>::allocate_backward(int interval) {
  if (back_ && back_->interval == interval) return;
  const bool is3d = problem_.model.grid.is_3d();
  back_ = std::make_shared<Backward>();
  back_->interval = interval;
  back_->adj.st = fresh_state(capacity_);
  for (int i = 0; i < 3; ++i) {
    for (int c = 0; c < 3; ++c) {
      if (!is3d && (i == el::Y || c == el::Y)) continue;
      back_->adj.bar[i][c] =
          Field<T>("pwave::elastic::bar", capacity_, st_.vx.extent(1), st_.vx.extent(2));
    }
  }
  if (interval > 0) {
    back_->segment = propagation::TermHistory<T>::allocate(
        interval, el::UpdateTerms<T>::count(is3d ? 3 : 2), capacity_, st_.nz, st_.ny * st_.nx);
  }
  for (int k = 0; k < imaging_channels(); ++k) {
    back_->image[k] = Field<T>("pwave::elastic::image", capacity_, st_.nz, st_.ny * st_.nx);
  }
}

template <class T>
template <int Order, int Dim>
void ElasticPropagator<T>::backward_impl(int count, const Traces<T>& residual,
                                         const History& history) {
  using Range3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;
  const auto* checkpoints = history.template get_if<propagation::CheckpointHistory<T>>();
  const auto* frames = history.template get_if<propagation::FrameHistory<T>>();
  const auto* samples = history.template get_if<propagation::SampledStateHistory<T>>();
  const auto* terms = history.template get_if<propagation::TermHistory<T>>();
  if (!checkpoints && !frames && !samples && !terms) {
    throw RuntimeError(std::string("ElasticPropagator::adjoint: ") + elastic_loops::histories_kept);
  }
  allocate_backward(checkpoints ? checkpoints->interval : 0);
  Backward& b = *back_;
  if (samples && b.decoded.vx.size() == 0) b.decoded = fresh_state(capacity_);
  ExecSpace exec;
  const int channels = imaging_channels();
  for (int k = 0; k < channels; ++k) Kokkos::deep_copy(exec, b.image[k], T(0));
  for (const Field<T>& f : b.adj.st.checkpointed()) {
    if (f.size() > 0) Kokkos::deep_copy(exec, f, T(0));
  }
  for (int i = 0; i < 3; ++i)
    for (int c = 0; c < 3; ++c)
      if (b.adj.bar[i][c].size() > 0) Kokkos::deep_copy(exec, b.adj.bar[i][c], T(0));

  const Steps<Order, Dim> forward(*this, st_, Traces<T>(), count);
  const el::Coefficients<T, Order>& coef = forward.coefficients();
  const bool fs = forward.free_surface();
  const el::AdjointStep<T, Order, Dim> adjoint(b.adj, coef, fs);
  el::ImagingState<T> images{st_, b.adj.st, {}};
  for (int k = 0; k < channels; ++k) images.image[k] = b.image[k];
  const el::Imaging<T, Order, Dim> image_at_end(images, coef);
  const physics::ColumnMap column{st_.nx, st_.hy, st_.ys, st_.halo};
  const bool pressure_source = problem_.source_type == SourceType::pressure;
  const Component force_c = component_of(problem_.source_type);
  const el::ImageForce<T> image_force{pressure_source
                                          ? Field<T>()
                                          : b.image[force_c == Component::vx   ? el::bx_ch
                                                    : force_c == Component::vy ? el::by_ch
                                                                               : el::bz_ch],
                                      Steps<Order, Dim>::velocity(b.adj.st, force_c),
                                      taps_.sources(),
                                      scaled_wavelet_,
                                      column,
                                      0};
  const el::InjectResidualByCell<T, Dim> inject{{b.adj.st.vx, b.adj.st.vy, b.adj.st.vz},
                                                b.adj.st.sxx,
                                                b.adj.st.syy,
                                                b.adj.st.szz,
                                                residual,
                                                taps_.receiver_cells(),
                                                column};
  const int cells = taps_.receiver_cells().cells();

  // Step n's backward run: stress_half() runs E^T (adjoint.adjoint_stress) with the images of
  // the state after step n (dJ/d(lambda, mu)), velocity_half() V^T (adjoint.adjoint_velocity)
  // with those of the state before it (dJ/db), each the imaging first or the two fused.
  const auto backward_step = [&](int n, const auto& stress_half, const auto& velocity_half) {
    adjoint.surface_stress(exec, count);
    stress_half();
    if (!pressure_source) {
      Kokkos::parallel_for("pwave::physics::elastic::image_force",
                           Range3(exec, {0, 0, n}, {count, taps_.source_taps(), n + 1}),
                           image_force);
    }
    velocity_half();
    Kokkos::parallel_for("pwave::physics::elastic::inject_residual",
                         Range3(exec, {0, 0, n}, {count, cells, n + 1}), inject);
  };
  const auto adjoint_stress = [&] { adjoint.adjoint_stress(exec, count); };
  const auto adjoint_velocity = [&] { adjoint.adjoint_velocity(exec, count); };

  const int nt = problem_.nt;
  // Sampled states: the images of the states `after` step n (null when n is the last step: no
  // residual has reached the adjoint state yet, so its images are 0) and `before` it.
  const auto image_from = [&](int n, const el::Imaging<T, Order, Dim>* after,
                              const el::Imaging<T, Order, Dim>& before) {
    backward_step(
        n,
        [&] {
          if (after) after->image_stress(exec, count);
          adjoint_stress();
        },
        [&] {
          before.image_velocity(exec, count);
          adjoint_velocity();
        });
  };
  // `full` and `checkpoint`: the images of the update terms step n kept (its stress image skipped
  // for the last step, as above), in the transposes' launches.
  const auto image_kept = [&](int n, const el::UpdateTerms<T>& kept) {
    backward_step(
        n,
        [&] {
          if (n + 1 < nt) {
            adjoint.adjoint_stress(exec, count, image_at_end.kept_stress(kept));
          } else {
            adjoint_stress();
          }
        },
        [&] { adjoint.adjoint_velocity(exec, count, image_at_end.kept_velocity(kept)); });
  };
  const auto no_segments = [](int, int, int) {};
  if (frames) {
    // Boundary storage: st_ holds the state after the last step and is run backwards, each
    // backward step undoing its forward step (Steps::unstep_*) with the imaging fused in.
    const propagation::StateFrames<T> saved(*frames, st_.wavefields(), st_.memory_variables(),
                                            frame_region(), Dim);
    const el::Imaging<T, Order, Dim>& image = image_at_end;  // of st_
    propagation::backward_loop(nt, 0, no_segments, [&](int, int n) {
      backward_step(
          n,
          [&] {
            forward.unstep_stress(
                exec, n, [&] { image.image_stress_reversing(exec, count); }, saved);
            adjoint_stress();
          },
          [&] {
            forward.unstep_velocity(
                exec, n, [&] { image.image_velocity_reversing(exec, count); }, saved);
            adjoint_velocity();
          });
    });
  } else if (samples) {
    // `full` with a stride or compression: step n's images for every stride-th n alone, from its
    // slot decoded times stride into one state (the imaging is linear in the forward fields, so
    // they image stride times the step's share; image_stress reads the fields kept from the state
    // after the step, image_velocity those from the state before it); the other steps run the
    // adjoint alone.
    el::ImagingState<T> i = images;
    i.forward = b.decoded;
    const el::Imaging<T, Order, Dim> image_decoded(i, coef);
    propagation::backward_loop(nt, 0, no_segments, [&](int, int n) {
      if (!samples->samples(n)) {
        backward_step(n, adjoint_stress, adjoint_velocity);
        return;
      }
      samples->load(exec, b.decoded, samples->slot(n), count, T(samples->stride));
      image_from(n, n + 1 < nt ? &image_decoded : nullptr, image_decoded);
    });
  } else if (terms) {
    // `full`: the terms every forward step kept; no forward step here.
    propagation::backward_loop(
        nt, 0, no_segments, [&](int, int n) { image_kept(n, elastic_loops::terms_at(*terms, n)); });
  } else {
    // Each segment [n0, n1) recomputed from its checkpoint on st_, its steps keeping their terms
    // in the segment's buffer (step n in slot n % interval: segments start at multiples of it).
    const Steps<Order, Dim> recompute(*this, st_, Traces<T>(), count, &b.segment);
    propagation::backward_loop(
        nt, checkpoints->interval,
        [&](int c, int n0, int n1) {
          checkpoints->template copy<true>(exec, st_, c, count);
          propagation::forward_loop(exec, recompute, propagation::KeepNothing(), n0, n1, false,
                                    [](int) {});
        },
        [&](int, int n) {
          image_kept(n, elastic_loops::terms_at(b.segment, n % b.segment.steps()));
        });
  }
  // The images, stacked along z per slot as shot_imaging() returns them.
  for (int k = 0; k < channels; ++k) {
    Kokkos::deep_copy(
        exec,
        Kokkos::subview(shot_imaging_, std::make_pair(0, count),
                        std::make_pair(k * st_.nz, (k + 1) * st_.nz), Kokkos::ALL),
        Kokkos::subview(b.image[k], std::make_pair(0, count), Kokkos::ALL, Kokkos::ALL));
  }
  exec.fence();
}

/// The explicit instantiations of the loops of order O: float and double, 2D and 3D (at
/// namespace pwave scope), and of the step classes they launch (physics/elastic/instances.hpp).
#define PWAVE_INSTANTIATE_ELASTIC_LOOPS_ONE(T, O, D)                                            \
  template void ElasticPropagator<T>::forward_impl<O, D>(int, const Traces<T>&,                 \
                                                         const ProgressCallback&, long, long,   \
                                                         const ElasticPropagator<T>::History&); \
  template void ElasticPropagator<T>::backward_impl<O, D>(int, const Traces<T>&,                \
                                                          const ElasticPropagator<T>::History&);
#define PWAVE_INSTANTIATE_ELASTIC_LOOPS(O)                    \
  PWAVE_INSTANTIATE_ELASTIC_LOOPS_ONE(float, O, 2)            \
  PWAVE_INSTANTIATE_ELASTIC_LOOPS_ONE(float, O, 3)            \
  PWAVE_INSTANTIATE_ELASTIC_LOOPS_ONE(double, O, 2)           \
  PWAVE_INSTANTIATE_ELASTIC_LOOPS_ONE(double, O, 3)           \
  PWAVE_ELASTIC_INSTANCES(, physics::elastic::Step, O)        \
  PWAVE_ELASTIC_INSTANCES(, physics::elastic::AdjointStep, O) \
  PWAVE_ELASTIC_INSTANCES(, physics::elastic::Imaging, O)

}  // namespace pwave
