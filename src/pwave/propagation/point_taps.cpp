#include "pwave/propagation/point_taps.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "pwave/acquisition/hicks.hpp"
#include "pwave/core/error.hpp"

namespace pwave::propagation {
namespace {

/// The Hicks taps of one axis on the padded grid: model index + `offset`, mirrored about
/// padded index 0 with a sign change when `mirror` (free surface), dropped outside [0, n).
std::vector<AxisTap> padded_axis(double f, int half_width, int offset, int n, bool mirror) {
  std::map<int, double> merged;
  for (const AxisTap& t : hicks_axis(f, half_width)) {
    int i = t.index + offset;
    double w = t.weight;
    if (mirror && i < 0) i = -i, w = -w;
    if (i >= 0 && i < n) merged[i] += w;
  }
  std::vector<AxisTap> out;
  for (const auto& [i, w] : merged) {
    if (w != 0.0) out.push_back(AxisTap{i, w});
  }
  return out;
}

}  // namespace

std::vector<Tap> point_taps(const ForwardProblem& problem, const PaddedLayout& layout,
                            const Position& p, const std::string& key) {
  const Grid& g = problem.model.grid;
  check_inside(g, p, key);
  const int r = problem.hicks_half_width;
  const auto z =
      padded_axis(p.z / g.dz, r, layout.layer[top], layout.nz, problem.boundary.free_surface);
  const auto x = padded_axis(p.x / g.dx, r, layout.layer[left], layout.nx, false);
  const auto y = g.is_3d() ? padded_axis(p.y / g.dy, r, layout.layer[front], layout.ny, false)
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
ShotTaps<T>::ShotTaps(const ForwardProblem& problem, const PaddedLayout& layout, int capacity)
    : nx_(layout.nx) {
  const int nshots = int(problem.shots.size());
  const bool shared = same_receiver_counts(problem.shots);
  std::size_t ks = 1, kr = 1;
  source_.resize(std::size_t(nshots));
  receiver_.resize(std::size_t(nshots));
  for (int s = 0; s < nshots; ++s) {
    const ShotGeometry& shot = problem.shots[std::size_t(s)];
    auto& src = source_[std::size_t(s)];
    src =
        point_taps(problem, layout, shot.source, "acquisition.sources[" + std::to_string(s) + "]");
    ks = std::max(ks, src.size());
    const std::string key = "acquisition.receivers" + (shared ? "" : "[" + std::to_string(s) + "]");
    for (std::size_t r = 0; r < shot.receivers.size(); ++r) {
      receiver_[std::size_t(s)].push_back(
          point_taps(problem, layout, shot.receivers[r], key + "[" + std::to_string(r) + "]"));
      kr = std::max(kr, receiver_[std::size_t(s)].back().size());
    }
  }
  const int nrec = int(max_receivers(problem.shots));
  sources_.cell = decltype(sources_.cell)("pwave::source_taps", capacity, 1, ks);
  sources_.weight = decltype(sources_.weight)("pwave::source_weights", capacity, 1, ks);
  receivers_.cell = decltype(receivers_.cell)("pwave::receiver_taps", capacity, nrec, kr);
  receivers_.weight = decltype(receivers_.weight)("pwave::receiver_weights", capacity, nrec, kr);
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
  for (std::size_t k = 0; k < shots.size(); ++k) {
    const std::size_t s = std::size_t(shots[k]);
    fill(sc, sw, int(k), 0, source_[s], nx_);
    const auto& receivers = receiver_[s];
    static const std::vector<Tap> padding;
    for (std::size_t r = 0; r < rc.extent(1); ++r) {
      fill(rc, rw, int(k), int(r), r < receivers.size() ? receivers[r] : padding, nx_);
    }
  }
  Kokkos::deep_copy(sources_.cell, sc);
  Kokkos::deep_copy(sources_.weight, sw);
  Kokkos::deep_copy(receivers_.cell, rc);
  Kokkos::deep_copy(receivers_.weight, rw);
}

template class ShotTaps<float>;
template class ShotTaps<double>;

}  // namespace pwave::propagation
