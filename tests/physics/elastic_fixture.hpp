#pragma once
// A small driver of the elastic kernels (physics/elastic), for tests that exercise them without
// the propagator: a 2D or 3D model padded with a CPML on every side, one shot, a source on a
// grid point and receivers on grid points, nt steps, traces back on the host.
//
// Time sampling, as the acoustic loop's "record before step n": sample n of a pressure trace is
// p(t_n), of a velocity trace v(t_{n-1/2}). A force source's sample n is f(t_n) (the velocity
// update of step n is centred there), an explosive source's m(t_{n+1/2}) (the stress update's).

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "pwave/physics/cpml.hpp"
#include "pwave/physics/elastic/free_surface.hpp"
#include "pwave/physics/elastic/step.hpp"

namespace pwave::test::elastic {

/// A model on its cells, row-major [nz][ny][nx] (ny = 1: 2D), cubic cells of h metres.
struct Model {
  int nz = 0, nx = 0, ny = 1;
  double h = 0;
  std::vector<double> vp, vs, rho;

  static Model homogeneous(int nz, int nx, double h, double vp, double vs, double rho, int ny = 1) {
    const std::size_t n = std::size_t(nz) * ny * nx;
    return Model{nz,
                 nx,
                 ny,
                 h,
                 std::vector<double>(n, vp),
                 std::vector<double>(n, vs),
                 std::vector<double>(n, rho)};
  }
  bool is_3d() const { return ny > 1; }
  double vp_max() const { return *std::max_element(vp.begin(), vp.end()); }
};

/// What a receiver records at a model cell: a velocity at its point (vx at (iz, iy, ix + 1/2),
/// vy at (iz, iy + 1/2, ix), vz at (iz + 1/2, iy, ix)) or the pressure -tr(sigma) / Dim at the
/// cell.
enum class Component { vx, vz, pressure, vy };
struct Receiver {
  Component component;
  int iz, ix, iy = 0;
};

/// A force along x, y or z (at the cell's point of that velocity), or an explosive source at the
/// cell. `samples`: f(t_n) in N/m in 2D (force per unit length: a line force), N in 3D; or
/// m(t_{n+1/2}), n = 0 .. nt - 1.
enum class SourceKind { force_x, force_z, explosive, force_y };
struct Source {
  SourceKind kind = SourceKind::force_z;
  int iz = 0, ix = 0;
  std::vector<double> samples;
  int iy = 0;
};

struct Simulation {
  int order = 8;
  int width = 20;  ///< CPML cells on every side
  int nt = 0;
  double dt = 0;
  double pml_frequency = 10.0;  ///< Hz, the CPML alpha term (the wavelet's peak)
  double reflection = 1e-3;     ///< the CPML profile's target R
  double pml_velocity = 0.0;    ///< m/s setting d0; 0: the model's largest vp
  Source source;
  std::vector<Receiver> receivers;
  /// >= 0: run to the end, restore the state::checkpointed() fields saved before this step,
  /// and run again from it (the traces from this step on are the second run's): a restart from
  /// a checkpoint, as the checkpoint history does.
  int restart_from = -1;
  /// A stress-free surface at the model's top (physics/elastic/free_surface.hpp), no CPML there.
  bool free_surface = false;

  /// CPML cells above the model: none under a free surface.
  int top() const { return free_surface ? 0 : width; }
};

namespace detail {

template <class T>
Kokkos::View<T*, MemSpace> to_device(const std::vector<double>& v) {
  Kokkos::View<T*, MemSpace> d("pwave::test::elastic::profile", v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = T(v[i]);
  Kokkos::deep_copy(d, h);
  return d;
}

/// The padded grid's copy of one model array, [nz][ny nx] (edge values continued into the
/// CPML, none along y in 2D).
template <class T>
GridView<T> padded(const Model& m, const std::vector<double>& values, int width, int top) {
  const int wy = m.is_3d() ? width : 0;
  const int nz = m.nz + top + width, ny = m.ny + 2 * wy, nx = m.nx + 2 * width;
  GridView<T> d("pwave::test::elastic::model", nz, ny * nx);
  auto h = Kokkos::create_mirror_view(d);
  const auto clamp = [](int i, int n) { return std::min(std::max(i, 0), n - 1); };
  for (int iz = 0; iz < nz; ++iz) {
    for (int iy = 0; iy < ny; ++iy) {
      for (int ix = 0; ix < nx; ++ix) {
        const std::size_t cell =
            (std::size_t(clamp(iz - top, m.nz)) * m.ny + clamp(iy - wy, m.ny)) * m.nx +
            clamp(ix - width, m.nx);
        h(iz, iy * nx + ix) = T(values[cell]);
      }
    }
  }
  Kokkos::deep_copy(d, h);
  return d;
}

/// Points (padded cells) of one shot as PointTaps: one tap of weight 1 each.
template <class T>
physics::PointTaps<T> taps(const std::vector<std::pair<int, int>>& cells) {
  const int n = std::max<int>(int(cells.size()), 1);
  physics::PointTaps<T> t;
  t.cell = decltype(t.cell)("pwave::test::elastic::cells", 1, n, 1);
  t.weight = decltype(t.weight)("pwave::test::elastic::weights", 1, n, 1);
  auto hc = Kokkos::create_mirror_view(t.cell);
  auto hw = Kokkos::create_mirror_view(t.weight);
  for (std::size_t k = 0; k < cells.size(); ++k) {
    hc(0, k, 0, 0) = cells[k].first, hc(0, k, 0, 1) = cells[k].second;
    hw(0, k, 0) = T(1);
  }
  Kokkos::deep_copy(t.cell, hc);
  Kokkos::deep_copy(t.weight, hw);
  return t;
}

/// The state of `r` on model `m`: fields zero, the coefficients built (BuildMaterial from the
/// padded model), the CPML profiles and memory variables of every side.
template <class T, int Order, int Dim>
physics::elastic::State<T> make_state(const Model& m, const Simulation& r) {
  namespace el = physics::elastic;
  constexpr int R = physics::StaggeredStencil<Order>::radius;
  constexpr int X = el::X, Y = el::Y, Z = el::Z;
  const int w = r.width, wy = Dim == 3 ? w : 0;
  el::State<T> st;
  st.nz = m.nz + r.top() + w, st.nx = m.nx + 2 * w, st.ny = m.ny + 2 * wy;
  st.halo = R, st.hy = Dim == 3 ? R : 0, st.ys = st.nx + 2 * R;
  physics::cpml_strips(r.top(), st.nz, w, R, st.strip_top, st.strip_bottom);
  physics::cpml_strips(w, st.nx, w, R, st.strip_left, st.strip_right);
  if (Dim == 3) physics::cpml_strips(w, st.ny, w, R, st.strip_front, st.strip_back);
  const int plane = st.ny * st.nx;
  const auto field = [&](const char* name) {
    return Field<T>(std::string(name), 1, st.nz + 2 * R, (st.ny + 2 * st.hy) * st.ys);
  };
  const auto grid = [&](const char* name) { return GridView<T>(std::string(name), st.nz, plane); };
  st.vx = field("pwave::test::elastic::vx"), st.vz = field("pwave::test::elastic::vz");
  st.sxx = field("pwave::test::elastic::sxx"), st.szz = field("pwave::test::elastic::szz");
  st.sxz = field("pwave::test::elastic::sxz");
  st.lambda = grid("pwave::test::elastic::lambda"), st.mu = grid("pwave::test::elastic::mu");
  st.bx = grid("pwave::test::elastic::bx"), st.bz = grid("pwave::test::elastic::bz");
  st.mu_xz = grid("pwave::test::elastic::mu_xz");
  if constexpr (Dim == 3) {
    st.vy = field("pwave::test::elastic::vy"), st.syy = field("pwave::test::elastic::syy");
    st.sxy = field("pwave::test::elastic::sxy"), st.syz = field("pwave::test::elastic::syz");
    st.by = grid("pwave::test::elastic::by");
    st.mu_xy = grid("pwave::test::elastic::mu_xy"), st.mu_yz = grid("pwave::test::elastic::mu_yz");
  }

  // CPML: the acoustic equations' profiles, memory variables on the strips of the axes (one per
  // velocity and stress component a derivative along the axis is taken of).
  const double vmax = r.pml_velocity > 0 ? r.pml_velocity : m.vp_max();
  const auto axis = [&](int cells, el::AxisCpml<T>& a, int lo) {
    const auto cell =
        physics::cpml_profile(lo, cells, w, m.h, r.dt, vmax, r.pml_frequency, r.reflection, Order);
    const auto half =
        physics::cpml_profile_half(lo, cells, w, m.h, r.dt, vmax, r.pml_frequency, r.reflection);
    a.cell.a = to_device<T>(cell.a), a.cell.b = to_device<T>(cell.b);
    a.half.a = to_device<T>(half.a), a.half.b = to_device<T>(half.b);
  };
  axis(m.nx, st.cpml[X], w);
  axis(m.nz, st.cpml[Z], r.top());
  if (Dim == 3) axis(m.ny, st.cpml[Y], w);
  const int xcols = st.ny * (st.strip_left + st.strip_right);
  const int zrows = st.strip_top + st.strip_bottom;
  const int ylines = (st.strip_front + st.strip_back) * st.nx;
  for (int c : {X, Y, Z}) {
    if (Dim == 2 && c == Y) continue;
    const auto memory = [&](int rows, int cols) {
      return Field<T>("pwave::test::elastic::psi", 1, rows, cols);
    };
    st.cpml[X].stress[c] = memory(st.nz, xcols), st.cpml[X].velocity[c] = memory(st.nz, xcols);
    st.cpml[Z].stress[c] = memory(zrows, plane), st.cpml[Z].velocity[c] = memory(zrows, plane);
    if (Dim == 3) {
      st.cpml[Y].stress[c] = memory(st.nz, ylines);
      st.cpml[Y].velocity[c] = memory(st.nz, ylines);
    }
  }

  Kokkos::parallel_for(
      "pwave::physics::elastic::material",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {st.nz, plane}),
      el::BuildMaterial<T>{st, padded<T>(m, m.vp, w, r.top()), padded<T>(m, m.vs, w, r.top()),
                           padded<T>(m, m.rho, w, r.top()), T(r.dt), r.free_surface});
  return st;
}

template <class T, int Order, int Dim>
std::vector<std::vector<double>> run(const Model& m, const Simulation& r) {
  namespace el = physics::elastic;
  const int w = r.width, wy = Dim == 3 ? w : 0;
  const el::State<T> st = make_state<T, Order, Dim>(m, r);

  // Source: its wavelet over the cell volume, on its cell.
  const double volume = Dim == 3 ? m.h * m.h * m.h : m.h * m.h;
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> wave("pwave::test::elastic::wavelet", 1, r.nt);
  {
    auto h = Kokkos::create_mirror_view(wave);
    for (int n = 0; n < r.nt; ++n) h(0, n) = T(r.source.samples.at(std::size_t(n)) / volume);
    Kokkos::deep_copy(wave, h);
  }
  const physics::ColumnMap column{st.nx, st.hy, st.ys, st.halo};
  const auto cell_of = [&](int iz, int iy, int ix) {
    return std::pair<int, int>{iz + r.top(), (iy + wy) * st.nx + ix + w};
  };
  const auto source = taps<T>({cell_of(r.source.iz, r.source.iy, r.source.ix)});

  // Receivers, one group per component.
  struct Group {
    std::vector<int> index;  // receiver numbers
    physics::PointTaps<T> taps;
    Traces<T> traces;
  };
  Group groups[4];
  for (int g = 0; g < 4; ++g) {
    std::vector<std::pair<int, int>> cells;
    for (std::size_t k = 0; k < r.receivers.size(); ++k) {
      const Receiver& q = r.receivers[k];
      if (int(q.component) != g) continue;
      groups[g].index.push_back(int(k));
      cells.push_back(cell_of(q.iz, q.iy, q.ix));
    }
    groups[g].taps = taps<T>(cells);
    groups[g].traces = Traces<T>("pwave::test::elastic::traces", 1, cells.size(), r.nt);
  }
  const physics::RecordReceivers<T> record_vx{groups[0].traces, st.vx, groups[0].taps, column, 0};
  const physics::RecordReceivers<T> record_vz{groups[1].traces, st.vz, groups[1].taps, column, 0};
  const el::RecordPressure<T, Dim> record_p{groups[2].traces, st.sxx, st.syy, st.szz,
                                            groups[2].taps,   column, 0};
  const physics::RecordReceivers<T> record_vy{groups[3].traces, st.vy, groups[3].taps, column, 0};
  const SourceKind kind = r.source.kind;
  const bool explosive = kind == SourceKind::explosive;
  const el::InjectForce<T> force{kind == SourceKind::force_x   ? st.vx
                                 : kind == SourceKind::force_y ? st.vy
                                                               : st.vz,
                                 kind == SourceKind::force_x   ? st.bx
                                 : kind == SourceKind::force_y ? st.by
                                                               : st.bz,
                                 source,
                                 wave,
                                 column,
                                 0};
  const el::InjectExplosive<T, Dim> moment{st.sxx, st.syy, st.szz, source,
                                           wave,   column, 0,      T(r.dt)};
  const el::Coefficients<T, Order> coef(m.h, m.h, Dim == 3 ? m.h : 0);
  const el::Step<T, Order, Dim> step(st, coef);
  const el::FreeSurface<T, Order, Dim> surface(st);

  ExecSpace exec;
  using Range3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;
  const auto launch_record = [&](const auto& f, const Group& g, int n) {
    if (g.index.empty()) return;
    Kokkos::parallel_for("pwave::physics::elastic::record",
                         Range3(exec, {0, 0, n}, {1, int(g.index.size()), n + 1}), f);
  };
  const auto run_steps = [&](int n0, int n1) {
    for (int n = n0; n < n1; ++n) {
      launch_record(record_vx, groups[0], n);
      launch_record(record_vz, groups[1], n);
      launch_record(record_p, groups[2], n);
      launch_record(record_vy, groups[3], n);
      step.update_velocity(exec, 1);
      if (!explosive) {
        Kokkos::parallel_for("pwave::physics::elastic::inject_force",
                             Range3(exec, {0, 0, n}, {1, 1, n + 1}), force);
      }
      if (r.free_surface) surface.prepare(exec, 1);
      step.update_stress(exec, 1);
      if (explosive) {
        Kokkos::parallel_for("pwave::physics::elastic::inject_explosive",
                             Range3(exec, {0, 0, n}, {1, 1, n + 1}), moment);
      }
      if (r.free_surface) surface.images(exec, 1);
    }
  };
  if (r.restart_from >= 0) {
    run_steps(0, r.restart_from);
    std::vector<Field<T>> saved;
    for (const Field<T>& f : st.checkpointed()) {
      saved.emplace_back("pwave::test::elastic::checkpoint", f.extent(0), f.extent(1), f.extent(2));
      Kokkos::deep_copy(exec, saved.back(), f);
    }
    run_steps(r.restart_from, r.nt);
    std::size_t k = 0;
    for (const Field<T>& f : st.checkpointed()) Kokkos::deep_copy(exec, f, saved[k++]);
    run_steps(r.restart_from, r.nt);
  } else {
    run_steps(0, r.nt);
  }
  exec.fence();

  std::vector<std::vector<double>> out(r.receivers.size(), std::vector<double>(r.nt));
  for (const Group& g : groups) {
    auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), g.traces);
    for (std::size_t k = 0; k < g.index.size(); ++k)
      for (int n = 0; n < r.nt; ++n) out[std::size_t(g.index[k])][std::size_t(n)] = h(0, k, n);
  }
  return out;
}

}  // namespace detail

/// Runs `r` on model `m` in precision T: traces[receiver][n] (see the file's comment for the
/// times of the samples).
template <class T>
std::vector<std::vector<double>> run(const Model& m, const Simulation& r) {
  std::vector<std::vector<double>> traces;
  if (!physics::with_order(r.order, [&](auto o) {
        constexpr int order = decltype(o)::value;
        traces = m.is_3d() ? detail::run<T, order, 3>(m, r) : detail::run<T, order, 2>(m, r);
      })) {
    throw std::invalid_argument("elastic fixture: order must be 2, 4, 6 or 8");
  }
  return traces;
}

}  // namespace pwave::test::elastic
