// The backward run of the variable-density equation (physics/acoustic_vd/adjoint_kernels.hpp):
// the exact transpose of its forward steps, with the imaging of dJ/dw (w = rho v^2 dt^2) and
// dJ/db (b = 1/rho), and the chain rule to dJ/dvp and dJ/drho on the model grid.

#include "backends/launch.hpp"
#include "pwave/core/error.hpp"
#include "pwave/physics/point_sources.hpp"
#include "pwave/propagation/acoustic_backward.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"

namespace pwave {

namespace vd = physics::acoustic_vd;

namespace {

/// u(s, z, column) = snapshot slot k of a [k][shot][z][ny nx] history (the halo stays as it is:
/// zero, or the free-surface mirror applied afterwards).
template <class T>
struct LoadSnapshot {
  Field<T> u;
  Kokkos::View<T****, Kokkos::LayoutRight, MemSpace> history;
  int k, halo, hy, ys, nx;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    u(s, iz + halo, (iy + hy) * ys + ix + halo) = history(k, s, iz, iy * nx + ix);
  }
};

/// f(box) for each box of `outer` that `inner` (a box within it, or empty) leaves: the bands
/// above and below it (outer's width), and left and right of it in its rows (2D: one y line).
template <class F>
void for_each_box_around(const backend::Box& outer, const backend::Box& inner, const F& f) {
  if (inner.empty()) return f(outer);
  const int y0 = outer.y0, y1 = outer.y1;
  f(backend::Box{outer.z0, inner.z0, y0, y1, outer.x0, outer.x1});
  f(backend::Box{inner.z1, outer.z1, y0, y1, outer.x0, outer.x1});
  f(backend::Box{inner.z0, inner.z1, y0, y1, outer.x0, inner.x0});
  f(backend::Box{inner.z0, inner.z1, y0, y1, inner.x1, outer.x1});
}

/// rows [0, nz) of out(s) = w imaging, rows [nz, 2 nz) = b imaging.
template <class T>
void pack_channels(const ExecSpace& exec, const Field<T>& out, const Field<T>& img_w,
                   const Field<T>& img_b, int count) {
  const int nz = int(img_w.extent(1)), nq = int(img_w.extent(2));
  Kokkos::parallel_for(
      "pwave::physics::acoustic_vd::pack_imaging",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>(exec, {0, 0, 0}, {count, nz, nq}),
      KOKKOS_LAMBDA(const int s, const int iz, const int q) {
        out(s, iz, q) = img_w(s, iz, q);
        out(s, iz + nz, q) = img_b(s, iz, q);
      });
}

/// grad(c nz + iz, q) += sum over shots of per_shot(s, c nz + iz, q), shots in order.
template <class T>
void sum_channels(const ExecSpace& exec, const Field<T>& per_shot, const GridView<T>& grad,
                  int count) {
  Kokkos::parallel_for(
      "pwave::physics::acoustic_vd::sum_shot_imaging",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
          exec, {0, 0}, {int(per_shot.extent(1)), int(per_shot.extent(2))}),
      KOKKOS_LAMBDA(const int r, const int q) {
        T sum = 0;
        for (int s = 0; s < count; ++s) sum += per_shot(s, r, q);
        grad(r, q) += sum;
      });
}

}  // namespace

template <class T>
void AcousticPropagator<T>::allocate_adjoint_vd() {
  if (vd_adj_.g_cur.extent(0) > 0) return;
  const bool is3d = problem_.model.grid.is_3d();
  auto like = [](const Field<T>& f, const char* name) {
    return Field<T>(std::string(name), f.extent(0), f.extent(1), f.extent(2));
  };
  auto& a = vd_adj_;
  a.g_prev = like(st_.u_prev, "pwave::vd_adjoint_prev");
  a.g_cur = like(st_.u_cur, "pwave::vd_adjoint_cur");
  a.hbar_x = like(st_.u_cur, "pwave::vd_hbar_x");
  a.hbar_z = like(st_.u_cur, "pwave::vd_hbar_z");
  a.gbar_x = like(st_.u_cur, "pwave::vd_gbar_x");
  a.gbar_z = like(st_.u_cur, "pwave::vd_gbar_z");
  a.p_x = like(st_.psi_x, "pwave::vd_psi_x_hat");
  a.p_z = like(st_.psi_z, "pwave::vd_psi_z_hat");
  a.z_x = like(st_.zeta_x, "pwave::vd_zeta_x_hat");
  a.z_z = like(st_.zeta_z, "pwave::vd_zeta_z_hat");
  if (is3d) {
    a.hbar_y = like(st_.u_cur, "pwave::vd_hbar_y");
    a.gbar_y = like(st_.u_cur, "pwave::vd_gbar_y");
    a.p_y = like(st_.psi_y, "pwave::vd_psi_y_hat");
    a.z_y = like(st_.zeta_y, "pwave::vd_zeta_y_hat");
  }
  a.img_b = Field<T>("pwave::vd_imaging_b", capacity_, st_.nz, st_.ny * st_.nx);
  vd_u_ = like(st_.u_cur, "pwave::vd_u_imaging");
  shot_grad_ = Field<T>("pwave::shot_gradient", capacity_, st_.nz, st_.ny * st_.nx);
  shot_channels_ = Field<T>("pwave::shot_imaging", capacity_, 2 * st_.nz, st_.ny * st_.nx);
}

/// The variable-density equation's backward step (physics/acoustic_vd/adjoint_kernels.hpp):
/// G in parity copies (step n writes G^n over G^{n+2}); u^n for the buoyancy imaging is, with
/// boundary storage, the forward field that holds it (as for constant density), else vd_u_,
/// loaded from the history. Needs an exact history (no differences: adjoint() refuses them).
template <class T>
template <int Order, bool FreeSurface, int Dim>
class AcousticPropagator<T>::VariableDensityBackward {
 public:
  static constexpr bool images_differences = false;
  static constexpr bool sweeps = false;  ///< its backward run steps one step at a time

  VariableDensityBackward(AcousticPropagator& prop, int count, const Traces<T>& residual,
                          const SourceAdjoint& source_adjoint, bool boundary)
      : prop_(prop),
        count_(count),
        residual_(residual),
        source_adjoint_(source_adjoint),
        coef_(prop.template coefficients<vd::Coefficients<T, Order>, Dim>()),
        even_(prepared(prop, boundary, 0)),
        odd_(prepared(prop, boundary, 1)),
        region_(prop.frame_region()),
        column_{prop.st_.nx, prop.st_.hy, prop.st_.ys, prop.st_.halo},
        inject_{{even_.g_prev, residual, prop.vd_.w, prop.taps_.receiver_cells(), column_},
                {odd_.g_prev, residual, prop.vd_.w, prop.taps_.receiver_cells(), column_}} {
    const auto& st = prop.st_;
    const int nz = st.nz, nx = st.nx, ny = st.ny, R = st.halo;
    cuts_ = backend::BoxCuts{{0, st.strip_top, nz - st.strip_bottom, nz},
                             {0, st.strip_front, ny - st.strip_back, ny},
                             {0, st.strip_left, nx - st.strip_right, nx}};
    grid_ = backend::Box{0, nz, 0, ny, 0, nx};
    // The reversed step's flux is needed a stencil radius around the box.
    flux_box_ = backend::Box{std::max(region_.z_lo - R, 0),
                             std::min(region_.z_hi + R, nz),
                             Dim == 3 ? std::max(region_.y_lo - R, 0) : 0,
                             Dim == 3 ? std::min(region_.y_hi + R, ny) : 1,
                             std::max(region_.x_lo - R, 0),
                             std::min(region_.x_hi + R, nx)};
    box_ = backend::Box{region_.z_lo, region_.z_hi, region_.y_lo,
                        region_.y_hi, region_.x_lo, region_.x_hi};
    if constexpr (fuses_reversal) {
      fuse_reversal_ = !box_.empty() && vd::FusedStep<T, Order, true>::fits(st);
      // The pair pass's box: a radius inside box_ (two inside the strips), and two radii below
      // a free surface (so that what its cells read of the adjoint's fluxes is G's interior
      // formula, no fold).
      pair_ = inside(box_, R);
      if (FreeSurface) pair_.z0 = std::max(pair_.z0, 2 * R);
      pairs_ = boundary && fuse_reversal_ && !pair_.empty();
    }
  }
  VariableDensityBackward(const VariableDensityBackward&) = delete;
  VariableDensityBackward& operator=(const VariableDensityBackward&) = delete;

  /// dJ/ds(t_n) when asked for, and the source term's share of the buoyancy imaging.
  void source_adjoint(const ExecSpace& exec, int p, int n) const {
    const auto& a = parity(p);
    Kokkos::parallel_for(
        "pwave::physics::acoustic_vd::source_adjoint",
        Kokkos::RangePolicy<ExecSpace>(exec, 0, count_),
        vd::SourceAdjoint<T>{source_adjoint_, a.g_cur, a.img_b, prop_.st_.v2dt2, prop_.vd_.w,
                             prop_.taps_.sources(), prop_.scaled_wavelet_, column_,
                             T(1.0 / prop_.problem_.model.grid.cell_volume()), 0, n});
  }

  /// u^{n-1} over u^{n+1}: the frame from storage, the box by the reversed step; dJ/dw's
  /// imaging term on both.
  void rebuild_and_image(const ExecSpace& exec, int p, int n,
                         const propagation::FrameHistory<T>& frames) const {
    const auto& st = prop_.st_;
    const int R = st.halo, fx = int(st.u_cur.extent(2));
    const auto& a = parity(p);
    const Field<T>& u_next = p == 0 ? st.u_cur : st.u_prev;
    const Field<T>& u_now = p == 0 ? st.u_prev : st.u_cur;
    using Range2 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    propagation::for_each_stored_cell(
        "pwave::propagation::frame_image_restore", exec, count_, region_,
        propagation::FrameImageRestore<T>{frames.frames, u_next, u_now, a.g_cur, prop_.shot_grad_,
                                          region_, n, R});
    vd::State<T> rv = prop_.vd_;
    rv.st = st;
    rv.st.u_cur = u_now, rv.st.u_prev = u_next;
    // Host backends, 2D: the box in one pass whose flux stays in registers and row buffers
    // (vd::FusedStep with the imaging, as the forward's rows); else the flux launch over the
    // box and a stencil radius around it, then the update. The same bits.
    // With pairs_, the cells of pair_ take their adjoint step here too (adjoint_step does the
    // rest of the grid).
    bool fused = false;
    if constexpr (fuses_reversal) {
      fused = fuse_reversal_;
      const auto reverse = [&](const backend::Box& b) {
        backend::for_each_cell_3d("pwave::physics::acoustic_vd::fused_reverse_step", exec, count_,
                                  b,
                                  vd::FusedStep<T, Order, true>{rv, coef_, FreeSurface, b.z0, b.z1,
                                                                a.g_cur, prop_.shot_grad_});
      };
      if (pairs_) {
        for_each_box_around(box_, pair_, reverse);
        backend::for_each_cell_3d(
            "pwave::physics::acoustic_vd::reverse_and_adjoint", exec, count_, pair_,
            vd::ReverseAndAdjointRows<T, Order>{a, coef_, u_next, prop_.shot_grad_});
      } else if (fused) {
        reverse(box_);
      }
    }
    if (!fused) {
      backend::for_each_cell_3d("pwave::physics::acoustic_vd::reverse_flux", exec, count_,
                                flux_box_, vd::InteriorFlux<T, Order, Dim>{rv, coef_});
      if (FreeSurface) {
        Kokkos::parallel_for("pwave::physics::acoustic_vd::mirror_flux",
                             Range2(exec, {0, 0}, {count_, fx}), vd::MirrorFlux<T>{rv.flux_z, R});
      }
      backend::for_each_cell_3d(
          "pwave::physics::acoustic_vd::reverse_step", exec, count_, box_,
          vd::ReverseUpdate<T, Order, Dim>{rv, coef_, a.g_cur, prop_.shot_grad_});
    }
    Kokkos::parallel_for(
        "pwave::propagation::reconstruct_source", Kokkos::RangePolicy<ExecSpace>(exec, 0, count_),
        propagation::ReconstructSource<T>{u_next, a.g_cur, prop_.shot_grad_, st.v2dt2,
                                          prop_.taps_.sources(), prop_.scaled_wavelet_, region_, n,
                                          R, 0});
    if (FreeSurface) {
      Kokkos::parallel_for("pwave::physics::acoustic::free_surface",
                           Range2(exec, {0, 0}, {count_, fx}), physics::FreeSurface<T>{u_next, R});
    }
  }

  /// A FullHistory or a CheckpointHistory's segment: dJ/dw's imaging term, and u^n loaded for
  /// the buoyancy imaging of the adjoint step.
  void image_snapshots(const ExecSpace& exec, int p, int n, const Snapshots& snapshots,
                       int base) const {
    const auto& st = prop_.st_;
    const int R = st.halo, fx = int(st.u_cur.extent(2));
    backend::for_each_cell_3d(
        "pwave::physics::acoustic_vd::imaging_w", exec, count_, grid_,
        physics::AccumulateGradient<T>{prop_.shot_grad_, parity(p).g_cur, snapshots, n, R, base,
                                       st.hy, st.ys, st.nx});
    backend::for_each_cell_3d(
        "pwave::physics::acoustic_vd::load_snapshot", exec, count_, grid_,
        LoadSnapshot<T>{prop_.vd_u_, snapshots, n - base, R, st.hy, st.ys, st.nx});
    if (FreeSurface) {
      Kokkos::parallel_for(
          "pwave::physics::acoustic::free_surface",
          Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(exec, {0, 0}, {count_, fx}),
          physics::FreeSurface<T>{prop_.vd_u_, R});
    }
  }

  /// G^n from G^{n+1}, G^{n+2}: the adjoint fluxes (H-bar, G-bar) per box, then the update.
  /// With pairs_ (boundary storage, host backends, 2D) the cells of pair_ took theirs in
  /// rebuild_and_image: here the rest, with the hbar and gbar they read (a radius into pair_,
  /// and another for gbar's).
  void adjoint_step(const ExecSpace& exec, int p) const {
    const auto& a = parity(p);
    const auto hbar = [&](auto in_x, auto in_y, auto in_z) {
      return vd::HBar<T, Order, Dim, decltype(in_x)::value, decltype(in_z)::value,
                      decltype(in_y)::value>{a};
    };
    const auto gbar = [&](auto in_x, auto in_y, auto in_z) {
      return vd::GBar<T, Order, Dim, decltype(in_x)::value, decltype(in_z)::value,
                      decltype(in_y)::value, FreeSurface>{a, coef_};
    };
    const vd::AdjointUpdate<T, Order, Dim, FreeSurface, true> update{a, coef_};
    if (pairs_) {
      const int R = prop_.st_.halo;
      const backend::Box center{cuts_.z[1], cuts_.z[2], cuts_.y[1],
                                cuts_.y[2], cuts_.x[1], cuts_.x[2]};
      const std::false_type out{};
      backend::for_each_box<Dim>("pwave::physics::acoustic_vd::adjoint_hbar", exec, count_, cuts_,
                                 hbar, true);
      for_each_box_around(center, inside(pair_, 2 * R), [&](const backend::Box& b) {
        backend::for_each_cell_3d("pwave::physics::acoustic_vd::adjoint_hbar", exec, count_, b,
                                  hbar(out, out, out));
      });
      backend::for_each_box<Dim>("pwave::physics::acoustic_vd::adjoint_gbar", exec, count_, cuts_,
                                 gbar, true);
      for_each_box_around(center, inside(pair_, R), [&](const backend::Box& b) {
        backend::for_each_cell_3d("pwave::physics::acoustic_vd::adjoint_gbar", exec, count_, b,
                                  gbar(out, out, out));
      });
      for_each_box_around(grid_, pair_, [&](const backend::Box& b) {
        backend::for_each_cell_3d("pwave::physics::acoustic_vd::adjoint_update", exec, count_, b,
                                  update);
      });
      return;
    }
    backend::for_each_box<Dim>("pwave::physics::acoustic_vd::adjoint_hbar", exec, count_, cuts_,
                               hbar);
    backend::for_each_box<Dim>("pwave::physics::acoustic_vd::adjoint_gbar", exec, count_, cuts_,
                               gbar);
    backend::for_each_cell_3d("pwave::physics::acoustic_vd::adjoint_update", exec, count_, grid_,
                              update);
  }

  /// The residuals of step n injected into G^n; the free surface zeroes its row.
  void inject_residual(const ExecSpace& exec, int p, int n) const {
    const auto& a = parity(p);
    Kokkos::parallel_for(
        "pwave::physics::acoustic_vd::inject_residual",
        Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>(
            exec, {0, 0, n}, {count_, prop_.taps_.receiver_cells().cells(), n + 1}),
        inject_[p]);
    if (FreeSurface) {
      Kokkos::parallel_for("pwave::physics::acoustic_vd::adjoint_surface",
                           Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
                               exec, {0, 0}, {count_, int(prop_.st_.u_cur.extent(2))}),
                           vd::ZeroSurface<T>{a.g_prev, prop_.st_.halo});
    }
  }

  /// Both channels per shot as shot_imaging() returns them; summed over the shots into `grad`
  /// unless it is empty (adjoint_per_shot).
  void finish(const ExecSpace& exec, const GridView<T>& grad) const {
    pack_channels(exec, prop_.shot_channels_, prop_.shot_grad_, prop_.vd_adj_.img_b, count_);
    if (grad.extent(0) > 0) sum_channels(exec, prop_.shot_channels_, grad, count_);
  }

 private:
  using State = vd::AdjointState<T>;
  const State& parity(int p) const { return p == 0 ? even_ : odd_; }
  // The zeroed adjoint state over the current model (parity 0 first: it zeroes), with the
  // fields of parity p.
  static State prepared(AcousticPropagator& prop, bool boundary, int p) {
    auto& A = prop.vd_adj_;
    if (p == 0) {
      for (auto* f : {&A.g_prev, &A.g_cur, &A.p_x, &A.p_z, &A.p_y, &A.z_x, &A.z_z, &A.z_y, &A.img_b,
                      &prop.shot_grad_}) {
        Kokkos::deep_copy(*f, T(0));
      }
      A.v = prop.vd_;
      A.v.st = prop.st_;
    }
    State s = A;
    if (p == 1) std::swap(s.g_prev, s.g_cur);
    const Field<T>& u_now = p == 0 ? prop.st_.u_prev : prop.st_.u_cur;
    s.v.st.u_cur = boundary ? u_now : prop.vd_u_;
    return s;
  }

  AcousticPropagator& prop_;
  const int count_;
  const Traces<T> residual_;
  const SourceAdjoint source_adjoint_;
  const vd::Coefficients<T, Order> coef_;
  const State even_, odd_;
  const propagation::FrameRegion region_;
  const physics::ColumnMap column_;
  const physics::InjectResidual<T> inject_[2];  ///< into G^n: the parity's g_prev
  backend::BoxCuts cuts_;
  backend::Box grid_, flux_box_, box_;
  /// Host backends in 2D run the reversed step fused (rebuild_and_image), and with boundary
  /// storage the adjoint step of pair_'s cells in the same pass (pairs_).
  static constexpr bool fuses_reversal = Dim == 2 && backend::uses_row_paths<ExecSpace>();
  bool fuse_reversal_ = false, pairs_ = false;
  backend::Box pair_;

  /// b shrunk by m on each side that is not the grid's edge.
  backend::Box inside(const backend::Box& b, int m) const {
    return backend::Box{b.z0 > 0 ? b.z0 + m : 0, b.z1 < grid_.z1 ? b.z1 - m : b.z1, b.y0, b.y1,
                        b.x0 > 0 ? b.x0 + m : 0, b.x1 < grid_.x1 ? b.x1 - m : b.x1};
  }
};

template void AcousticPropagator<float>::allocate_adjoint_vd();
template void AcousticPropagator<double>::allocate_adjoint_vd();

PWAVE_INSTANTIATE_BACKWARD(physics::acoustic_vd::Physics)

}  // namespace pwave
