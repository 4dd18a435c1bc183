#include "pwave/misfit/selection.hpp"

#include <cmath>

#include "pwave/core/error.hpp"

namespace pwave::misfit {
namespace {

/// x(k, r, n) *= c(k, r) T(n; a, b, ramp) for slots k < count.
template <class T>
struct ApplyWeights {
  Traces<T> x;
  Kokkos::View<const double** [3], MemSpace> table;
  double ramp;
  KOKKOS_INLINE_FUNCTION void operator()(const int k, const int r) const {
    const double c = table(k, r, 0), a = table(k, r, 1), b = table(k, r, 2);
    const int nt = int(x.extent(2));
    for (int n = 0; n < nt; ++n) x(k, r, n) *= T(c * selection_window(n, a, b, ramp));
  }
};

}  // namespace

template <class T>
TraceSelection<T>::TraceSelection(const Selection& selection,
                                  const std::vector<ShotGeometry>& shots, double dt, int capacity,
                                  int receivers)
    : selection_(selection),
      dt_(dt),
      table_("pwave::trace_selection", std::size_t(std::max(capacity, 0)),
             std::size_t(std::max(receivers, 0))),
      host_(Kokkos::create_mirror_view(table_)) {
  const std::size_t width = std::size_t(std::max(receivers, 0));
  offsets_.reserve(shots.size() * width);
  counts_.reserve(shots.size());
  for (const ShotGeometry& g : shots) {
    counts_.push_back(int(std::min(g.receivers.size(), width)));
    for (std::size_t r = 0; r < width; ++r) {
      const Position& p = r < g.receivers.size() ? g.receivers[r] : g.source;
      offsets_.push_back(std::hypot(p.x - g.source.x, p.y - g.source.y));
    }
  }
}

template <class T>
int TraceSelection<T>::stage(int k, int shot, T* rows, int nt) {
  int dead = 0;
  const int nrec = int(table_.extent(1));
  const Selection& s = selection_;
  for (int r = 0; r < nrec; ++r) {
    T* row = rows + std::size_t(r) * nt;
    bool zero = true, finite = true;
    for (int n = 0; n < nt; ++n) {
      zero = zero && row[n] == T(0);
      finite = finite && std::isfinite(double(row[n]));
    }
    if (!finite) {
      for (int n = 0; n < nt; ++n) row[n] = T(0);
    }
    const double offset = offsets_.at(std::size_t(shot) * nrec + r);
    double c = 1.0;
    if (r >= counts_.at(std::size_t(shot))) {
      c = 0.0;  // padding past the shot's last receiver: not a trace
    } else if (!finite || (zero && s.exclude_dead_traces)) {
      c = 0.0, ++dead;
    }
    if (offset < s.offset_min * (1 - 1e-12) || offset > s.offset_max * (1 + 1e-12)) c = 0.0;
    if (!s.trace_weights.empty()) c *= s.trace_weights.at(std::size_t(shot) * nrec + r);
    double a = -1e300, b = 1e300;
    if (s.windowed()) {
      const double pick = s.picks.empty() ? 0.0 : s.picks.at(std::size_t(shot) * nrec + r);
      if (pick < 0.0) c = 0.0;  // no pick
      const double first = s.picks.empty() ? s.t0 + offset / s.velocity : pick;
      a = (first - s.before) / dt_;
      b = (first + s.after) / dt_;
    }
    host_(k, r, 0) = c;
    host_(k, r, 1) = a;
    host_(k, r, 2) = b;
    if (c != 1.0 || s.windowed()) {
      const double ramp = s.taper / dt_;
      for (int n = 0; n < nt; ++n) row[n] *= T(c * selection_window(n, a, b, ramp));
    }
  }
  return dead;
}

template <class T>
void TraceSelection<T>::upload(int count) {
  identity_ = !selection_.windowed();
  for (int k = 0; k < count && identity_; ++k)
    for (std::size_t r = 0; r < host_.extent(1); ++r)
      identity_ = identity_ && host_(k, r, 0) == 1.0;
  if (count > 0) {
    const auto rows = std::make_pair(0, count);
    Kokkos::deep_copy(Kokkos::subview(table_, rows, Kokkos::ALL, Kokkos::ALL),
                      Kokkos::subview(host_, rows, Kokkos::ALL, Kokkos::ALL));
  }
}

template <class T>
void TraceSelection<T>::apply(const Traces<T>& x, int count) const {
  if (identity_ || count == 0) return;
  Kokkos::parallel_for(
      "pwave::misfit::select",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {count, int(table_.extent(1))}),
      ApplyWeights<T>{x, table_, selection_.taper / dt_});
}

template class TraceSelection<float>;
template class TraceSelection<double>;

}  // namespace pwave::misfit
