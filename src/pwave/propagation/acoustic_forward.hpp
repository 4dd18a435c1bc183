#pragma once
// The acoustic equations' forward run on the framework's loop (forward_loop.hpp): what both
// equations' forward steps share (PressureForward: receivers, source and free surface acting on
// u, the fields in parity copies), the step as the loop runs it (PressureSteps), and
// AcousticPropagator::forward_impl, which picks the history's keeper. Included by the .cpp files
// that define each equation's Forward class, which instantiate forward_impl for it; the backward
// run calls it to recompute checkpoint segments.

#include "backends/launch.hpp"
#include "pwave/core/error.hpp"
#include "pwave/physics/point_sources.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/forward_loop.hpp"
#include "pwave/propagation/wavefront_points.hpp"

namespace pwave {

/// What both acoustic equations' forward steps share: the pressure u and the CPML memory
/// variables in two parity copies (step n of parity p writes u^{n+1} over u^{n-1}: the copies
/// swap u_prev and u_cur, and the constant-density psi buffers), receivers recording u, the
/// source injected into u, and the pressure-release surface mirroring u. Each equation's
/// Forward class derives from it and adds step().
template <class T>
class AcousticPropagator<T>::PressureForward {
 public:
  using State = physics::AcousticState<T>;
  PressureForward(const AcousticPropagator& prop, const Traces<T>& traces)
      : even_(prop.st_),
        odd_(swapped(prop.st_)),
        record_{{traces, even_.u_cur, prop.taps_.receivers(), column(prop.st_), 0},
                {traces, odd_.u_cur, prop.taps_.receivers(), column(prop.st_), 0}},
        inject_{{even_.u_prev, prop.st_.v2dt2, prop.taps_.sources(), prop.scaled_wavelet_,
                 column(prop.st_), 0},
                {odd_.u_prev, prop.st_.v2dt2, prop.taps_.sources(), prop.scaled_wavelet_,
                 column(prop.st_), 0}},
        surface_{{even_.u_prev, prop.st_.halo}, {odd_.u_prev, prop.st_.halo}},
        receivers_(prop.nrec_),
        source_taps_(prop.taps_.source_taps()) {}
  PressureForward(const PressureForward&) = delete;
  PressureForward& operator=(const PressureForward&) = delete;

  /// Parity p's fields: what a checkpoint saves before step p, and what the propagator keeps
  /// after the run.
  const State& fields(int p) const { return p == 0 ? even_ : odd_; }
  /// u^n, which step p reads.
  const Field<T>& current(int p) const { return fields(p).u_cur; }
  /// The buffer step p writes u^{n+1} into (u^{n-1} before it).
  const Field<T>& next(int p) const { return fields(p).u_prev; }

  /// traces(shot, receiver, n) = u^n at the receivers, before step n.
  void record(const ExecSpace& exec, int count, int p, int n) const {
    Kokkos::parallel_for("pwave::physics::acoustic::record",
                         Range3(exec, {0, 0, n}, {count, receivers_, n + 1}), record_[p]);
  }
  /// The source term of step n, added to u^{n+1}.
  void inject(const ExecSpace& exec, int count, int p, int n) const {
    Kokkos::parallel_for("pwave::physics::acoustic::inject",
                         Range3(exec, {0, 0, n}, {count, source_taps_, n + 1}), inject_[p]);
  }
  /// u^{n+1} = 0 at the surface, mirrored above it.
  void free_surface(const ExecSpace& exec, int count, int p) const {
    Kokkos::parallel_for("pwave::physics::acoustic::free_surface",
                         Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
                             exec, {0, 0}, {count, int(next(p).extent(2))}),
                         surface_[p]);
  }

  /// Whether the equation's step runs as host wavefronts (the Forward class's sweep()).
  static constexpr bool sweeps = false;
  /// Host wavefronts: what step n of parity p does at the points of group i of shot s, before
  /// and after the group's update: record() for the receivers the group ends, then inject() for
  /// the source taps in it, and free_surface() after the group `surface` (the one holding the
  /// deepest row the surface reads; -1: no free surface). Host code, called by the sweep.
  void points_before(const propagation::WavefrontPoints<T>& points, int s, int i, int p,
                     int n) const {
    points.each_receiver(s, i, [&](int r) { record_[p](s, r, n); });
  }
  void points_after(const propagation::WavefrontPoints<T>& points, int s, int i, int p, int n,
                    int surface) const {
    points.each_source_tap(s, i, [&](int k) { inject_[p](s, k, n); });
    if (i == surface) {
      for (int x = 0; x < int(next(p).extent(2)); ++x) surface_[p](s, x);
    }
  }

 private:
  using Range3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;
  static State swapped(const State& even) {
    State odd = even;
    std::swap(odd.u_prev, odd.u_cur);
    std::swap(odd.psi_x, odd.psi_x_next);
    std::swap(odd.psi_z, odd.psi_z_next);
    std::swap(odd.psi_y, odd.psi_y_next);
    return odd;
  }
  static physics::ColumnMap column(const State& st) { return {st.nx, st.hy, st.ys, st.halo}; }
  const State even_, odd_;
  const physics::RecordReceivers<T> record_[2];
  const physics::InjectSource<T> inject_[2];
  const physics::FreeSurface<T> surface_[2];
  const int receivers_, source_taps_;
};

/// An acoustic equation's Forward class as forward_loop runs it: its update, the source and the
/// free surface in one step; u^n kept on a `boundary` history's frame (no memory variable: the
/// frame's band lets the reversed step run without one).
template <class T, class Forward>
class PressureSteps {
 public:
  PressureSteps(const Forward& forward, int count, bool free_surface)
      : forward_(forward), count_(count), free_surface_(free_surface) {}
  const physics::AcousticState<T>& fields(int p) const { return forward_.fields(p); }
  void record(const ExecSpace& exec, int p, int n) const { forward_.record(exec, count_, p, n); }
  void step(const ExecSpace& exec, int p, int n) const {
    forward_.step(exec, count_, p);
    forward_.inject(exec, count_, p, n);
    if (free_surface_) forward_.free_surface(exec, count_, p);
  }
  std::vector<Field<T>> frame_fields(int p) const { return {forward_.current(p)}; }
  std::vector<Field<T>> frame_memory(int) const { return {}; }

 private:
  const Forward& forward_;
  const int count_;
  const bool free_surface_;
};

template <class T>
template <class Physics, int Order, int Dim>
void AcousticPropagator<T>::forward_impl(int count, const Traces<T>& traces,
                                         const ProgressCallback& progress, long steps_before,
                                         long steps_total, const History& history, int n_begin,
                                         int n_end, bool recompute) {
  using namespace propagation;
  const auto* checkpoints = history.template get_if<CheckpointHistory<T>>();
  if (recompute && !checkpoints) {
    throw RuntimeError("AcousticPropagator: only checkpoint histories recompute segments");
  }
  if (!recompute) reset();
  ExecSpace exec;
  // The equation's step, with its fields in parity copies (step n of parity p = (n - n_begin)
  // & 1), its receivers, source and free surface: every functor built once, so the time loop
  // only chooses which copy it launches. From step n on, parity p's next() holds u^{n+1} and
  // current() u^n.
  const Forward<Physics, Order, Dim> forward(*this, traces);
  const PressureSteps<T, Forward<Physics, Order, Dim>> steps(forward, count,
                                                             problem_.boundary.free_surface);
  const auto report = [&](int done) {
    if (problem_.check_interval > 0 && done % problem_.check_interval == 0) {
      check_finite(forward.current((done - n_begin) & 1), count, done);
    }
    if (progress) progress(steps_before + done, steps_total);
  };
  // A checkpoint segment's slot 0: u^{n_begin - 1}; slot n - n_begin + 1 then holds u^n.
  if (recompute) store_snapshot<Dim>(exec, count, checkpoints->segment, forward.next(0), 0);
  const auto run = [&](const auto& keep) {
    forward_loop(exec, steps, keep, n_begin, n_end, !recompute, report);
  };
  using StepsOf = Forward<Physics, Order, Dim>;
  if constexpr (StepsOf::sweeps && backend::runs_wavefronts<ExecSpace>()) {
    // A run that keeps nothing, a `boundary` history, an exact `full` one, a checkpoint
    // history's checkpoints or a segment's snapshots (recompute): several steps per sweep down each
    // shot's grid (a shot's wavefront on one thread, or pipelined over several when shots are fewer
    // than threads); the frame, checkpoint or snapshot of each group's rows kept as the sweep
    // reaches them. A NaN check due within a sweep looks at the state after it.
    const auto* frames = recompute ? nullptr : history.template get_if<FrameHistory<T>>();
    const auto* full = recompute ? nullptr : history.template get_if<FullHistory<T>>();
    // The snapshots kept (slot n - base holds u^n), if any.
    const Snapshots* snapshots = full        ? &full->snapshots
                                 : recompute ? &checkpoints->segment
                                             : nullptr;
    const int base = recompute ? n_begin - 1 : 0;
    // The first forward run of a `checkpoint` gradient: its checkpoints, row by row.
    const auto* first_run = recompute ? nullptr : checkpoints;
    // 3D: with the interior on host lines (not z-marched).
    const bool sweepable = ((history.empty() && !recompute) || frames || snapshots || first_run) &&
                           (Dim == 2 || problem_.interior_3d == Interior3D::cells);
    if (problem_.wavefront_steps > 1 && sweepable) {
      const typename StepsOf::Wavefront wavefront = forward.wavefront(count, !recompute);
      const int check = problem_.check_interval;
      const auto sweeps = [&](const auto& keep_rows) {
        sweep_loop(
            wavefront.levels, n_begin, n_end,
            [&](int p, int n, int m) { forward.sweep(exec, count, p, n, m, wavefront, keep_rows); },
            [&](int before, int done) {
              if (check > 0 && done / check > before / check) {
                check_finite(forward.current((done - n_begin) & 1), count, done);
              }
              if (progress) progress(steps_before + done, steps_total);
            });
      };
      if (frames) {
        const KeepFrames<T> keep(*frames, steps, frame_region(), count);
        if (!keep.keeps_by_rows()) {
          throw RuntimeError(
              "AcousticPropagator::forward: a sweeping run cannot keep memory variables whole");
        }
        sweeps([&](int s, int q, int n, int z0, int z1) { keep.before_rows(q, s, n, z0, z1); });
        keep.finish(exec, (n_end - n_begin) & 1, n_end);
      } else if (snapshots) {
        const auto store = [&](int q, int n) {
          return physics::StoreSnapshot<T>{
              *snapshots, forward.current(q), n - base, st_.halo, st_.hy, st_.ys, st_.nx};
        };
        sweeps([&](int s, int q, int n, int z0, int z1) {
          const physics::StoreSnapshot<T> u = store(q, n);
          for (int iz = z0; iz < z1; ++iz) {  // 2D: one line (ny = 1), the row
            for (int iy = 0; iy < st_.ny; ++iy) u.line(s, iz, iy, 0, st_.nx);
          }
        });
        store_snapshot<Dim>(exec, count, *snapshots, forward.current((n_end - n_begin) & 1),
                            n_end - base);
      } else if (first_run) {
        const int interval = first_run->interval;
        sweeps([&](int s, int q, int n, int z0, int z1) {
          if (n % interval == 0) first_run->store_rows(forward.fields(q), n / interval, s, z0, z1);
        });
      } else {
        sweeps([](int, int, int, int, int) {});
      }
      st_ = forward.fields((n_end - n_begin) & 1);
      exec.fence();
      return;
    }
  }
  // u^n into slot n - base of `snapshots`, before step n and after the last.
  const auto keep_u = [&](const Snapshots& snapshots, int base) {
    const auto store = [=, &forward](const ExecSpace& e, int p, int n) {
      store_snapshot<Dim>(e, count, snapshots, forward.current(p), n - base);
    };
    return keep_with(store, keep_none, store);
  };
  if (recompute) {
    run(keep_u(checkpoints->segment, n_begin - 1));
  } else {
    history.visit([&](const auto& h) {
      using H = std::decay_t<decltype(h)>;
      if constexpr (std::is_same_v<H, FullHistory<T>>) {
        run(keep_u(h.snapshots, 0));
      } else if constexpr (std::is_same_v<H, FrameHistory<T>>) {
        run(KeepFrames<T>(h, steps, frame_region(), count));
      } else if constexpr (std::is_same_v<H, CheckpointHistory<T>>) {
        run(KeepCheckpoints<T, decltype(steps)>{h, steps, count});
      } else if constexpr (std::is_same_v<H, DifferenceHistory<T>>) {
        Kokkos::deep_copy(exec, h.previous, T(0));  // u^{-1} = 0
        run(keep_with(
            keep_none,
            [&](const ExecSpace& e, int p, int n) {
              // D^n needs u^{n-1}, which step n overwrote: it was kept at the end of step n-1.
              if (n % h.stride == 0)
                store_difference(e, h, forward.next(p), forward.current(p), count, n);
              if ((n + 1) % h.stride == 0) Kokkos::deep_copy(e, h.previous, forward.current(p));
            },
            keep_none));
      } else if constexpr (std::is_same_v<H, std::monostate>) {
        run(KeepNothing());
      } else {  // before any step
        throw RuntimeError(
            "AcousticPropagator: sampled states and update terms are the elastic equation's "
            "histories");
      }
    });
  }
  // Leave st_ holding the latest fields where the next run (or a restored segment) expects them.
  st_ = forward.fields((n_end - n_begin) & 1);
  exec.fence();
}

}  // namespace pwave

/// The explicit instantiations of forward_impl for equation descriptor P: float and double,
/// orders 2-8, 2D and 3D. In the .cpp that defines P's Forward class, at namespace pwave scope.
#define PWAVE_INSTANTIATE_FORWARD_ONE(T, P, O, D)                 \
  template void AcousticPropagator<T>::forward_impl<P, O, D>(     \
      int, const Traces<T>&, const ProgressCallback&, long, long, \
      const AcousticPropagator<T>::History&, int, int, bool);
#define PWAVE_INSTANTIATE_FORWARD_ORDERS(T, P, D) \
  PWAVE_INSTANTIATE_FORWARD_ONE(T, P, 2, D)       \
  PWAVE_INSTANTIATE_FORWARD_ONE(T, P, 4, D)       \
  PWAVE_INSTANTIATE_FORWARD_ONE(T, P, 6, D)       \
  PWAVE_INSTANTIATE_FORWARD_ONE(T, P, 8, D)
#define PWAVE_INSTANTIATE_FORWARD(P)             \
  PWAVE_INSTANTIATE_FORWARD_ORDERS(float, P, 2)  \
  PWAVE_INSTANTIATE_FORWARD_ORDERS(float, P, 3)  \
  PWAVE_INSTANTIATE_FORWARD_ORDERS(double, P, 2) \
  PWAVE_INSTANTIATE_FORWARD_ORDERS(double, P, 3)
