#include "pwave/propagation/acoustic_propagator.hpp"

#include "backends/launch.hpp"
#include "pwave/core/error.hpp"
#include "pwave/physics/cpml.hpp"
#include "pwave/physics/point_sources.hpp"
#include "pwave/propagation/extend_model.hpp"
#include "pwave/propagation/padded_layout.hpp"
#include "pwave/propagation/wavefield_layout.hpp"

namespace pwave {

namespace {

/// scale(k, s) = max |u^{n+1} - 2u^n + u^{n-1}| / 127 over the padded grid, for every shot s <
/// count (fields in halo layout): one team per shot, reduced and written on the device, so the
/// time loop does not wait for the host. A free function: nvcc rejects extended
/// (KOKKOS_LAMBDA) lambdas in private member functions.
template <class T>
void store_int8_scales(const ExecSpace& exec, const Field<T>& u_next, const Field<T>& u_cur,
                       const Field<T>& prev,
                       const Kokkos::View<float**, Kokkos::LayoutRight, MemSpace>& scale,
                       const int k, const int count, const int nz, const int nx, const int halo) {
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  const int cells = nz * nx;
  Kokkos::parallel_for(
      "pwave::propagation::int8_scales", Team(exec, count, Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename Team::member_type& team) {
        const int s = team.league_rank();
        float peak = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, cells),
            [&](const int c, float& m) {
              const int iz = c / nx + halo, ix = c % nx + halo;
              const T v = u_next(s, iz, ix) - T(2) * u_cur(s, iz, ix) + prev(s, iz, ix);
              const float a = float(v < 0 ? -v : v);
              if (a > m) m = a;
            },
            Kokkos::Max<float>(peak));
        Kokkos::single(Kokkos::PerTeam(team), [&]() { scale(k, s) = peak / 127.0f; });
      });
}

}  // namespace

template <class T>
AcousticPropagator<T>::AcousticPropagator(const ForwardProblem& problem, int batch_capacity)
    : BatchPropagator<T>(problem, batch_capacity, "AcousticPropagator") {
  const Grid& g = problem_.model.grid;
  const BoundaryConfig& bc = problem_.boundary;

  const bool is3d = g.is_3d();
  const propagation::PaddedLayout layout = propagation::PaddedLayout::of(problem_);
  // Model offsets in the padded grid: the CPML layer widths.
  const int w_top = layout.layer[top], w_bottom = layout.layer[bottom];
  const int w_left = layout.layer[left], w_right = layout.layer[right];
  const int w_front = layout.layer[front], w_back = layout.layer[back];
  st_.nz = layout.nz, st_.nx = layout.nx, st_.ny = layout.ny;
  st_.halo = layout.radius;
  st_.hy = is3d ? st_.halo : 0;
  // The CPML strips: each layer and a stencil radius of the model next to it, where the
  // stencil still reads the layer's memory variables and D1 b (physics/cpml.hpp).
  st_.strip_top = layout.strip[top], st_.strip_bottom = layout.strip[bottom];
  st_.strip_left = layout.strip[left], st_.strip_right = layout.strip[right];
  st_.strip_front = layout.strip[front], st_.strip_back = layout.strip[back];
  // Rows (x lines) padded beyond nx + 2 halo (zeros never written; see
  // backend::padded_row_length); a 3D depth is ny + 2 halo such lines one after another.
  const propagation::WavefieldLayout wl = propagation::WavefieldLayout::of(layout, is3d, sizeof(T));
  const int fz = wl.rows, fcols = int(wl.columns());
  st_.ys = wl.line;
  st_.u_prev = Field<T>("pwave::u_prev", capacity_, fz, fcols);
  st_.u_cur = Field<T>("pwave::u_cur", capacity_, fz, fcols);
  const int xcols = st_.strip_left + st_.strip_right, zrows = st_.strip_top + st_.strip_bottom;
  const int ylines = st_.strip_front + st_.strip_back, plane = st_.ny * st_.nx;
  st_.psi_x = Field<T>("pwave::psi_x", capacity_, st_.nz, st_.ny * xcols);
  st_.psi_x_next = Field<T>("pwave::psi_x_next", capacity_, st_.nz, st_.ny * xcols);
  st_.zeta_x = Field<T>("pwave::zeta_x", capacity_, st_.nz, st_.ny * xcols);
  st_.psi_z = Field<T>("pwave::psi_z", capacity_, zrows, plane);
  st_.psi_z_next = Field<T>("pwave::psi_z_next", capacity_, zrows, plane);
  st_.zeta_z = Field<T>("pwave::zeta_z", capacity_, zrows, plane);
  st_.psi_y = Field<T>("pwave::psi_y", capacity_, st_.nz, ylines * st_.nx);
  st_.psi_y_next = Field<T>("pwave::psi_y_next", capacity_, st_.nz, ylines * st_.nx);
  st_.zeta_y = Field<T>("pwave::zeta_y", capacity_, st_.nz, ylines * st_.nx);

  // v^2 dt^2 on the padded grid: the model extended into the CPML by its edge values.
  st_.v2dt2 = GridView<T>("pwave::v2dt2", st_.nz, plane);
  auto hv = host_mirror_uninit(st_.v2dt2);
  const double dt2 = problem_.dt * problem_.dt;
  const auto clamp = [](int i, int n) { return std::min(std::max(i, 0), n - 1); };
  for (int iz = 0; iz < st_.nz; ++iz) {
    const int mz = clamp(iz - w_top, g.nz);
    for (int iy = 0; iy < st_.ny; ++iy) {
      const int my = clamp(iy - w_front, g.ny);
      for (int ix = 0; ix < st_.nx; ++ix) {
        const double v = problem_.model.at(mz, my, clamp(ix - w_left, g.nx));
        hv(iz, st_.plane(iy, ix)) = T(v * v * dt2);
      }
    }
  }
  Kokkos::deep_copy(st_.v2dt2, hv);
  vp_ = this->model_grid(physics::Parameter::vp);
  const bool vd = problem_.equation == physics::Equation::acoustic_variable_density;
  if (vd) {
    // psi is advanced in place (no neighbour reads): the parity swap of forward() must see one
    // buffer.
    st_.psi_x_next = st_.psi_x, st_.psi_z_next = st_.psi_z, st_.psi_y_next = st_.psi_y;
    rho_pad_ = GridView<T>("pwave::rho", st_.nz, plane);
    auto hr = host_mirror_uninit(rho_pad_);
    for (int iz = 0; iz < st_.nz; ++iz) {
      const int mz = clamp(iz - w_top, g.nz);
      for (int iy = 0; iy < st_.ny; ++iy) {
        const int my = clamp(iy - w_front, g.ny);
        for (int ix = 0; ix < st_.nx; ++ix) {
          hr(iz, st_.plane(iy, ix)) = T(problem_.model.rho_at(mz, my, clamp(ix - w_left, g.nx)));
        }
      }
    }
    Kokkos::deep_copy(rho_pad_, hr);
    vd_.w = GridView<T>("pwave::vd_w", st_.nz, plane);
    vd_.beta_x = GridView<T>("pwave::vd_beta_x", st_.nz, plane);
    vd_.beta_z = GridView<T>("pwave::vd_beta_z", st_.nz, plane);
    if (is3d) vd_.beta_y = GridView<T>("pwave::vd_beta_y", st_.nz, plane);
    const auto like_u = [&](const char* name) {
      return Field<T>(std::string(name), capacity_, st_.u_cur.extent(1), st_.u_cur.extent(2));
    };
    vd_.flux_x = like_u("pwave::vd_flux_x");
    vd_.flux_z = like_u("pwave::vd_flux_z");
    if (is3d) vd_.flux_y = like_u("pwave::vd_flux_y");
  }

  const double vmax = bc.pml_velocity > 0 ? bc.pml_velocity : problem_.model.vmax();
  const double f = bc.pml_frequency > 0 ? bc.pml_frequency : problem_.peak_frequency;
  const auto axis = [&](int lo, int cells, int hi, double h, const char* name,
                        physics::CpmlAxis<T>& out) {
    const auto p = physics::cpml_profile(lo, cells, hi, h, problem_.dt, vmax, f, bc.reflection,
                                         problem_.order);
    const std::string n(name);
    out.a = to_device<T>(p.a, "pwave::cpml_a" + n);
    out.b = to_device<T>(p.b, "pwave::cpml_b" + n);
    out.ab = to_device<T>(p.ab, "pwave::cpml_ab" + n);
    out.db = to_device<T>(p.db, "pwave::cpml_db" + n);
  };
  axis(w_left, g.nx, w_right, g.dx, "x", st_.cx);
  axis(w_top, g.nz, w_bottom, g.dz, "z", st_.cz);
  if (is3d) axis(w_front, g.ny, w_back, g.dy, "y", st_.cy);
  if (vd) {
    const auto half = [&](int lo, int cells, int hi, double h, const char* name,
                          physics::CpmlAxis<T>& out) {
      const auto p =
          physics::cpml_profile_half(lo, cells, hi, h, problem_.dt, vmax, f, bc.reflection);
      const std::string n(name);
      out.a = to_device<T>(p.a, "pwave::cpml_half_a" + n);
      out.b = to_device<T>(p.b, "pwave::cpml_half_b" + n);
    };
    half(w_left, g.nx, w_right, g.dx, "x", vd_.hx);
    half(w_top, g.nz, w_bottom, g.dz, "z", vd_.hz);
    if (is3d) half(w_front, g.ny, w_back, g.dy, "y", vd_.hy);
    rebuild_vd_material();
  }
}

template <class T>
void AcousticPropagator<T>::reset() {
  Kokkos::deep_copy(st_.u_prev, T(0));
  Kokkos::deep_copy(st_.u_cur, T(0));
  Kokkos::deep_copy(st_.psi_x, T(0));
  Kokkos::deep_copy(st_.psi_x_next, T(0));
  Kokkos::deep_copy(st_.zeta_x, T(0));
  Kokkos::deep_copy(st_.psi_z, T(0));
  Kokkos::deep_copy(st_.psi_z_next, T(0));
  Kokkos::deep_copy(st_.zeta_z, T(0));
  Kokkos::deep_copy(st_.psi_y, T(0));
  Kokkos::deep_copy(st_.psi_y_next, T(0));
  Kokkos::deep_copy(st_.zeta_y, T(0));
}

namespace {
std::vector<int> shot_range(int first, int count) {
  std::vector<int> v(std::size_t(count > 0 ? count : 0));
  for (int k = 0; k < count; ++k) v[k] = first + k;
  return v;
}
}  // namespace

template <class T>
void AcousticPropagator<T>::forward(int first, int count, const Traces<T>& traces,
                                    const ProgressCallback& progress, long steps_before,
                                    long steps_total, const History& history) {
  forward(shot_range(first, count), traces, progress, steps_before, steps_total, history);
}

template <class T>
void AcousticPropagator<T>::forward(const std::vector<int>& shots, const Traces<T>& traces,
                                    const ProgressCallback& progress, long steps_before,
                                    long steps_total, const History& history) {
  load_batch(shots);
  const int count = int(shots.size());
  check_traces("AcousticPropagator::forward: the traces", traces, count);
  const bool is3d = problem_.model.grid.is_3d();
  if (is3d && history.template get_if<propagation::DifferenceHistory<T>>()) {
    throw RuntimeError(
        "AcousticPropagator: 3D full histories are exact (no stride or compression)");
  }
  if (!history.empty() && !history.holds(problem_.nt, count)) {
    throw RuntimeError("AcousticPropagator::forward: history has the wrong shape");
  }
  bool known = false;
  physics::with_equation(problem_.equation, [&](auto physics) {
    using Physics = decltype(physics);
    if constexpr (acoustic_equation<Physics>) {
      known = physics::with_order(this->problem_.order, [&](auto order) {
        constexpr int Order = decltype(order)::value;
        if (is3d) {
          forward_impl<Physics, Order, 3>(count, traces, progress, steps_before, steps_total,
                                          history, 0, this->problem_.nt, false);
        } else {
          forward_impl<Physics, Order, 2>(count, traces, progress, steps_before, steps_total,
                                          history, 0, this->problem_.nt, false);
        }
      });
    }
  });
  if (!known) throw InputError("physics.order", "", "order must be 2, 4, 6 or 8");
}

template <class T>
void AcousticPropagator<T>::set_velocity(const GridView<T>& vp) {
  const Grid& g = problem_.model.grid;
  if (int(vp.extent(0)) != g.nz || int(vp.extent(1)) != g.ny * g.nx) {
    throw RuntimeError("AcousticPropagator::set_velocity: the model has the wrong shape");
  }
  propagation::extend_model("pwave::propagation::set_velocity",
                            propagation::PaddedLayout::of(problem_), g.nz, g.ny, g.nx, vp,
                            st_.v2dt2, propagation::SquareTimes<T>{T(problem_.dt * problem_.dt)});
  Kokkos::deep_copy(vp_, vp);
  if (problem_.equation == physics::Equation::acoustic_variable_density) rebuild_vd_material();
}

template <class T>
void AcousticPropagator<T>::set_parameter(physics::Parameter p, const GridView<T>& values) {
  if (!physics::has_parameter(problem_.equation, p)) {
    throw RuntimeError(std::string("AcousticPropagator::set_parameter: the ") +
                       physics::name(problem_.equation) + " equation has no " + physics::name(p));
  }
  switch (p) {
    case physics::Parameter::vp:
      set_velocity(values);
      return;
    case physics::Parameter::rho:
      set_density(values);
      return;
    case physics::Parameter::vs:  // no acoustic equation has it (refused above)
      return;
  }
}

template <class T>
template <int Dim>
void AcousticPropagator<T>::store_snapshot(const ExecSpace& exec, int count, const Snapshots& dst,
                                           const Field<T>& u, int k) const {
  physics::StoreSnapshot<T> f{dst, u, k, st_.halo, st_.hy, st_.ys, st_.nx};
  if constexpr (Dim == 3) {
    backend::for_each_cell_3d("pwave::propagation::store", exec, count,
                              backend::Box{0, st_.nz, 0, st_.ny, 0, st_.nx}, f);
  } else {
    backend::for_each_cell("pwave::propagation::store", exec, count, 0, st_.nz, 0, st_.nx, f);
  }
}

template <class T>
propagation::FrameRegion AcousticPropagator<T>::frame_region() const {
  // The band: the stencil radius (= the halo), where the reversed step would read the strips.
  return propagation::FrameRegion(st_.nz, st_.nx, st_.strip_top, st_.strip_bottom, st_.strip_left,
                                  st_.strip_right, st_.halo, st_.ny, st_.strip_front,
                                  st_.strip_back)
      .on_columns(st_.halo, st_.hy, st_.ys);
}

template <class T>
void AcousticPropagator<T>::store_difference(const ExecSpace& exec,
                                             const propagation::DifferenceHistory<T>& d,
                                             const Field<T>& u_next, const Field<T>& u_cur,
                                             int count, int n) const {
  using namespace propagation;
  const int k = n / d.stride;
  const Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>> cells(exec, {0, 0, 0},
                                                                {count, st_.nz, st_.nx});
  const int halo = st_.halo;
  with_compression(d.compression, [&](auto c) {
    constexpr Compression C = decltype(c)::value;
    if constexpr (C == Compression::int8) {
      // One scale per snapshot and shot: max |D| / 127.
      store_int8_scales(exec, u_next, u_cur, d.previous, d.scale, k, count, st_.nz, st_.nx, halo);
    }
    Kokkos::parallel_for("pwave::propagation::store_difference", cells,
                         StoreDifference<T, C>{d, u_next, u_cur, k, halo});
  });
}

template <class T>
typename AcousticPropagator<T>::History AcousticPropagator<T>::make_history(
    int count, const StorageOptions& options) const {
  if (problem_.model.grid.is_3d() && options.strategy == Storage::full && !options.exact_full()) {
    throw RuntimeError(
        "AcousticPropagator::make_history: 3D gradients keep exact full histories (no stride or "
        "compression) so far");
  }
  if (problem_.equation == physics::Equation::acoustic_variable_density &&
      options.strategy == Storage::full && !options.exact_full()) {
    throw InputError("gradient.stride", "",
                     "the variable-density equation keeps exact histories only: its density "
                     "gradient needs the wavefield itself, which strided or compressed `full` "
                     "storage does not keep; use storage full (stride 1, no compression), "
                     "checkpoint or boundary");
  }
  using namespace propagation;
  const int nt = problem_.nt;
  switch (options.strategy) {
    case Storage::full:
      if (options.exact_full()) return FullHistory<T>::allocate(st_, nt, count);
      if (options.stride < 1) throw InputError("gradient.stride", "", "must be at least 1");
      return DifferenceHistory<T>::allocate(st_, nt, count, options);
    case Storage::checkpoint:
      if (count != capacity_) {
        throw RuntimeError(
            "AcousticPropagator: checkpoint histories hold exactly batch_capacity() shots");
      }
      return CheckpointHistory<T>::allocate(st_, nt, count, options);
    case Storage::boundary:
      break;
  }
  return FrameHistory<T>::allocate(frame_region(), nt, count);
}

template <class T>
double AcousticPropagator<T>::history_bytes_per_shot(const StorageOptions& options) const {
  using namespace propagation;
  const int nt = problem_.nt;
  switch (options.strategy) {
    case Storage::full:
      return options.exact_full() ? FullHistory<T>::bytes_per_shot(st_, nt)
                                  : DifferenceHistory<T>::bytes_per_shot(st_, nt, options);
    case Storage::checkpoint:
      return CheckpointHistory<T>::bytes_per_shot(st_, nt, options);
    case Storage::boundary:
      break;
  }
  return FrameHistory<T>::bytes_per_shot(frame_region(), nt);
}

template class AcousticPropagator<float>;
template class AcousticPropagator<double>;

// The forward loop's helpers, called from its instantiations in each equation's file.
#define PWAVE_INSTANTIATE_STORE_SNAPSHOT(T, D)            \
  template void AcousticPropagator<T>::store_snapshot<D>( \
      const ExecSpace&, int, const AcousticPropagator<T>::Snapshots&, const Field<T>&, int) const;
PWAVE_INSTANTIATE_STORE_SNAPSHOT(float, 2)
PWAVE_INSTANTIATE_STORE_SNAPSHOT(float, 3)
PWAVE_INSTANTIATE_STORE_SNAPSHOT(double, 2)
PWAVE_INSTANTIATE_STORE_SNAPSHOT(double, 3)

}  // namespace pwave
