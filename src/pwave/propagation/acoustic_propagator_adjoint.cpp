// The constant-density equation's backward step (ConstantDensityBackward): the exact transpose
// of its forward step, with the imaging condition for dJ/d(v^2 dt^2); the loop that runs it is
// acoustic_backward.hpp's, the entry points acoustic_propagator_backward.cpp.

#include <algorithm>

#include "backends/launch.hpp"
#include "backends/wavefront.hpp"
#include "backends/z_march.hpp"
#include "pwave/core/error.hpp"
#include "pwave/physics/acoustic/adjoint_boxes_3d.hpp"
#include "pwave/physics/point_sources.hpp"
#include "pwave/propagation/acoustic_backward.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "pwave/propagation/wavefront_points.hpp"

namespace pwave {

template <class T>
void AcousticPropagator<T>::allocate_adjoint() {
  if (adj_.g_cur.extent(0) > 0) return;
  adj_.nz = st_.nz, adj_.nx = st_.nx, adj_.halo = st_.halo;
  adj_.strip_top = st_.strip_top, adj_.strip_bottom = st_.strip_bottom;
  adj_.strip_left = st_.strip_left, adj_.strip_right = st_.strip_right;
  adj_.ny = st_.ny, adj_.strip_front = st_.strip_front, adj_.strip_back = st_.strip_back;
  adj_.hy = st_.hy, adj_.ys = st_.ys;
  adj_.v2dt2 = st_.v2dt2;
  // CPML profiles on halo-padded axes, zero outside the grid, and the strip indicators.
  const int R = st_.halo;
  auto padded_axis = [R](const physics::CpmlAxis<T>& p, const char* axis) {
    auto pad = [R, axis](const Kokkos::View<T*, MemSpace>& v, const char* what) {
      Kokkos::View<T*, MemSpace> out("pwave::adj_cpml_" + std::string(what) + axis,
                                     v.extent(0) + 2 * R);
      Kokkos::deep_copy(Kokkos::subview(out, std::make_pair(R, R + int(v.extent(0)))), v);
      return out;
    };
    return physics::CpmlAxis<T>{pad(p.a, "a"), pad(p.b, "b"), pad(p.ab, "ab"), pad(p.db, "db")};
  };
  auto indicator = [R](int n, int lo, int hi, const char* name) {
    Kokkos::View<T*, MemSpace> out(std::string(name), n + 2 * R);
    auto h = Kokkos::create_mirror_view(out);
    for (int i = 0; i < n; ++i) h(i + R) = (i < lo || i >= n - hi) ? T(1) : T(0);
    Kokkos::deep_copy(out, h);
    return out;
  };
  adj_.cx = padded_axis(st_.cx, "x");
  adj_.cz = padded_axis(st_.cz, "z");
  adj_.chix = indicator(st_.nx, st_.strip_left, st_.strip_right, "pwave::adj_chix");
  adj_.chiz = indicator(st_.nz, st_.strip_top, st_.strip_bottom, "pwave::adj_chiz");
  auto like = [](const Field<T>& f, const char* name) {
    return Field<T>(std::string(name), f.extent(0), f.extent(1), f.extent(2));
  };
  adj_.g_prev = like(st_.u_prev, "pwave::adjoint_prev");
  adj_.g_cur = like(st_.u_cur, "pwave::adjoint_cur");
  // The memory variables on the rows (z), y lines (y) or columns of each x line (x) the
  // frame's stencils reach only.
  const propagation::FrameRegion frame = frame_region();
  adj_.xcols = physics::StripLines::of(st_.nx, R, frame.x_lo, frame.x_hi);
  adj_.xs = st_.nx + 2 * R - adj_.xcols.gap;
  auto x_columns = [&](const char* name) {
    return Field<T>(std::string(name), capacity_, st_.nz + 2 * R, (st_.ny + 2 * st_.hy) * adj_.xs);
  };
  adj_.psi_x = x_columns("pwave::psi_x_hat");
  adj_.psi_x_next = x_columns("pwave::psi_x_hat_next");
  adj_.zeta_x = x_columns("pwave::zeta_x_hat");
  adj_.zeta_x_next = x_columns("pwave::zeta_x_hat_next");
  adj_.zrows = physics::StripLines::of(st_.nz, R, frame.z_lo, frame.z_hi);
  const long cols = long(st_.u_cur.extent(2));
  auto z_rows = [&](const char* name) {
    return Field<T>(std::string(name), capacity_, st_.nz + 2 * R - adj_.zrows.gap, cols);
  };
  adj_.psi_z = z_rows("pwave::psi_z_hat");
  adj_.psi_z_next = z_rows("pwave::psi_z_hat_next");
  adj_.zeta_z = z_rows("pwave::zeta_z_hat");
  adj_.zeta_z_next = z_rows("pwave::zeta_z_hat_next");
  if (problem_.model.grid.is_3d()) {
    adj_.cy = padded_axis(st_.cy, "y");
    adj_.chiy = indicator(st_.ny, st_.strip_front, st_.strip_back, "pwave::adj_chiy");
    adj_.ylines = physics::StripLines::of(st_.ny, R, frame.y_lo, frame.y_hi);
    auto y_lines = [&](const char* name) {
      return Field<T>(std::string(name), capacity_, st_.u_cur.extent(1),
                      cols - long(adj_.ylines.gap) * st_.ys);
    };
    adj_.psi_y = y_lines("pwave::psi_y_hat");
    adj_.psi_y_next = y_lines("pwave::psi_y_hat_next");
    adj_.zeta_y = y_lines("pwave::zeta_y_hat");
    adj_.zeta_y_next = y_lines("pwave::zeta_y_hat_next");
  }
  shot_grad_ = Field<T>("pwave::shot_gradient", capacity_, st_.nz, st_.ny * st_.nx);
}

namespace {

/// dJ/ds(t_n) = sum_k h_k w(x_k) lambda^{n+1}(x_k) / V = sum_k h_k G^{n+1}(x_k) / V over the
/// source's taps (V the cell volume, dx dz in 2D): the adjoint of the source injection.
template <class T>
struct RecordSourceAdjoint {
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> out;
  Field<T> g;
  physics::PointTaps<T> source;  ///< [shot][0][tap]
  T inv_area;
  physics::ColumnMap column;
  int first_shot, n;
  KOKKOS_INLINE_FUNCTION T tap(int s, int k) const {
    const physics::GridTap<T> t = source.at(first_shot + s, 0, k, column);
    return g(s, t.z, t.x) * inv_area * t.h;
  }
  KOKKOS_INLINE_FUNCTION void operator()(int s) const {
    T sum = tap(s, 0);
    for (int k = 1; k < source.taps(); ++k) sum += tap(s, k);
    out(s, n) = sum;
  }
};

/// grad_w += (sum over shots [0, count) of per_shot) / w^2 on [0, nz) x [0, nx), shots summed
/// in order. A free function: nvcc rejects extended (KOKKOS_LAMBDA) lambdas in private member
/// functions.
template <class T>
void sum_shot_gradients(const ExecSpace& exec, const Field<T>& per_shot, const GridView<T>& w,
                        const GridView<T>& grad_w, const int count, const int nz,
                        const int nx) {  // nx: columns of the [nz][ny nx] grids
  Kokkos::parallel_for(
      "pwave::physics::acoustic::sum_shot_gradients",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(exec, {0, 0}, {nz, nx}),
      KOKKOS_LAMBDA(const int iz, const int ix) {
        T sum = 0;
        for (int s = 0; s < count; ++s) sum += per_shot(s, iz, ix);
        grad_w(iz, ix) += sum / (w(iz, ix) * w(iz, ix));
      });
}

}  // namespace

/// The constant-density equation's backward step (physics/acoustic/adjoint_kernels.hpp): the
/// adjoint fields G and the CPML memory variables in parity copies as in forward() (step n
/// writes G^n over G^{n+2}, the memory variables into their *_next buffers), every functor
/// built once.
template <class T>
template <int Order, bool FreeSurface, int Dim>
class AcousticPropagator<T>::ConstantDensityBackward {
 public:
  static constexpr bool images_differences = true;

  ConstantDensityBackward(AcousticPropagator& prop, int count, const Traces<T>& residual,
                          const SourceAdjoint& source_adjoint, bool rebuilds_box)
      : prop_(prop),
        count_(count),
        residual_(residual),
        source_adjoint_(source_adjoint),
        rebuilds_box_(rebuilds_box),
        coef_(prop.template coefficients<physics::ScaledStencil<T, Order>, Dim>()),
        even_(zeroed(prop)),
        odd_(swapped(even_)),
        interior_{{even_.as_forward(), coef_}, {odd_.as_forward(), coef_}},
        side_{{even_, coef_}, {odd_, coef_}},
        band_{{even_, coef_}, {odd_, coef_}},
        corner_{{even_, coef_}, {odd_, coef_}},
        region_(prop.frame_region()),
        column_{prop.st_.nx, prop.st_.hy, prop.st_.ys, prop.st_.halo},
        reverse_{reverse_step(0), reverse_step(1)},
        inject_{{even_.g_prev, residual, even_.v2dt2, prop.taps_.receiver_cells(), column_},
                {odd_.g_prev, residual, odd_.v2dt2, prop.taps_.receiver_cells(), column_}} {}
  ConstantDensityBackward(const ConstantDensityBackward&) = delete;
  ConstantDensityBackward& operator=(const ConstantDensityBackward&) = delete;

  /// dJ/ds(t_n) of each shot's wavelet, when asked for (adjoint tests).
  void source_adjoint(const ExecSpace& exec, int p, int n) const {
    if (source_adjoint_.extent(0) == 0) return;
    Kokkos::parallel_for(
        "pwave::physics::acoustic::source_adjoint", Kokkos::RangePolicy<ExecSpace>(exec, 0, count_),
        RecordSourceAdjoint<T>{source_adjoint_, parity(p).g_cur, prop_.taps_.sources(),
                               T(1.0 / prop_.problem_.model.grid.cell_volume()), column_, 0, n});
  }

  /// A FrameHistory: the frame restored from it with its imaging term, the box rebuilt by the
  /// reversed step fused with the box's adjoint step (ReverseStepBox: u^{n+1} and u^n sit in
  /// the forward fields, u^{n-1} is written over u^{n+1}).
  void rebuild_and_image(const ExecSpace& exec, int p, int n,
                         const propagation::FrameHistory<T>& frames) const {
    const int R = prop_.st_.halo;
    const Field<T>& u_next = reverse_[p].rebuild.u_next;  // u^{n+1}, to become u^{n-1}
    propagation::for_each_stored_cell("pwave::propagation::frame_image_restore", exec, count_,
                                      region_, frame_image_restore(p, n, frames));
    // The box is the adjoint interior, so the whole adjoint step runs here with the box's
    // launch in the frame's sweep (adjoint_step() then has nothing left to do): on hosts the
    // strip cells beside the box join its work items, which have just loaded their z taps.
    if constexpr (Dim == 3) {
      const backend::Box box{region_.z_lo, region_.z_hi, region_.y_lo,
                             region_.y_hi, region_.x_lo, region_.x_hi};
      if (prop_.problem_.interior_3d == Interior3D::z_march) {
        // Two marches: the reversed step with its imaging term on u, the adjoint step on G
        // (neither reads what the other writes), then the frame.
        backend::for_each_cell_z_march("pwave::propagation::reverse_step_box", exec, count_, box,
                                       reverse_[p].rebuild);
        backend::for_each_cell_z_march("pwave::physics::acoustic3d::adjoint_interior", exec, count_,
                                       box, reverse_[p].adjoint);
        prop_.template adjoint_step_3d<Order>(exec, count_, parity(p), coef_, nullptr);
      } else {
        prop_.template adjoint_step_3d<Order>(exec, count_, parity(p), coef_, reverse_[p]);
      }
    } else {
      adjoint_step_2d(exec, p, reverse_[p]);
    }
    Kokkos::parallel_for("pwave::propagation::reconstruct_source",
                         Kokkos::RangePolicy<ExecSpace>(exec, 0, count_), reconstruct_source(p, n));
    if (FreeSurface) {
      Kokkos::parallel_for("pwave::physics::acoustic::free_surface",
                           Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
                               exec, {0, 0}, {count_, int(u_next.extent(2))}),
                           physics::FreeSurface<T>{u_next, R});
    }
  }

  /// The backward run sweeps as host wavefronts too (sweep()).
  static constexpr bool sweeps = true;
  /// What a backward run's wavefronts need: the units of the backward step's frame (the box
  /// and the region the history keeps) in groups of at least the stencil's reach (3D: groups
  /// of depths), the source taps and residual cells of each group, the group after which the
  /// free surface mirrors (-1: none), and the steps per sweep.
  struct Wavefront {
    backend::WavefrontGroups groups;
    propagation::WavefrontPoints<T> points;
    int surface = -1;
    int levels = 1;
  };
  Wavefront wavefront() const {
    const backend::Frame frame = box_frame();
    backend::WavefrontGroups groups = backend::wavefront_groups(
        backend::frame_units<propagation::ReverseStepBox<T, Order, Dim>>(frame), prop_.st_.halo);
    propagation::WavefrontPoints<T> points(prop_.taps_.sources(), prop_.taps_.receiver_cells(),
                                           count_, groups);
    // The mirrors read rows 1 .. halo below the surface (FreeSurface).
    const int surface = FreeSurface ? groups.group_of(std::min(prop_.st_.halo, frame.nz - 1)) : -1;
    // Steps per sweep: execution.wavefront_steps; in 3D at most as many as keep a sweep's working
    // set in the cache: per step the tallest group's depths of u^{n+1}, G^{n+2}, v^2 dt^2 and
    // the imaging sum, and those with R more on either side of u^n and G^{n+1}.
    int levels = prop_.problem_.wavefront_steps;
    if constexpr (Dim == 3) {
      const double plane = double(prop_.st_.ny) * prop_.st_.nx * sizeof(T);
      levels = backend::wavefront_levels(levels,
                                         (6.0 * groups.tallest() + 4.0 * prop_.st_.halo) * plane);
    }
    return {std::move(groups), std::move(points), surface, levels};
  }
  /// Backward steps n, n - 1, .., n - m + 1 (step n of parity p) with a FrameHistory, as one
  /// host wavefront per shot (sweep_with()): the frame restored with its imaging term, the box's
  /// reversed step with the adjoint step, the reversed source term and u's mirror.
  void sweep(const ExecSpace& exec, int p, int n, int m, const Wavefront& w,
             const propagation::FrameHistory<T>& frames) const {
    const propagation::FrameImageRestore<T> restore[2] = {frame_image_restore(0, n, frames),
                                                          frame_image_restore(1, n, frames)};
    const propagation::ReconstructSource<T> source[2] = {reconstruct_source(0, n),
                                                         reconstruct_source(1, n)};
    const auto image_rows = [&](int s, int q, int step, int z0, int z1) {
      propagation::FrameImageRestore<T> frame = restore[q];
      frame.n = step;
      for (int iz = z0; iz < z1; ++iz) {  // 2D: one line (ny = 1), the row
        for (int iy = 0; iy < region_.ny; ++iy)
          propagation::stored_segments_of_line(region_, frame, s, iz, iy);
      }
    };
    const auto after_box = [&](int s, int q, int step, int i) {
      propagation::ReconstructSource<T> src = source[q];
      src.n = step;
      w.points.each_source_tap(s, i, [&](int k) { src.tap(s, k); });
      if (i == w.surface) mirror(reverse_[q].rebuild.u_next, s);
    };
    sweep_with(exec, p, n, m, w, image_rows, reverse_, after_box);
  }
  /// The same with snapshots (a FullHistory, base 0, or a CheckpointHistory's segment: slot k
  /// holds u^{base + k}): each group's imaging from them (AccumulateGradient) before the
  /// adjoint step.
  void sweep(const ExecSpace& exec, int p, int n, int m, const Wavefront& w,
             const Snapshots& snapshots, int base) const {
    const physics::AccumulateGradient<T> image[2] = {image_snapshot(0, n, snapshots, base),
                                                     image_snapshot(1, n, snapshots, base)};
    const int ny = prop_.st_.ny, nx = prop_.st_.nx;
    const auto image_rows = [&](int s, int q, int step, int z0, int z1) {
      physics::AccumulateGradient<T> f = image[q];
      f.n = step;
      for (int iz = z0; iz < z1; ++iz) {  // 2D: one line (ny = 1), the row
        for (int iy = 0; iy < ny; ++iy) f.line(s, iz, iy, 0, nx);
      }
    };
    sweep_with(exec, p, n, m, w, image_rows, interior_, [](int, int, int, int) {});
  }

  /// A DifferenceHistory: its stored second differences, every stride-th step.
  void image_differences(const ExecSpace& exec, int p, int n,
                         const propagation::DifferenceHistory<T>& d) const {
    if (n % d.stride != 0) return;
    const int k = n / d.stride, R = prop_.st_.halo;
    const Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>> cells(
        exec, {0, 0, 0}, {count_, prop_.st_.nz, prop_.st_.nx});
    const Field<T>& g = parity(p).g_cur;
    propagation::with_compression(d.compression, [&](auto c) {
      constexpr Compression C = decltype(c)::value;
      Kokkos::parallel_for("pwave::physics::acoustic::imaging", cells,
                           propagation::AccumulateDifference<T, C>{d, prop_.shot_grad_, g, k, R});
    });
  }

  /// A FullHistory or a CheckpointHistory's segment: u^n from slot n - base of `snapshots`.
  void image_snapshots(const ExecSpace& exec, int p, int n, const Snapshots& snapshots,
                       int base) const {
    const auto& st = prop_.st_;
    const physics::AccumulateGradient<T> image = image_snapshot(p, n, snapshots, base);
    if constexpr (Dim == 3) {
      backend::for_each_cell_3d("pwave::physics::acoustic3d::imaging", exec, count_,
                                backend::Box{0, st.nz, 0, st.ny, 0, st.nx}, image);
    } else {
      backend::for_each_cell("pwave::physics::acoustic::imaging", exec, count_, 0, st.nz, 0, st.nx,
                             image);
    }
  }

  /// G^n from G^{n+1}, G^{n+2}: the interior (unless the reversed step did it) and the frame.
  void adjoint_step(const ExecSpace& exec, int p) const {
    if constexpr (Dim == 3) {
      if (!rebuilds_box_) {  // else rebuild_and_image() ran it
        prop_.template adjoint_step_3d<Order>(exec, count_, parity(p), coef_, interior_[p]);
      }
    } else if (!rebuilds_box_) {  // else rebuild_and_image() ran it
      adjoint_step_2d(exec, p, interior_[p]);
    }
  }

  /// The 2D adjoint step with `interior` in the box where no stencil reaches a strip (the
  /// forward interior kernel on G, or that fused with the reversed step): the frame as in
  /// forward(), side columns (x strips only in reach), top and bottom bands (z strips only) and
  /// the four corners (both), in one sweep (for_each_frame_cell: on hosts each block of interior
  /// rows with its side cells while they are in cache).
  template <class Interior>
  void adjoint_step_2d(const ExecSpace& exec, int p, const Interior& interior) const {
    backend::for_each_frame_cell("pwave::physics::acoustic::adjoint_step", exec, count_,
                                 box_frame(), interior, side_[p], band_[p], corner_[p]);
  }

  /// The residuals of step n injected into G^n, and the free surface's S with its mirror.
  void inject_residual(const ExecSpace& exec, int p, int n) const {
    const auto& st = parity(p);
    Kokkos::parallel_for(
        "pwave::physics::acoustic::inject_residual",
        Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>(
            exec, {0, 0, n}, {count_, prop_.taps_.receiver_cells().cells(), n + 1}),
        inject_[p]);
    if (FreeSurface) {  // S, and the mirror the next step's stencils read
      Kokkos::parallel_for("pwave::physics::acoustic::adjoint_surface",
                           Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
                               exec, {0, 0}, {count_, int(st.g_prev.extent(2))}),
                           physics::FreeSurface<T>{st.g_prev, st.halo});
    }
  }

  /// dJ/dw = (imaging sum) / w^2, shots summed in order (the gradient does not depend on how
  /// shots were batched); nothing for adjoint_per_shot (empty `grad`: the caller sums).
  void finish(const ExecSpace& exec, const GridView<T>& grad) const {
    if (grad.extent(0) == 0) return;
    sum_shot_gradients(exec, prop_.shot_grad_, prop_.st_.v2dt2, grad, count_, prop_.st_.nz,
                       int(prop_.shot_grad_.extent(2)));
  }

 private:
  using State = physics::AcousticAdjointState<T>;
  const State& parity(int p) const { return p == 0 ? even_ : odd_; }
  /// G, the imaging sums and the adjoint memory variables (which store the frame's reach
  /// only) zeroed for a run.
  static State zeroed(AcousticPropagator& prop) {
    auto& a = prop.adj_;
    for (Field<T>* f : {&a.g_prev, &a.g_cur, &prop.shot_grad_, &a.psi_x, &a.psi_x_next, &a.zeta_x,
                        &a.zeta_x_next, &a.psi_z, &a.psi_z_next, &a.zeta_z, &a.zeta_z_next,
                        &a.psi_y, &a.psi_y_next, &a.zeta_y, &a.zeta_y_next}) {
      if (f->extent(0) > 0) Kokkos::deep_copy(*f, T(0));  // 2D: no y variables
    }
    return a;
  }
  static State swapped(const State& even) {
    State odd = even;
    std::swap(odd.g_prev, odd.g_cur);
    std::swap(odd.psi_x, odd.psi_x_next);
    std::swap(odd.zeta_x, odd.zeta_x_next);
    std::swap(odd.psi_z, odd.psi_z_next);
    std::swap(odd.zeta_z, odd.zeta_z_next);
    std::swap(odd.psi_y, odd.psi_y_next);
    std::swap(odd.zeta_y, odd.zeta_y_next);
    return odd;
  }
  /// Backward steps n, n - 1, .., n - m + 1 (step n of parity p) as one host wavefront per
  /// shot (backends/wavefront.hpp): each group of rows [z0, z1) (3D: depths) of each step gets
  /// what the step-by-step backward step gives it, in its order: `image_rows(s, q, step, z0,
  /// z1)` (the history's imaging), the adjoint step with `box[q]` in the box and the adjoint
  /// frame (2D: the same units of for_each_frame_cell; 3D: the lines of for_each_box_3d's slabs
  /// at those depths), `after_box(s, q, step, i)`, the residuals and G's mirror: the same
  /// values, bit for bit. Every step reads the step before it at most a stencil's reach away
  /// and keeps its other state cell-local (the adjoint memory variables are double buffered
  /// like G), as the wavefronts require.
  template <class ImageRows, class Box, class AfterBox>
  void sweep_with(const ExecSpace& exec, int p, int n, int m, const Wavefront& w,
                  const ImageRows& image_rows, const Box (&box)[2],
                  const AfterBox& after_box) const {
    if constexpr (backend::runs_wavefronts<ExecSpace>()) {
      static_assert(
          Dim == 3 || Box::block_rows == propagation::ReverseStepBox<T, Order, Dim>::block_rows,
          "the wavefront's units (wavefront()) are the box functor's");
      const backend::WavefrontGroups& g = w.groups;
      const backend::BoxCuts cuts = physics::adjoint_box_cuts(even_);
      backend::for_each_shot_wavefront(
          "pwave::physics::acoustic::backward_wavefront", exec, count_, g.count(), m,
          [&](int s, int j, int i) {
            const int q = (p + j) & 1, step = n - j;
            const int z0 = g.first_row(i), z1 = g.first_row(i + 1);
            image_rows(s, q, step, z0, z1);
            if constexpr (Dim == 3) {
              backend::host_boxes_3d_depths(
                  cuts, physics::AdjointBoxes3D<T, Order, Box>{parity(q), coef_, box[q]}, s, z0,
                  z1);
            } else {
              for (int u = g.first[std::size_t(i)]; u < g.first[std::size_t(i) + 1]; ++u) {
                backend::host_frame_unit(g.units, s, u, box[q], side_[q], band_[q], corner_[q]);
              }
            }
            after_box(s, q, step, i);
            w.points.each_residual_cell(s, i, [&](int c) { inject_[q](s, c, step); });
            if (i == w.surface) mirror(parity(q).g_prev, s);
          });
    }
  }
  /// The free surface's mirror of field f, shot s (host wavefronts).
  void mirror(const Field<T>& f, int s) const {
    const physics::FreeSurface<T> surface{f, prop_.st_.halo};
    for (int x = 0; x < int(f.extent(2)); ++x) surface(s, x);
  }
  /// Backward step n's imaging from snapshots (slot k holds u^{base + k}).
  physics::AccumulateGradient<T> image_snapshot(int p, int n, const Snapshots& snapshots,
                                                int base) const {
    const auto& st = prop_.st_;
    return {prop_.shot_grad_, parity(p).g_cur, snapshots, n, st.halo, base, st.hy, st.ys, st.nx};
  }
  /// The 2D adjoint step's frame: the box where no stencil reaches a strip, and around it.
  backend::Frame box_frame() const {
    return {prop_.st_.nz, prop_.st_.nx, region_.z_lo, region_.z_hi, region_.x_lo, region_.x_hi};
  }
  /// Backward step n's frame restore with its imaging term (parity p's fields).
  propagation::FrameImageRestore<T> frame_image_restore(
      int p, int n, const propagation::FrameHistory<T>& frames) const {
    return {frames.frames,
            reverse_[p].rebuild.u_next,
            reverse_[p].rebuild.u_cur,
            parity(p).g_cur,
            prop_.shot_grad_,
            region_,
            n,
            prop_.st_.halo};
  }
  /// Backward step n's reversed source term in the box, with its imaging term.
  propagation::ReconstructSource<T> reconstruct_source(int p, int n) const {
    const State& st = parity(p);
    return {reverse_[p].rebuild.u_next,
            st.g_cur,
            prop_.shot_grad_,
            st.v2dt2,
            prop_.taps_.sources(),
            prop_.scaled_wavelet_,
            region_,
            n,
            prop_.st_.halo,
            0};
  }
  propagation::ReverseStepBox<T, Order, Dim> reverse_step(int p) const {
    const auto& st = prop_.st_;
    const Field<T>& u_next = p == 0 ? st.u_cur : st.u_prev;
    const Field<T>& u_now = p == 0 ? st.u_prev : st.u_cur;
    const State& a = parity(p);
    return propagation::ReverseStepBox<T, Order, Dim>(
        {u_next, u_now, {}, prop_.shot_grad_, a.v2dt2, coef_, st.halo, st.hy, st.ys, st.nx},
        physics::InteriorStep<T, Order, Dim>(a.as_forward(), coef_));
  }

  AcousticPropagator& prop_;
  const int count_;
  const Traces<T> residual_;
  const SourceAdjoint source_adjoint_;
  const bool rebuilds_box_;
  const physics::ScaledStencil<T, Order> coef_;
  const State even_, odd_;
  // Away from the strips the adjoint in G is the forward interior update.
  const physics::InteriorStep<T, Order, Dim> interior_[2];
  const physics::AdjointXStripLines<T, Order, 2> side_[2];
  const physics::AdjointFrameStep<T, Order, false, true> band_[2];
  const physics::AdjointFrameStep<T, Order, true, true> corner_[2];
  // The box where no stencil reaches a CPML strip; the frame around it is the region the
  // boundary storage keeps.
  const propagation::FrameRegion region_;
  const physics::ColumnMap column_;
  const propagation::ReverseStepBox<T, Order, Dim> reverse_[2];
  const physics::InjectResidual<T> inject_[2];  ///< into G^n: the parity's g_prev
};

template <class T>
template <int Order, class Interior>
void AcousticPropagator<T>::adjoint_step_3d(const ExecSpace& exec, int count,
                                            const physics::AcousticAdjointState<T>& st,
                                            const physics::ScaledStencil<T, Order>& coef,
                                            const Interior& interior) const {
  // As step_3d, but the boxes are cut a stencil radius inside the strips: the region whose
  // stencils reach no strip runs `interior` (the forward interior kernel on G, or that fused with
  // the reversed step: see the 2D frame above). The x strips beside it have a host path over
  // blocks of depths (AdjointXStripLines), so hosts run them in the interior's work items.
  const backend::BoxCuts cuts = physics::adjoint_box_cuts(st);
  const physics::AdjointBoxes3D<T, Order, Interior> make{st, coef, interior};
  const char* name = "pwave::physics::acoustic3d::adjoint_step";
  if constexpr (std::is_same_v<Interior, physics::InteriorStep<T, Order, 3>>) {
    backend::for_each_box_3d_marched(name, exec, count, cuts, make,
                                     problem_.interior_3d == Interior3D::z_march);
  } else {
    backend::for_each_box_3d(name, exec, count, cuts, make,
                             std::is_same_v<Interior, std::nullptr_t>);
  }
}

template <class T>
void AcousticPropagator<T>::add_imaging(const GridView<T>& imaging,
                                        const GridView<T>& grad_w) const {
  const GridView<T> w = st_.v2dt2;
  Kokkos::parallel_for(
      "pwave::physics::acoustic::add_imaging",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {st_.nz, st_.ny * st_.nx}),
      KOKKOS_LAMBDA(const int iz, const int ix) {
        grad_w(iz, ix) += imaging(iz, ix) / (w(iz, ix) * w(iz, ix));
      });
}

#define PWAVE_INSTANTIATE_ADJOINT(T)                       \
  template void AcousticPropagator<T>::allocate_adjoint(); \
  template void AcousticPropagator<T>::add_imaging(const GridView<T>&, const GridView<T>&) const;
PWAVE_INSTANTIATE_ADJOINT(float)
PWAVE_INSTANTIATE_ADJOINT(double)
PWAVE_INSTANTIATE_BACKWARD(physics::acoustic::Physics)

}  // namespace pwave
