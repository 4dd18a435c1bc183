#include "pwave/propagation/point_taps.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "pwave/acquisition/hicks.hpp"
#include "pwave/core/error.hpp"

namespace pwave::propagation {
namespace {

/// What the taps above a free surface (padded index < 0) become.
enum class AboveSurface {
  dropped,      ///< no surface there (a CPML narrower than the window): left out
  odd,          ///< mirrored about padded index 0 with a sign change (acoustic: u odd about it)
  renormalised  ///< left out, the others scaled to keep the window's sum (elastic: no parity)
};

/// The Hicks taps of one axis on the padded grid: model index + `offset`, those above index 0 as
/// `above` says, those beyond n dropped.
std::vector<AxisTap> padded_axis(double f, int half_width, int offset, int n, AboveSurface above) {
  std::map<int, double> merged;
  double sum = 0.0, kept = 0.0;
  for (const AxisTap& t : hicks_axis(f, half_width)) {
    int i = t.index + offset;
    double w = t.weight;
    sum += w;
    if (above == AboveSurface::odd && i < 0) i = -i, w = -w;
    if (i >= 0 && i < n) merged[i] += w, kept += w;
  }
  const double scale = above == AboveSurface::renormalised && kept != sum ? sum / kept : 1.0;
  std::vector<AxisTap> out;
  for (const auto& [i, w] : merged) {
    if (w != 0.0) out.push_back(AxisTap{i, w * scale});
  }
  return out;
}

/// One receiver tap as the adjoint adds it: cell (iz, q = iy nx + ix), receiver r, tap k.
struct Contribution {
  int f = 0, iz = 0, q = 0, r = 0, k = 0;  ///< f: the field, int(Component)
  double weight = 0.0;
};

/// The taps of `receivers` (one shot's) ordered by cell (iz, q), and within a cell by receiver
/// and tap: the order of a serial loop over receivers and taps, for each cell. Taps whose
/// weight is 0 in T are left out (they add nothing).
template <class T>
std::vector<Contribution> by_cell(const std::vector<std::vector<Tap>>& receivers,
                                  const std::vector<int>& fields, int nx) {
  std::vector<Contribution> out;
  for (std::size_t r = 0; r < receivers.size(); ++r) {
    const auto& taps = receivers[r];
    for (std::size_t k = 0; k < taps.size(); ++k) {
      const Tap& t = taps[k];
      if (T(t.weight) == T(0)) continue;
      out.push_back(Contribution{fields[r], t.iz, t.iy * nx + t.ix, int(r), int(k), t.weight});
    }
  }
  std::sort(out.begin(), out.end(), [](const Contribution& a, const Contribution& b) {
    return std::tie(a.f, a.iz, a.q, a.r, a.k) < std::tie(b.f, b.iz, b.q, b.r, b.k);
  });
  return out;
}

/// Whether two contributions go to different cells (of one field, or of different fields).
bool new_cell(const Contribution& a, const Contribution& b) {
  return a.f != b.f || a.iz != b.iz || a.q != b.q;
}

/// Distinct cells of contributions sorted by cell.
int distinct_cells(const std::vector<Contribution>& c) {
  int n = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (i == 0 || new_cell(c[i], c[i - 1])) ++n;
  }
  return n;
}

}  // namespace

std::vector<Tap> point_taps(const ForwardProblem& problem, const PaddedLayout& layout,
                            const Position& p, const std::string& key, const Position& stagger) {
  const Grid& g = problem.model.grid;
  check_inside(g, p, key);
  const int r = problem.hicks_half_width;
  const AboveSurface above = !problem.boundary.free_surface ? AboveSurface::dropped
                             : problem.equation == physics::Equation::elastic
                                 ? AboveSurface::renormalised
                                 : AboveSurface::odd;
  const auto z = padded_axis(p.z / g.dz - stagger.z, r, layout.layer[top], layout.nz, above);
  const auto x =
      padded_axis(p.x / g.dx - stagger.x, r, layout.layer[left], layout.nx, AboveSurface::dropped);
  const auto y = g.is_3d() ? padded_axis(p.y / g.dy - stagger.y, r, layout.layer[front], layout.ny,
                                         AboveSurface::dropped)
                           : std::vector<AxisTap>{AxisTap{0, 1.0}};
  std::vector<Tap> taps;
  taps.reserve(z.size() * y.size() * x.size());
  for (const AxisTap& tz : z)
    for (const AxisTap& ty : y)
      for (const AxisTap& tx : x)
        taps.push_back(Tap{tz.index, ty.index, tx.index, tz.weight * ty.weight * tx.weight});
  return taps;
}

template <class T>
ShotTaps<T>::ShotTaps(const ForwardProblem& problem, const PaddedLayout& layout, int capacity,
                      const Position& source_stagger,
                      const std::array<Position, component_count>& component_stagger)
    : nx_(layout.nx) {
  const int nshots = int(problem.shots.size());
  const bool shared = same_receiver_counts(problem.shots);
  std::size_t ks = 1, kr = 1;
  source_.resize(std::size_t(nshots));
  receiver_.resize(std::size_t(nshots));
  component_.resize(std::size_t(nshots));
  for (int s = 0; s < nshots; ++s) {
    const ShotGeometry& shot = problem.shots[std::size_t(s)];
    auto& src = source_[std::size_t(s)];
    src = point_taps(problem, layout, shot.source, "acquisition.sources[" + std::to_string(s) + "]",
                     source_stagger);
    ks = std::max(ks, src.size());
    const std::string key = "acquisition.receivers" + (shared ? "" : "[" + std::to_string(s) + "]");
    for (std::size_t r = 0; r < shot.receivers.size(); ++r) {
      const int f = int(shot.component(r));
      component_[std::size_t(s)].push_back(f);
      receiver_[std::size_t(s)].push_back(point_taps(problem, layout, shot.receivers[r],
                                                     key + "[" + std::to_string(r) + "]",
                                                     component_stagger[std::size_t(f)]));
      kr = std::max(kr, receiver_[std::size_t(s)].back().size());
    }
  }
  // The widest shot's distinct receiver cells and nonzero receiver taps size the by-cell table.
  int cells = 0, contributions = 0;
  for (std::size_t s = 0; s < receiver_.size(); ++s) {
    const auto c = by_cell<T>(receiver_[s], component_[s], nx_);
    cells = std::max(cells, distinct_cells(c));
    contributions = std::max(contributions, int(c.size()));
  }
  const int nrec = int(max_receivers(problem.shots));
  sources_.cell = decltype(sources_.cell)("pwave::source_taps", capacity, 1, ks);
  sources_.weight = decltype(sources_.weight)("pwave::source_weights", capacity, 1, ks);
  receivers_.cell = decltype(receivers_.cell)("pwave::receiver_taps", capacity, nrec, kr);
  receivers_.weight = decltype(receivers_.weight)("pwave::receiver_weights", capacity, nrec, kr);
  auto& rc = receiver_cells_;
  rc.cell = decltype(rc.cell)("pwave::receiver_cells", capacity, cells);
  rc.start = decltype(rc.start)("pwave::receiver_cell_starts", capacity, cells + 1);
  rc.point = decltype(rc.point)("pwave::receiver_cell_receivers", capacity, contributions);
  rc.weight = decltype(rc.weight)("pwave::receiver_cell_weights", capacity, contributions);
  rc.field = decltype(rc.field)("pwave::receiver_cell_fields", capacity, cells);
  components_ = decltype(components_)("pwave::receiver_components", capacity, nrec);
}

namespace {
/// Slot k, point i of `table` <- `taps`; unused taps get weight 0 on the point's first cell (on
/// cell 0 for a point that has none: a row past a shot's last receiver).
template <class Cells, class Weights>
void fill(const Cells& cell, const Weights& weight, int k, int i, const std::vector<Tap>& taps,
          int nx) {
  static const Tap none{0, 0, 0, 0.0};
  for (std::size_t t = 0; t < cell.extent(2); ++t) {
    const Tap& tap = t < taps.size() ? taps[t] : taps.empty() ? none : taps[0];
    cell(k, i, t, 0) = tap.iz;
    cell(k, i, t, 1) = tap.iy * nx + tap.ix;
    using W = typename Weights::value_type;
    weight(k, i, t) = t < taps.size() ? W(tap.weight) : W(0);
  }
}
}  // namespace

template <class T>
void ShotTaps<T>::load(const std::vector<int>& shots) {
  auto sc = Kokkos::create_mirror_view(sources_.cell);
  auto sw = Kokkos::create_mirror_view(sources_.weight);
  auto rc = Kokkos::create_mirror_view(receivers_.cell);
  auto rw = Kokkos::create_mirror_view(receivers_.weight);
  auto cc = Kokkos::create_mirror_view(receiver_cells_.cell);
  auto cs = Kokkos::create_mirror_view(receiver_cells_.start);
  auto cp = Kokkos::create_mirror_view(receiver_cells_.point);
  auto cw = Kokkos::create_mirror_view(receiver_cells_.weight);
  auto cf = Kokkos::create_mirror_view(receiver_cells_.field);
  auto rf = Kokkos::create_mirror_view(components_);
  for (std::size_t k = 0; k < shots.size(); ++k) {
    const std::size_t s = std::size_t(shots[k]);
    fill(sc, sw, int(k), 0, source_[s], nx_);
    const auto& receivers = receiver_[s];
    static const std::vector<Tap> padding;
    for (std::size_t r = 0; r < rc.extent(1); ++r) {
      fill(rc, rw, int(k), int(r), r < receivers.size() ? receivers[r] : padding, nx_);
      rf(k, r) = r < receivers.size() ? component_[s][r] : 0;
    }
    // By cell: a cell starts where the sorted contributions move to a new cell; the cells past
    // the shot's last are empty.
    const auto contributions = by_cell<T>(receivers, component_[s], nx_);
    const int n = int(contributions.size());
    int c = -1;
    for (int i = 0; i < n; ++i) {
      const Contribution& t = contributions[std::size_t(i)];
      if (i == 0 || new_cell(t, contributions[std::size_t(i - 1)])) {
        ++c;
        cc(k, c, 0) = t.iz, cc(k, c, 1) = t.q, cf(k, c) = t.f, cs(k, c) = i;
      }
      cp(k, i) = t.r;
      cw(k, i) = T(t.weight);
    }
    for (int e = c + 1; e < int(cs.extent(1)); ++e) cs(k, e) = n;
  }
  Kokkos::deep_copy(sources_.cell, sc);
  Kokkos::deep_copy(sources_.weight, sw);
  Kokkos::deep_copy(receivers_.cell, rc);
  Kokkos::deep_copy(receivers_.weight, rw);
  Kokkos::deep_copy(receiver_cells_.cell, cc);
  Kokkos::deep_copy(receiver_cells_.start, cs);
  Kokkos::deep_copy(receiver_cells_.point, cp);
  Kokkos::deep_copy(receiver_cells_.weight, cw);
  Kokkos::deep_copy(receiver_cells_.field, cf);
  Kokkos::deep_copy(components_, rf);
}

template class ShotTaps<float>;
template class ShotTaps<double>;

}  // namespace pwave::propagation
