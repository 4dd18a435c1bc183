// The backward (adjoint) run of AcousticPropagator: the exact transpose of forward(), step by step
// in reverse, with the imaging condition for dJ/d(v^2 dt^2).

#include "backends/launch.hpp"
#include "pwave/core/error.hpp"
#include "pwave/physics/point_sources.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"

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
  adj_.psi_x = like(st_.u_cur, "pwave::psi_x_hat");
  adj_.psi_x_next = like(st_.u_cur, "pwave::psi_x_hat_next");
  adj_.zeta_x = like(st_.u_cur, "pwave::zeta_x_hat");
  adj_.zeta_x_next = like(st_.u_cur, "pwave::zeta_x_hat_next");
  adj_.psi_z = like(st_.u_cur, "pwave::psi_z_hat");
  adj_.psi_z_next = like(st_.u_cur, "pwave::psi_z_hat_next");
  adj_.zeta_z = like(st_.u_cur, "pwave::zeta_z_hat");
  adj_.zeta_z_next = like(st_.u_cur, "pwave::zeta_z_hat_next");
  if (problem_.model.grid.is_3d()) {
    // Whole-grid memory variables for y too: simple, but 4 more wavefields (strips would do).
    adj_.cy = padded_axis(st_.cy, "y");
    adj_.chiy = indicator(st_.ny, st_.strip_front, st_.strip_back, "pwave::adj_chiy");
    adj_.psi_y = like(st_.u_cur, "pwave::psi_y_hat");
    adj_.psi_y_next = like(st_.u_cur, "pwave::psi_y_hat_next");
    adj_.zeta_y = like(st_.u_cur, "pwave::zeta_y_hat");
    adj_.zeta_y_next = like(st_.u_cur, "pwave::zeta_y_hat_next");
  }
  shot_grad_ = Field<T>("pwave::shot_gradient", capacity_, st_.nz, st_.ny * st_.nx);
}

template <class T>
void AcousticPropagator<T>::adjoint(
    int first, int count, const Traces<T>& residual, const History& history,
    const GridView<T>& grad_w,
    const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>& source_adjoint) {
  std::vector<int> shots(std::size_t(count > 0 ? count : 0));
  for (int k = 0; k < count; ++k) shots[k] = first + k;
  adjoint(shots, residual, history, grad_w, source_adjoint);
}

template <class T>
void AcousticPropagator<T>::adjoint(
    const std::vector<int>& shots, const Traces<T>& residual, const History& history,
    const GridView<T>& grad_w,
    const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>& source_adjoint) {
  if (shots != batch_) {
    throw RuntimeError("AcousticPropagator::adjoint: not the batch of the preceding forward()");
  }
  const int count = int(shots.size()), first = 0;
  if (!history.holds(problem_.nt, count)) {
    throw RuntimeError("AcousticPropagator::adjoint: history has the wrong shape");
  }
  check_traces("AcousticPropagator::adjoint: the residuals", residual, count);
  if (source_adjoint.extent(0) != 0 &&
      (int(source_adjoint.extent(0)) < count || int(source_adjoint.extent(1)) != problem_.nt)) {
    throw RuntimeError("AcousticPropagator::adjoint: the source adjoint is " +
                       std::to_string(source_adjoint.extent(0)) + " x " +
                       std::to_string(source_adjoint.extent(1)) + "; this batch needs at least " +
                       std::to_string(count) + " x " + std::to_string(problem_.nt));
  }
  // The gradient is accumulated on the padded model grid [nz][ny nx] (empty: per-shot images),
  // one such grid per imaging channel.
  const int rows = imaging_channels() * padded_nz();
  if (grad_w.extent(0) != 0 &&
      (int(grad_w.extent(0)) != rows || int(grad_w.extent(1)) != padded_plane())) {
    throw RuntimeError(
        "AcousticPropagator::adjoint: the gradient is " + std::to_string(grad_w.extent(0)) + " x " +
        std::to_string(grad_w.extent(1)) + ", expected " + std::to_string(rows) + " x " +
        std::to_string(padded_plane()) + " ([channels nz][ny nx] on the padded grid)");
  }
  const bool fs = problem_.boundary.free_surface;
  const bool is3d = problem_.model.grid.is_3d();
  if (problem_.equation == physics::Equation::acoustic_variable_density) {
    if (history.template get_if<propagation::DifferenceHistory<T>>()) {
      throw RuntimeError("AcousticPropagator::adjoint: variable density needs an exact history");
    }
    allocate_adjoint_vd();
    const bool ok = physics::with_order(problem_.order, [&](auto order) {
      constexpr int O = decltype(order)::value;
      if (is3d) {
        fs ? adjoint_vd_impl<O, true, 3>(count, residual, history, grad_w, source_adjoint)
           : adjoint_vd_impl<O, false, 3>(count, residual, history, grad_w, source_adjoint);
      } else {
        fs ? adjoint_vd_impl<O, true, 2>(count, residual, history, grad_w, source_adjoint)
           : adjoint_vd_impl<O, false, 2>(count, residual, history, grad_w, source_adjoint);
      }
    });
    if (!ok) throw InputError("physics.order", "", "order must be 2, 4, 6 or 8");
    return;
  }
  allocate_adjoint();
  const bool known = physics::with_order(problem_.order, [&](auto order) {
    constexpr int Order = decltype(order)::value;
    const auto run = [&](auto free_surface, auto dim) {
      adjoint_impl<Order, decltype(free_surface)::value, decltype(dim)::value>(
          first, count, residual, history, grad_w, source_adjoint);
    };
    using Yes = std::true_type;
    using No = std::false_type;
    using D2 = std::integral_constant<int, 2>;
    using D3 = std::integral_constant<int, 3>;
    if (is3d) {
      fs ? run(Yes{}, D3{}) : run(No{}, D3{});
    } else {
      fs ? run(Yes{}, D2{}) : run(No{}, D2{});
    }
  });
  if (!known) throw InputError("physics.order", "", "order must be 2, 4, 6 or 8");
}

namespace {

/// dJ/ds(t_n) = w(x_s) lambda^{n+1}(x_s) / V = G^{n+1}(x_s) / V (V the cell volume, dx dz in
/// 2D): the adjoint of the source injection.
template <class T>
struct RecordSourceAdjoint {
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> out;
  Field<T> g;
  Kokkos::View<const int* [2], MemSpace> cell;
  T inv_area;
  physics::ColumnMap column;
  int first_shot, n;
  KOKKOS_INLINE_FUNCTION void operator()(int s) const {
    const int iz = cell(first_shot + s, 0), q = cell(first_shot + s, 1);
    out(s, n) = g(s, iz + column.halo, column(q)) * inv_area;
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

template <class T>
template <int Order, bool FreeSurface, int Dim>
void AcousticPropagator<T>::adjoint_impl(
    int first, int count, const Traces<T>& residual, const History& history,
    const GridView<T>& grad_w,
    const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>& source_adjoint) {
  using namespace physics;
  // Which history it is: exactly one of these is set (adjoint() checked it holds this batch).
  const auto* full = history.template get_if<propagation::FullHistory<T>>();
  const auto* frames = history.template get_if<propagation::FrameHistory<T>>();
  const auto* checkpoints = history.template get_if<propagation::CheckpointHistory<T>>();
  const auto* diff = history.template get_if<propagation::DifferenceHistory<T>>();
  for (auto* f : {&adj_.g_prev, &adj_.g_cur, &adj_.psi_x, &adj_.psi_x_next, &adj_.zeta_x,
                  &adj_.zeta_x_next, &adj_.psi_z, &adj_.psi_z_next, &adj_.zeta_z, &adj_.zeta_z_next,
                  &adj_.psi_y, &adj_.psi_y_next, &adj_.zeta_y, &adj_.zeta_y_next, &shot_grad_}) {
    Kokkos::deep_copy(*f, T(0));
  }
  const Grid& g = problem_.model.grid;
  const ScaledStencil<T, Order> coef(g.dz, g.dx, Dim == 3 ? g.dy : 0.0);
  ExecSpace exec;

  // Parity copies as in forward(): step n writes G^n over G^{n+2} and the memory variables
  // into their *_next buffers; the next step sees them swapped.
  AcousticAdjointState<T> even = adj_, odd = adj_;
  std::swap(odd.g_prev, odd.g_cur);
  std::swap(odd.psi_x, odd.psi_x_next);
  std::swap(odd.zeta_x, odd.zeta_x_next);
  std::swap(odd.psi_z, odd.psi_z_next);
  std::swap(odd.zeta_z, odd.zeta_z_next);
  std::swap(odd.psi_y, odd.psi_y_next);
  std::swap(odd.zeta_y, odd.zeta_y_next);
  const AcousticAdjointState<T>* parity[2] = {&even, &odd};

  // Away from the strips the adjoint in G is the forward interior update.
  const InteriorStep<T, Order> interior[2] = {{even.as_forward(), coef}, {odd.as_forward(), coef}};
  const AdjointFrameStep<T, Order, true, false> side[2] = {{even, coef}, {odd, coef}};
  const AdjointFrameStep<T, Order, false, true> band[2] = {{even, coef}, {odd, coef}};
  const AdjointFrameStep<T, Order, true, true> corner[2] = {{even, coef}, {odd, coef}};

  const int nz = st_.nz, nx = st_.nx, R = st_.halo;
  // The box where no stencil reaches a CPML strip; the frame around it is the same region the
  // boundary storage keeps.
  const propagation::FrameRegion region = frame_region();
  const int z0 = region.z_lo, z1 = region.z_hi, x0 = region.x_lo, x1 = region.x_hi;
  const int nrec = nrec_;
  const T inv_area = T(1.0 / g.cell_volume());
  const ColumnMap column{st_.nx, st_.hy, st_.ys, R};
  const bool want_source = source_adjoint.extent(0) > 0;
  // Boundary storage rebuilds u in the box, fused with the box's adjoint step (ReverseStepBox):
  // u^{n+1} and u^n sit in the forward fields, u^{n-1} is written over u^{n+1}. One functor per
  // parity, built once.
  const bool rebuilds_box = frames != nullptr;
  const auto reverse_step = [&](int p) {
    const Field<T>& u_next = p == 0 ? st_.u_cur : st_.u_prev;
    const Field<T>& u_now = p == 0 ? st_.u_prev : st_.u_cur;
    const AcousticAdjointState<T>& a = *parity[p];
    return propagation::ReverseStepBox<T, Order, Dim>(
        {u_next, u_now, a.g_cur, shot_grad_, a.v2dt2, coef, R, st_.hy, st_.ys, nx},
        InteriorStep<T, Order, Dim>(a.as_forward(), coef));
  };
  const propagation::ReverseStepBox<T, Order, Dim> reverse[2] = {reverse_step(0), reverse_step(1)};
  using Range2 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
  using Range3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;
  const char* name = "pwave::physics::acoustic::adjoint_frame";

  // Backward step n = nt-1 .. 0. On entry G^{n+1} is in g_cur and G^{n+2} in g_prev of the
  // step's parity (p = (nt - 1 - n) & 1).
  int segment_begin = problem_.nt;  // checkpoint storage: first step of the loaded segment
  for (int n = problem_.nt - 1; n >= 0; --n) {
    const int p = (problem_.nt - 1 - n) & 1;
    const AcousticAdjointState<T>& st = *parity[p];
    if (checkpoints && n < segment_begin) {
      // Recompute this segment's snapshots from its checkpoint.
      const int c = n / checkpoints->interval;
      segment_begin = c * checkpoints->interval;
      restore_checkpoint(*checkpoints, c);
      forward_impl<physics::acoustic::Physics, Order, Dim>(first, count, Traces<T>(), {}, 0, 0,
                                                           history, segment_begin, n + 1, true);
    }
    if (want_source) {
      Kokkos::parallel_for("pwave::physics::acoustic::source_adjoint",
                           Kokkos::RangePolicy<ExecSpace>(exec, 0, count),
                           RecordSourceAdjoint<T>{source_adjoint, st.g_cur, source_cell_, inv_area,
                                                  column, first, n});
    }
    if (diff) {
      const auto& d = *diff;
      if (n % d.stride == 0) {
        const int k = n / d.stride;
        const Range3 cells(exec, {0, 0, 0}, {count, nz, nx});
        using propagation::AccumulateDifference;
        const char* label = "pwave::physics::acoustic::imaging";
        if (d.compression == Compression::none) {
          Kokkos::parallel_for(
              label, cells,
              AccumulateDifference<T, Compression::none>{d, shot_grad_, st.g_cur, k, R});
        } else if (d.compression == Compression::bf16) {
          Kokkos::parallel_for(
              label, cells,
              AccumulateDifference<T, Compression::bf16>{d, shot_grad_, st.g_cur, k, R});
        } else {
          Kokkos::parallel_for(
              label, cells,
              AccumulateDifference<T, Compression::int8>{d, shot_grad_, st.g_cur, k, R});
        }
      }
    } else if (full || checkpoints) {
      const AccumulateGradient<T> image{
          shot_grad_, st.g_cur, full ? full->snapshots : checkpoints->segment,
          n,          R,        full ? 0 : segment_begin - 1,
          st_.hy,     st_.ys,   nx};
      if constexpr (Dim == 3) {
        backend::for_each_cell_3d("pwave::physics::acoustic3d::imaging", exec, count,
                                  backend::Box{0, nz, 0, st_.ny, 0, nx}, image);
      } else {
        Kokkos::parallel_for("pwave::physics::acoustic::imaging",
                             Range3(exec, {0, 0, 0}, {count, nz, nx}), image);
      }
    } else {
      // A FrameHistory: the frame restored from it, the box rebuilt by the reversed step.
      const Field<T>& u_next = reverse[p].rebuild.u_next;  // u^{n+1}, to become u^{n-1}
      const Field<T>& u_now = reverse[p].rebuild.u_cur;
      propagation::for_each_stored_cell(
          "pwave::propagation::frame_image_restore", exec, count, region,
          propagation::FrameImageRestore<T>{frames->frames, u_next, u_now, st.g_cur, shot_grad_,
                                            region, n, R});
      // The box is the adjoint interior (z0..z1, x0..x1; adjoint_step_3d skips it in 3D).
      if constexpr (Dim == 3) {
        backend::for_each_cell_3d("pwave::propagation::reverse_step_box", exec, count,
                                  backend::Box{region.z_lo, region.z_hi, region.y_lo, region.y_hi,
                                               region.x_lo, region.x_hi},
                                  reverse[p]);
      } else {
        backend::for_each_cell("pwave::propagation::reverse_step_box", exec, count, z0, z1, x0, x1,
                               reverse[p]);
      }
      Kokkos::parallel_for(
          "pwave::propagation::reconstruct_source", Kokkos::RangePolicy<ExecSpace>(exec, 0, count),
          propagation::ReconstructSource<T>{u_next, st.g_cur, shot_grad_, st.v2dt2, source_cell_,
                                            scaled_wavelet_, region, n, R, first});
      if (FreeSurface) {
        Kokkos::parallel_for("pwave::physics::acoustic::free_surface",
                             Range2(exec, {0, 0}, {count, int(u_next.extent(2))}),
                             physics::FreeSurface<T>{u_next, R});
      }
    }
    if constexpr (Dim == 3) {
      adjoint_step_3d<Order>(exec, count, rebuilds_box, st, coef);
    } else {
      if (!rebuilds_box) {  // else done with the reversed step above
        backend::for_each_cell("pwave::physics::acoustic::adjoint_interior", exec, count, z0, z1,
                               x0, x1, interior[p]);
      }
      // The frame as in forward(): side columns (x strips only in reach), top and bottom bands
      // (z strips only), and the four corners (both).
      backend::for_each_cell(name, exec, count, z0, z1, 0, x0, side[p]);
      backend::for_each_cell(name, exec, count, z0, z1, x1, nx, side[p]);
      backend::for_each_cell(name, exec, count, 0, z0, x0, x1, band[p]);
      backend::for_each_cell(name, exec, count, z1, nz, x0, x1, band[p]);
      backend::for_each_cell(name, exec, count, 0, z0, 0, x0, corner[p]);
      backend::for_each_cell(name, exec, count, 0, z0, x1, nx, corner[p]);
      backend::for_each_cell(name, exec, count, z1, nz, 0, x0, corner[p]);
      backend::for_each_cell(name, exec, count, z1, nz, x1, nx, corner[p]);
    }
    Kokkos::parallel_for(
        "pwave::physics::acoustic::inject_residual", Range3(exec, {0, 0, n}, {count, nrec, n + 1}),
        InjectResidual<T>{st.g_prev, residual, st.v2dt2, receiver_cell_, column, first});
    if (FreeSurface) {  // S, and the mirror the next step's stencils read
      Kokkos::parallel_for("pwave::physics::acoustic::adjoint_surface",
                           Range2(exec, {0, 0}, {count, int(st.g_prev.extent(2))}),
                           physics::FreeSurface<T>{st.g_prev, R});
    }
  }
  if (grad_w.extent(0) == 0) {  // adjoint_per_shot: the caller sums the shots
    exec.fence();
    return;
  }
  // dJ/dw = (imaging sum) / w^2; shots summed in order, so the gradient does not depend on
  // how shots were batched.
  sum_shot_gradients(exec, shot_grad_, st_.v2dt2, grad_w, count, nz, int(shot_grad_.extent(2)));
  exec.fence();
}

template <class T>
template <int Order>
void AcousticPropagator<T>::adjoint_step_3d(const ExecSpace& exec, int count, bool skip_interior,
                                            const physics::AcousticAdjointState<T>& st,
                                            const physics::ScaledStencil<T, Order>& coef) const {
  // As step_3d, but the boxes are cut a stencil radius inside the strips: the region whose
  // stencils reach no strip runs the forward interior kernel on G (see the 2D frame above).
  const int R = st.halo;
  const auto cut = [R](int strip_lo, int n, int strip_hi, int* c) {
    c[0] = 0;
    c[1] = std::min(strip_lo > 0 ? strip_lo + R : 0, n);
    c[2] = std::max(strip_hi > 0 ? n - strip_hi - R : n, c[1]);
    c[3] = n;
  };
  backend::BoxCuts cuts;
  cut(st.strip_top, st.nz, st.strip_bottom, cuts.z);
  cut(st.strip_front, st.ny, st.strip_back, cuts.y);
  cut(st.strip_left, st.nx, st.strip_right, cuts.x);
  backend::for_each_box_3d(
      "pwave::physics::acoustic3d::adjoint_step", exec, count, cuts,
      [&](auto in_x, auto in_y, auto in_z) {
        constexpr bool x = decltype(in_x)::value, y = decltype(in_y)::value;
        constexpr bool z = decltype(in_z)::value;
        if constexpr (!x && !y && !z) {
          return physics::InteriorStep<T, Order, 3>(st.as_forward(), coef);
        } else {
          return physics::AdjointFrameStep<T, Order, x, z, 3, y>(st, coef);
        }
      },
      skip_interior);
}

template <class T>
void AcousticPropagator<T>::adjoint_per_shot(const std::vector<int>& shots,
                                             const Traces<T>& residual, const History& history) {
  adjoint(shots, residual, history, GridView<T>());
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

#define PWAVE_INSTANTIATE_ADJOINT(T)                                                               \
  template void AcousticPropagator<T>::allocate_adjoint();                                         \
  template void AcousticPropagator<T>::adjoint_per_shot(const std::vector<int>&, const Traces<T>&, \
                                                        const History&);                           \
  template void AcousticPropagator<T>::add_imaging(const GridView<T>&, const GridView<T>&) const;  \
  template void AcousticPropagator<T>::adjoint(                                                    \
      int, int, const Traces<T>&, const History&, const GridView<T>&,                              \
      const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>&);                                    \
  template void AcousticPropagator<T>::adjoint(                                                    \
      const std::vector<int>&, const Traces<T>&, const History&, const GridView<T>&,               \
      const Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>&);
PWAVE_INSTANTIATE_ADJOINT(float)
PWAVE_INSTANTIATE_ADJOINT(double)

}  // namespace pwave
