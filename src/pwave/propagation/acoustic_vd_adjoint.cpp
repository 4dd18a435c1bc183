// The backward run of the variable-density equation (physics/acoustic_vd/adjoint_kernels.hpp):
// the exact transpose of its forward steps, with the imaging of dJ/dw (w = rho v^2 dt^2) and
// dJ/db (b = 1/rho), and the chain rule to dJ/dvp and dJ/drho on the model grid.

#include "backends/launch.hpp"
#include "pwave/core/error.hpp"
#include "pwave/physics/point_sources.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"

namespace pwave {

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

template <class T>
template <int Order, bool FreeSurface, int Dim>
void AcousticPropagator<T>::adjoint_vd_impl(
    int count, const Traces<T>& residual, const History& history, const GridView<T>& grad,
    const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>& source_adjoint) {
  namespace vd = physics::acoustic_vd;
  const int first = 0;
  auto& A = vd_adj_;
  for (auto* f : {&A.g_prev, &A.g_cur, &A.p_x, &A.p_z, &A.p_y, &A.z_x, &A.z_z, &A.z_y, &A.img_b,
                  &shot_grad_}) {
    Kokkos::deep_copy(*f, T(0));
  }
  const Grid& g = problem_.model.grid;
  const vd::Coefficients<T, Order> coef(g.dz, g.dx, Dim == 3 ? g.dy : 0.0);
  ExecSpace exec;
  const int nz = st_.nz, nx = st_.nx, ny = st_.ny, R = st_.halo;
  // Which history it is: exactly one of these is set (adjoint() checked it holds this batch and
  // is not a DifferenceHistory).
  const auto* full = history.template get_if<propagation::FullHistory<T>>();
  const auto* frames = history.template get_if<propagation::FrameHistory<T>>();
  const auto* checkpoints = history.template get_if<propagation::CheckpointHistory<T>>();
  const bool boundary = frames != nullptr;

  // Parity copies: step n writes G^n over G^{n+2}. u^n for the buoyancy imaging: with boundary
  // storage the forward field that holds it (as in acoustic_propagator_adjoint.cpp), else vd_u_,
  // loaded from the history.
  A.v = vd_;
  A.v.st = st_;
  vd::AdjointState<T> even = A, odd = A;
  std::swap(odd.g_prev, odd.g_cur);
  even.v.st.u_cur = boundary ? st_.u_prev : vd_u_;
  odd.v.st.u_cur = boundary ? st_.u_cur : vd_u_;
  const vd::AdjointState<T>* parity[2] = {&even, &odd};

  const backend::BoxCuts cuts{{0, st_.strip_top, nz - st_.strip_bottom, nz},
                              {0, st_.strip_front, ny - st_.strip_back, ny},
                              {0, st_.strip_left, nx - st_.strip_right, nx}};
  const backend::Box grid{0, nz, 0, ny, 0, nx};
  const propagation::FrameRegion region = frame_region();
  // The reversed step's flux is needed a stencil radius around the box.
  const backend::Box flux_box{std::max(region.z_lo - R, 0),
                              std::min(region.z_hi + R, nz),
                              Dim == 3 ? std::max(region.y_lo - R, 0) : 0,
                              Dim == 3 ? std::min(region.y_hi + R, ny) : 1,
                              std::max(region.x_lo - R, 0),
                              std::min(region.x_hi + R, nx)};
  const backend::Box box{region.z_lo, region.z_hi, region.y_lo,
                         region.y_hi, region.x_lo, region.x_hi};
  const physics::ColumnMap column{nx, st_.hy, st_.ys, R};
  const int fx = int(st_.u_cur.extent(2));
  const T inv_volume = T(1.0 / g.cell_volume());
  using Range2 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
  using Range3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;

  int segment_begin = problem_.nt;
  for (int n = problem_.nt - 1; n >= 0; --n) {
    const int p = (problem_.nt - 1 - n) & 1;
    const vd::AdjointState<T>& a = *parity[p];
    if (checkpoints && n < segment_begin) {
      const int c = n / checkpoints->interval;
      segment_begin = c * checkpoints->interval;
      restore_checkpoint(*checkpoints, c);
      forward_impl<physics::acoustic_vd::Physics, Order, Dim>(first, count, Traces<T>(), {}, 0, 0,
                                                              history, segment_begin, n + 1, true);
    }
    Kokkos::parallel_for(
        "pwave::physics::acoustic_vd::source_adjoint",
        Kokkos::RangePolicy<ExecSpace>(exec, 0, count),
        vd::SourceAdjoint<T>{source_adjoint, a.g_cur, a.img_b, st_.v2dt2, vd_.w, source_cell_,
                             scaled_wavelet_, column, inv_volume, first, n});
    if (boundary) {
      // u^{n-1} over u^{n+1}: the frame from storage, the box by the reversed step; dJ/dw's
      // imaging term on both.
      const Field<T>& u_next = p == 0 ? st_.u_cur : st_.u_prev;
      const Field<T>& u_now = p == 0 ? st_.u_prev : st_.u_cur;
      propagation::for_each_stored_cell(
          "pwave::propagation::frame_image_restore", exec, count, region,
          propagation::FrameImageRestore<T>{frames->frames, u_next, u_now, a.g_cur, shot_grad_,
                                            region, n, R});
      vd::State<T> rv = vd_;
      rv.st = st_;
      rv.st.u_cur = u_now, rv.st.u_prev = u_next;
      backend::for_each_cell_3d("pwave::physics::acoustic_vd::reverse_flux", exec, count, flux_box,
                                vd::InteriorFlux<T, Order, Dim>{rv, coef});
      if (FreeSurface) {
        Kokkos::parallel_for("pwave::physics::acoustic_vd::mirror_flux",
                             Range2(exec, {0, 0}, {count, fx}), vd::MirrorFlux<T>{rv.flux_z, R});
      }
      backend::for_each_cell_3d("pwave::physics::acoustic_vd::reverse_step", exec, count, box,
                                vd::ReverseUpdate<T, Order, Dim>{rv, coef, a.g_cur, shot_grad_});
      Kokkos::parallel_for(
          "pwave::propagation::reconstruct_source", Kokkos::RangePolicy<ExecSpace>(exec, 0, count),
          propagation::ReconstructSource<T>{u_next, a.g_cur, shot_grad_, st_.v2dt2, source_cell_,
                                            scaled_wavelet_, region, n, R, first});
      if (FreeSurface) {
        Kokkos::parallel_for("pwave::physics::acoustic::free_surface",
                             Range2(exec, {0, 0}, {count, fx}), physics::FreeSurface<T>{u_next, R});
      }
    } else {
      // A FullHistory or a CheckpointHistory: u^n from its snapshots.
      const auto& snaps = full ? full->snapshots : checkpoints->segment;
      const int base = full ? 0 : segment_begin - 1;
      backend::for_each_cell_3d("pwave::physics::acoustic_vd::imaging_w", exec, count, grid,
                                physics::AccumulateGradient<T>{shot_grad_, a.g_cur, snaps, n, R,
                                                               base, st_.hy, st_.ys, nx});
      backend::for_each_cell_3d("pwave::physics::acoustic_vd::load_snapshot", exec, count, grid,
                                LoadSnapshot<T>{vd_u_, snaps, n - base, R, st_.hy, st_.ys, nx});
      if (FreeSurface) {
        Kokkos::parallel_for("pwave::physics::acoustic::free_surface",
                             Range2(exec, {0, 0}, {count, fx}), physics::FreeSurface<T>{vd_u_, R});
      }
    }
    backend::for_each_box_3d("pwave::physics::acoustic_vd::adjoint_hbar", exec, count, cuts,
                             [&](auto in_x, auto in_y, auto in_z) {
                               return vd::HBar<T, Order, Dim, decltype(in_x)::value,
                                               decltype(in_z)::value, decltype(in_y)::value>{a};
                             });
    backend::for_each_box_3d(
        "pwave::physics::acoustic_vd::adjoint_gbar", exec, count, cuts,
        [&](auto in_x, auto in_y, auto in_z) {
          return vd::GBar<T, Order, Dim, decltype(in_x)::value, decltype(in_z)::value,
                          decltype(in_y)::value, FreeSurface>{a, coef};
        });
    backend::for_each_cell_3d("pwave::physics::acoustic_vd::adjoint_update", exec, count, grid,
                              vd::AdjointUpdate<T, Order, Dim, FreeSurface, true>{a, coef});
    Kokkos::parallel_for(
        "pwave::physics::acoustic_vd::inject_residual",
        Range3(exec, {0, 0, n}, {count, nrec_, n + 1}),
        physics::InjectResidual<T>{a.g_prev, residual, vd_.w, receiver_cell_, column, first});
    if (FreeSurface) {
      Kokkos::parallel_for("pwave::physics::acoustic_vd::adjoint_surface",
                           Range2(exec, {0, 0}, {count, fx}), vd::ZeroSurface<T>{a.g_prev, R});
    }
  }
  pack_channels(exec, shot_channels_, shot_grad_, A.img_b, count);
  if (grad.extent(0) > 0) sum_channels(exec, shot_channels_, grad, count);
  exec.fence();
}

template <class T>
void AcousticPropagator<T>::model_gradients(const GridView<T>& imaging, const GridView<T>& grad_vp,
                                            const GridView<T>& grad_rho) const {
  const Grid& g = problem_.model.grid;
  const int channels = imaging_channels();
  if (int(imaging.extent(0)) != channels * st_.nz || int(imaging.extent(1)) != padded_plane()) {
    throw RuntimeError("AcousticPropagator::model_gradients: the imaging is " +
                       std::to_string(imaging.extent(0)) + " x " +
                       std::to_string(imaging.extent(1)) + ", expected " +
                       std::to_string(channels * st_.nz) + " x " + std::to_string(padded_plane()));
  }
  const bool want_rho = channels > 1 && grad_rho.extent(0) > 0;
  const auto check = [&](const GridView<T>& v, const char* what) {
    if (int(v.extent(0)) != g.nz || int(v.extent(1)) != g.ny * g.nx) {
      throw RuntimeError(std::string("AcousticPropagator::model_gradients: ") + what +
                         " must be the model grid [nz][ny nx]");
    }
  };
  check(grad_vp, "grad_vp");
  if (want_rho) check(grad_rho, "grad_rho");
  const GridView<T> v2dt2 = st_.v2dt2;
  const GridView<T> w = channels > 1 ? vd_.w : st_.v2dt2;
  const GridView<T> rho = rho_pad_;
  const int* wd = problem_.boundary.width;
  const int pad_top = wd[top], pad_left = wd[left], pad_front = g.is_3d() ? wd[front] : 0;
  const int nz = g.nz, nx = g.nx, ny = g.ny;
  const int pnz = st_.nz, pnx = st_.nx, pny = st_.ny;
  const T dt = T(problem_.dt);
  Kokkos::parallel_for(
      "pwave::propagation::model_gradients",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {nz, ny * nx}),
      KOKKOS_LAMBDA(const int mz, const int mq) {
        const int my = mq / nx, mx = mq % nx;
        // The padded cells that copy model cell (mz, my, mx).
        const int z_lo = mz == 0 ? 0 : mz + pad_top;
        const int z_hi = mz == nz - 1 ? pnz : mz + pad_top + 1;
        const int x_lo = mx == 0 ? 0 : mx + pad_left;
        const int x_hi = mx == nx - 1 ? pnx : mx + pad_left + 1;
        const int y_lo = my == 0 ? 0 : my + pad_front;
        const int y_hi = my == ny - 1 ? pny : my + pad_front + 1;
        T gv = 0, gr = 0;
        for (int z = z_lo; z < z_hi; ++z)
          for (int y = y_lo; y < y_hi; ++y)
            for (int x = x_lo; x < x_hi; ++x) {
              const int q = y * pnx + x;
              const T ww = w(z, q);
              const T dj_dw = imaging(z, q) / (ww * ww);
              // w = rho v^2 dt^2 (rho = 1 for constant density): dw/dv = 2 w / v.
              const T v = math::sqrt(v2dt2(z, q)) / dt;
              gv += dj_dw * T(2) * ww / v;
              if (want_rho) {
                const T r = rho(z, q);
                gr += dj_dw * v2dt2(z, q) - imaging(z + pnz, q) / (r * r);
              }
            }
        grad_vp(mz, mq) = gv;
        if (want_rho) grad_rho(mz, mq) = gr;
      });
  Kokkos::fence();
}

#define PWAVE_INSTANTIATE_VD(T)                                                                \
  template void AcousticPropagator<T>::allocate_adjoint_vd();                                  \
  template void AcousticPropagator<T>::model_gradients(const GridView<T>&, const GridView<T>&, \
                                                       const GridView<T>&) const;
PWAVE_INSTANTIATE_VD(float)
PWAVE_INSTANTIATE_VD(double)

#define PWAVE_INSTANTIATE_VD_ADJOINT(T, O, FS, D)                 \
  template void AcousticPropagator<T>::adjoint_vd_impl<O, FS, D>( \
      int, const Traces<T>&, const History&, const GridView<T>&,  \
      const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>&);
#define PWAVE_INSTANTIATE_VD_ADJOINT_ORDERS(T, FS, D) \
  PWAVE_INSTANTIATE_VD_ADJOINT(T, 2, FS, D)           \
  PWAVE_INSTANTIATE_VD_ADJOINT(T, 4, FS, D)           \
  PWAVE_INSTANTIATE_VD_ADJOINT(T, 6, FS, D)           \
  PWAVE_INSTANTIATE_VD_ADJOINT(T, 8, FS, D)
#define PWAVE_INSTANTIATE_VD_ADJOINT_ALL(T)        \
  PWAVE_INSTANTIATE_VD_ADJOINT_ORDERS(T, false, 2) \
  PWAVE_INSTANTIATE_VD_ADJOINT_ORDERS(T, true, 2)  \
  PWAVE_INSTANTIATE_VD_ADJOINT_ORDERS(T, false, 3) \
  PWAVE_INSTANTIATE_VD_ADJOINT_ORDERS(T, true, 3)
PWAVE_INSTANTIATE_VD_ADJOINT_ALL(float)
PWAVE_INSTANTIATE_VD_ADJOINT_ALL(double)

}  // namespace pwave
