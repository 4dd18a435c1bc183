#pragma once
// The backward run of the elastic kernels (physics/elastic/adjoint_step.hpp) on the fixture's
// problems (elastic_fixture.hpp): a forward run keeping the state before every step and after
// the last (the history the imaging needs: step n's images read the states before and after
// it, fields and memory variables), then the transposed steps from given
// receiver residuals, giving the source samples' gradient, the images and dJ/dvp, dJ/dvs,
// dJ/drho per model cell. Also the dot-product test of the whole state map.

#include <algorithm>
#include <cmath>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "physics/elastic_fixture.hpp"
#include "pwave/physics/elastic/adjoint_step.hpp"
#include "pwave/physics/elastic/physics.hpp"

namespace pwave::test::elastic {

/// What a backward run returns: the gradients of J (residuals given) with respect to the
/// source samples and, per model cell ([nz][ny][nx]), to vp, vs and rho.
struct AdjointRun {
  std::vector<double> source;
  std::vector<double> vp, vs, rho;
};

namespace detail {

/// Every wavefield and memory variable of a state (the checkpointed ones, empty ones skipped).
template <class T>
std::vector<Field<T>*> state_fields(physics::elastic::State<T>& st) {
  std::vector<Field<T>*> f = {&st.vx,  &st.vy,  &st.vz,  &st.sxx, &st.syy,
                              &st.szz, &st.sxy, &st.sxz, &st.syz};
  for (auto& a : st.cpml) {
    for (int c = 0; c < 3; ++c) f.push_back(&a.stress[c]), f.push_back(&a.velocity[c]);
  }
  std::vector<Field<T>*> used;
  for (Field<T>* p : f)
    if (p->size() > 0) used.push_back(p);
  return used;
}

/// A state of st's geometry and coefficients with fields of its own, zero.
template <class T>
physics::elastic::State<T> fresh(const physics::elastic::State<T>& st) {
  physics::elastic::State<T> out = st;
  for (Field<T>* f : state_fields(out))
    *f = Field<T>("pwave::test::elastic::field", f->extent(0), f->extent(1), f->extent(2));
  return out;
}

/// dst's fields = src's.
template <class T>
void copy_fields(const ExecSpace& exec, physics::elastic::State<T> dst,
                 physics::elastic::State<T> src) {
  const auto d = state_fields(dst), s = state_fields(src);
  for (std::size_t k = 0; k < d.size(); ++k) Kokkos::deep_copy(exec, *d[k], *s[k]);
}

/// Fills the state's points (not the halo, which stays zero) with uniform random values.
template <class T>
void randomize(physics::elastic::State<T> st, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto fields = state_fields(st);
  for (std::size_t k = 0; k < fields.size(); ++k) {
    auto h = Kokkos::create_mirror_view(*fields[k]);
    Kokkos::deep_copy(h, T(0));
    const bool wavefield = fields[k]->extent(1) == std::size_t(st.nz + 2 * st.halo) &&
                           fields[k]->extent(2) == std::size_t((st.ny + 2 * st.hy) * st.ys);
    if (wavefield) {
      for (int iz = 0; iz < st.nz; ++iz)
        for (int iy = 0; iy < st.ny; ++iy)
          for (int ix = 0; ix < st.nx; ++ix) h(0, iz + st.halo, st.column(iy, ix)) = T(u(rng));
    } else {
      for (std::size_t i = 0; i < h.extent(1); ++i)
        for (std::size_t j = 0; j < h.extent(2); ++j) h(0, i, j) = T(u(rng));
    }
    Kokkos::deep_copy(*fields[k], h);
  }
}

/// sum over every field of a . b (the halos of one of them zero).
template <class T>
double dot(physics::elastic::State<T> a, physics::elastic::State<T> b) {
  const auto fa = state_fields(a), fb = state_fields(b);
  double sum = 0;
  for (std::size_t k = 0; k < fa.size(); ++k) {
    auto ha = Kokkos::create_mirror_view_and_copy(HostSpace(), *fa[k]);
    auto hb = Kokkos::create_mirror_view_and_copy(HostSpace(), *fb[k]);
    for (std::size_t i = 0; i < ha.size(); ++i) sum += double(ha.data()[i]) * double(hb.data()[i]);
  }
  return sum;
}

/// The adjoint state of st: zero fields of st's layout, the Bar scratch fields.
template <class T, int Dim>
physics::elastic::AdjointState<T> adjoint_state(const physics::elastic::State<T>& st) {
  physics::elastic::AdjointState<T> a{fresh(st), {}};
  for (int i = 0; i < 3; ++i) {
    for (int c = 0; c < 3; ++c) {
      if (Dim == 2 && (i == physics::elastic::Y || c == physics::elastic::Y)) continue;
      a.bar[i][c] = Field<T>("pwave::test::elastic::bar", 1, st.vx.extent(1), st.vx.extent(2));
    }
  }
  return a;
}

template <class T, int Order, int Dim>
AdjointRun adjoint(const Model& m, const Simulation& r,
                   const std::vector<std::vector<double>>& residual) {
  namespace el = physics::elastic;
  const int w = r.width, wy = Dim == 3 ? w : 0, top = r.top();
  const el::State<T> st = make_state<T, Order, Dim>(m, r);
  const el::Coefficients<T, Order> coef(m.h, m.h, Dim == 3 ? m.h : 0);
  const int plane = st.ny * st.nx;
  ExecSpace exec;
  using Range3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>;

  // Source and receivers, as run().
  const double volume = Dim == 3 ? m.h * m.h * m.h : m.h * m.h;
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> wave("pwave::test::elastic::wavelet", 1, r.nt);
  {
    auto h = Kokkos::create_mirror_view(wave);
    for (int n = 0; n < r.nt; ++n) h(0, n) = T(r.source.samples.at(std::size_t(n)) / volume);
    Kokkos::deep_copy(wave, h);
  }
  const physics::ColumnMap column{st.nx, st.hy, st.ys, st.halo};
  const auto cell_of = [&](int iz, int iy, int ix) {
    return std::pair<int, int>{iz + top, (iy + wy) * st.nx + ix + w};
  };
  const auto source = taps<T>({cell_of(r.source.iz, r.source.iy, r.source.ix)});
  const SourceKind kind = r.source.kind;
  const bool explosive = kind == SourceKind::explosive;
  const auto force_field = [&](const el::State<T>& s) {
    return kind == SourceKind::force_x ? s.vx : kind == SourceKind::force_y ? s.vy : s.vz;
  };
  const GridView<T> force_b = kind == SourceKind::force_x   ? st.bx
                              : kind == SourceKind::force_y ? st.by
                                                            : st.bz;
  const int force_channel = kind == SourceKind::force_x   ? el::bx_ch
                            : kind == SourceKind::force_y ? el::by_ch
                                                          : el::bz_ch;
  const el::InjectForce<T> force{force_field(st), force_b, source, wave, column, 0};
  const el::InjectExplosive<T, Dim> moment{st.sxx, st.syy, st.szz, source,
                                           wave,   column, 0,      T(r.dt)};

  // Forward, keeping the state before each step and after the last.
  const el::Step<T, Order, Dim> step(st, coef);
  const el::FreeSurface<T, Order, Dim> surface(st);
  std::vector<el::State<T>> history;
  const auto one_shot = [&](int n) { return Range3(exec, {0, 0, n}, {1, 1, n + 1}); };
  for (int n = 0; n < r.nt; ++n) {
    history.push_back(fresh(st));
    copy_fields(exec, history.back(), st);
    step.update_velocity(exec, 1);
    if (!explosive) Kokkos::parallel_for("pwave::test::elastic::force", one_shot(n), force);
    if (r.free_surface) surface.prepare(exec, 1);
    step.update_stress(exec, 1);
    if (explosive) Kokkos::parallel_for("pwave::test::elastic::explosive", one_shot(n), moment);
    if (r.free_surface) surface.images(exec, 1);
  }
  history.push_back(fresh(st));
  copy_fields(exec, history.back(), st);

  // Backward.
  const el::AdjointState<T> adj = adjoint_state<T, Dim>(st);
  const el::AdjointStep<T, Order, Dim> back(adj, coef, r.free_surface);
  el::ImagingState<T> images{st, adj.st, {}};
  const int channels = el::Physics::model_arrays_of(Dim);
  for (int k = 0; k < channels; ++k)
    images.image[k] = Field<T>("pwave::test::elastic::image", 1, st.nz, plane);
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> source_grad("pwave::test::elastic::dsource", 1,
                                                               r.nt);
  const el::SourceGradient<T, Dim> source_t{source_grad,
                                            explosive ? adj.st.sxx : force_field(adj.st),
                                            adj.st.syy,
                                            adj.st.szz,
                                            explosive ? GridView<T>() : force_b,
                                            source,
                                            column,
                                            0,
                                            T(r.dt)};
  const el::ImageForce<T> image_force{
      images.image[force_channel], force_field(adj.st), source, wave, column, 0};

  // The residuals, by component (Component's order), as the receivers' taps.
  struct Group {
    std::vector<int> index;
    physics::PointTaps<T> taps;
    Traces<T> residual;
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
    groups[g].residual = Traces<T>("pwave::test::elastic::residual", 1, cells.size(), r.nt);
    auto h = Kokkos::create_mirror_view(groups[g].residual);
    for (std::size_t k = 0; k < cells.size(); ++k)
      for (int n = 0; n < r.nt; ++n)
        h(0, k, n) = T(residual.at(std::size_t(groups[g].index[k])).at(std::size_t(n)));
    Kokkos::deep_copy(groups[g].residual, h);
  }
  const el::InjectVelocityResidual<T> inject_vx{adj.st.vx, groups[0].residual, groups[0].taps,
                                                column, 0};
  const el::InjectVelocityResidual<T> inject_vz{adj.st.vz, groups[1].residual, groups[1].taps,
                                                column, 0};
  const el::InjectPressureResidual<T, Dim> inject_p{
      adj.st.sxx, adj.st.syy, adj.st.szz, groups[2].residual, groups[2].taps, column, 0};
  const el::InjectVelocityResidual<T> inject_vy{adj.st.vy, groups[3].residual, groups[3].taps,
                                                column, 0};
  const auto inject = [&](const auto& f, const Group& g, int n) {
    if (g.index.empty()) return;
    Kokkos::parallel_for("pwave::test::elastic::residual",
                         Range3(exec, {0, 0, n}, {1, int(g.index.size()), n + 1}), f);
  };

  for (int n = r.nt - 1; n >= 0; --n) {
    back.surface_stress(exec, 1);
    if (explosive) Kokkos::parallel_for("pwave::test::elastic::dsource", one_shot(n), source_t);
    el::ImagingState<T> after = images;
    after.forward = history[std::size_t(n + 1)];
    el::Imaging<T, Order, Dim>(after, coef).image_stress(exec, 1);
    back.adjoint_stress(exec, 1);
    if (!explosive) {
      Kokkos::parallel_for("pwave::test::elastic::dsource", one_shot(n), source_t);
      Kokkos::parallel_for("pwave::test::elastic::image_force", one_shot(n), image_force);
    }
    el::ImagingState<T> before = images;
    before.forward = history[std::size_t(n)];
    el::Imaging<T, Order, Dim>(before, coef).image_velocity(exec, 1);
    back.adjoint_velocity(exec, 1);
    inject(inject_vx, groups[0], n);
    inject(inject_vz, groups[1], n);
    inject(inject_p, groups[2], n);
    inject(inject_vy, groups[3], n);
  }

  // The chain rule to vp, vs, rho on the padded grid, then the padding's transpose (a model
  // cell's value copied into the CPML: the sum over its copies).
  el::MaterialGradient<T, Dim> chain{
      el::BuildMaterial<T>{st, padded<T>(m, m.vp, w, top), padded<T>(m, m.vs, w, top),
                           padded<T>(m, m.rho, w, top), T(r.dt), r.free_surface},
      {},
      Field<T>("pwave::test::elastic::dvp", 1, st.nz, plane),
      Field<T>("pwave::test::elastic::dvs", 1, st.nz, plane),
      Field<T>("pwave::test::elastic::drho", 1, st.nz, plane)};
  for (int k = 0; k < channels; ++k) chain.image[k] = images.image[k];
  Kokkos::parallel_for("pwave::test::elastic::material_gradient",
                       Range3(exec, {0, 0, 0}, {1, st.nz, plane}), chain);
  exec.fence();

  AdjointRun out;
  const std::size_t cells = std::size_t(m.nz) * m.ny * m.nx;
  out.vp.assign(cells, 0.0), out.vs.assign(cells, 0.0), out.rho.assign(cells, 0.0);
  auto hvp = Kokkos::create_mirror_view_and_copy(HostSpace(), chain.vp);
  auto hvs = Kokkos::create_mirror_view_and_copy(HostSpace(), chain.vs);
  auto hrho = Kokkos::create_mirror_view_and_copy(HostSpace(), chain.rho);
  const auto clamp = [](int i, int n) { return std::min(std::max(i, 0), n - 1); };
  for (int iz = 0; iz < st.nz; ++iz) {
    for (int iy = 0; iy < st.ny; ++iy) {
      for (int ix = 0; ix < st.nx; ++ix) {
        const std::size_t cell =
            (std::size_t(clamp(iz - top, m.nz)) * m.ny + clamp(iy - wy, m.ny)) * m.nx +
            clamp(ix - w, m.nx);
        const int q = iy * st.nx + ix;
        out.vp[cell] += hvp(0, iz, q), out.vs[cell] += hvs(0, iz, q);
        out.rho[cell] += hrho(0, iz, q);
      }
    }
  }
  auto hs = Kokkos::create_mirror_view_and_copy(HostSpace(), source_grad);
  for (int n = 0; n < r.nt; ++n) out.source.push_back(hs(0, n) / volume);
  return out;
}

/// <L x0, y> and <x0, L^T y> for the map L of r.nt source-free steps, x0 and y random states.
/// With a free surface L starts with the surface's images of x0 (szz = 0 on row 0 and the halo
/// images the first velocity update reads), so L^T ends with their transpose.
template <class T, int Order, int Dim>
std::pair<double, double> state_dot_test(const Model& m, const Simulation& r, unsigned seed) {
  namespace el = physics::elastic;
  const el::State<T> st = make_state<T, Order, Dim>(m, r);
  const el::Coefficients<T, Order> coef(m.h, m.h, Dim == 3 ? m.h : 0);
  ExecSpace exec;
  std::mt19937_64 rng(seed);
  randomize(st, rng);
  const el::State<T> x0 = fresh(st);
  copy_fields(exec, x0, st);
  const el::Step<T, Order, Dim> step(st, coef);
  const el::FreeSurface<T, Order, Dim> surface(st);
  if (r.free_surface) surface.images(exec, 1);
  for (int n = 0; n < r.nt; ++n) {
    step.update_velocity(exec, 1);
    if (r.free_surface) surface.prepare(exec, 1);
    step.update_stress(exec, 1);
    if (r.free_surface) surface.images(exec, 1);
  }
  const el::AdjointState<T> adj = adjoint_state<T, Dim>(st);
  randomize(adj.st, rng);
  exec.fence();
  const double lhs = dot(st, adj.st);
  const el::AdjointStep<T, Order, Dim> back(adj, coef, r.free_surface);
  for (int n = 0; n < r.nt; ++n) {
    back.surface_stress(exec, 1);
    back.adjoint_stress(exec, 1);
    back.adjoint_velocity(exec, 1);
  }
  back.surface_stress(exec, 1);
  exec.fence();
  return {lhs, dot(x0, adj.st)};
}

/// How far r.nt backward steps from one random adjoint state differ between
/// Bars::inline_interior and Bars::stored: the largest |difference| of any value (every field
/// and memory variable) over the largest |value| of its field; and how many points the inline
/// box has (so that a caller can tell the comparison is not vacuous).
template <class T, int Order, int Dim>
std::pair<double, long> bars_paths_differ(const Model& m, const Simulation& r, unsigned seed) {
  namespace el = physics::elastic;
  const el::State<T> st = make_state<T, Order, Dim>(m, r);
  const el::Coefficients<T, Order> coef(m.h, m.h, Dim == 3 ? m.h : 0);
  ExecSpace exec;
  el::AdjointState<T> runs[2] = {adjoint_state<T, Dim>(st), adjoint_state<T, Dim>(st)};
  std::mt19937_64 rng(seed);
  randomize(runs[0].st, rng);
  copy_fields(exec, runs[1].st, runs[0].st);
  for (int k = 0; k < 2; ++k) {
    const el::AdjointStep<T, Order, Dim> back(
        runs[k], coef, r.free_surface, k == 0 ? el::Bars::inline_interior : el::Bars::stored);
    for (int n = 0; n < r.nt; ++n) {
      back.surface_stress(exec, 1);
      back.adjoint_stress(exec, 1);
      back.adjoint_velocity(exec, 1);
    }
  }
  exec.fence();
  const auto a = state_fields(runs[0].st), b = state_fields(runs[1].st);
  double worst = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    auto ha = Kokkos::create_mirror_view_and_copy(HostSpace(), *a[k]);
    auto hb = Kokkos::create_mirror_view_and_copy(HostSpace(), *b[k]);
    double diff = 0, size = 0;
    for (std::size_t i = 0; i < ha.size(); ++i) {
      diff = std::max(diff, std::abs(double(ha.data()[i]) - double(hb.data()[i])));
      size = std::max(size, std::abs(double(hb.data()[i])));
    }
    if (size > 0) worst = std::max(worst, diff / size);
  }
  const backend::Box box =
      el::strips_inner_box<T, Dim>(st, physics::StaggeredStencil<Order>::radius);
  const long covered =
      box.empty() ? 0L : long(box.z1 - box.z0) * (box.y1 - box.y0) * (box.x1 - box.x0);
  return {worst, covered};
}

}  // namespace detail

/// f(order, dim) with r.order and m's dimension as std::integral_constant's.
template <class R, class F>
R with_order_and_dim(const Model& m, const Simulation& r, const F& f) {
  R out;
  if (!physics::with_order(r.order, [&](auto o) {
        out = m.is_3d() ? f(o, std::integral_constant<int, 3>{})
                        : f(o, std::integral_constant<int, 2>{});
      })) {
    throw std::invalid_argument("elastic fixture: order must be 2, 4, 6 or 8");
  }
  return out;
}

/// The backward run of `r` on `m` from receiver residuals [receiver][n] (float64 or float32).
template <class T>
AdjointRun adjoint(const Model& m, const Simulation& r,
                   const std::vector<std::vector<double>>& residual) {
  return with_order_and_dim<AdjointRun>(m, r, [&](auto o, auto d) {
    return detail::adjoint<T, decltype(o)::value, decltype(d)::value>(m, r, residual);
  });
}

/// The state dot-product test of r.nt steps: {<L x0, y>, <x0, L^T y>}.
template <class T>
std::pair<double, double> state_dot_test(const Model& m, const Simulation& r, unsigned seed = 7) {
  return with_order_and_dim<std::pair<double, double>>(m, r, [&](auto o, auto d) {
    return detail::state_dot_test<T, decltype(o)::value, decltype(d)::value>(m, r, seed);
  });
}

/// bars_paths_differ: {the largest difference relative to its field, points of the inline box}.
template <class T>
std::pair<double, long> bars_paths_differ(const Model& m, const Simulation& r, unsigned seed = 11) {
  return with_order_and_dim<std::pair<double, long>>(m, r, [&](auto o, auto d) {
    return detail::bars_paths_differ<T, decltype(o)::value, decltype(d)::value>(m, r, seed);
  });
}

}  // namespace pwave::test::elastic
