#include "pwave/propagation/batch_propagator.hpp"

#include <algorithm>
#include <sstream>
#include <string>

#include "backends/denormals.hpp"
#include "pwave/core/error.hpp"
#include "pwave/propagation/forward.hpp"
#include "pwave/propagation/padded_layout.hpp"

namespace pwave {

template <class T>
BatchPropagator<T>::BatchPropagator(const ForwardProblem& problem, int batch_capacity,
                                    const char* name, const Position& source_stagger,
                                    const std::array<Position, component_count>& component_stagger)
    : problem_(problem), name_(name) {
  validate(problem_);
  backend::flush_subnormals_to_zero();
  const int nshots = int(problem_.shots.size());
  capacity_ = batch_capacity > 0 ? std::min(batch_capacity, nshots) : nshots;
  nrec_ = int(pwave::max_receivers(problem_.shots));
  taps_ = propagation::ShotTaps<T>(problem_, propagation::PaddedLayout::of(problem_), capacity_,
                                   source_stagger, component_stagger);
  scaled_wavelet_ = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>("pwave::scaled_wavelet",
                                                                     capacity_, problem_.nt);
  scaled_wavelet_host_ = Kokkos::create_mirror_view(scaled_wavelet_);
  load_wavelets();
}

template <class T>
void BatchPropagator<T>::load_wavelets() {
  const double volume = problem_.model.grid.cell_volume();
  const bool own = per_shot_wavelets();
  // A shared wavelet fills every slot (then batch changes copy nothing); per shot, the slots
  // of the current batch (none before the first batch).
  const int slots = own ? int(batch_.size()) : capacity_;
  if (slots == 0) return;
  for (int k = 0; k < slots; ++k) {
    const std::vector<double>& w =
        own ? problem_.shot_wavelets[std::size_t(batch_[k])] : problem_.wavelet;
    for (int n = 0; n < problem_.nt; ++n)
      scaled_wavelet_host_(k, n) = T(w[std::size_t(n)] / volume);
  }
  Kokkos::deep_copy(scaled_wavelet_, scaled_wavelet_host_);
  wavelets_changed();
}

template <class T>
void BatchPropagator<T>::load_batch(const std::vector<int>& shots) {
  const int count = int(shots.size());
  if (count < 1 || count > capacity_) {
    throw RuntimeError(std::string(name_) + ": a batch of " + std::to_string(count) +
                       " shots does not fit the capacity of " + std::to_string(capacity_));
  }
  for (int id : shots) {
    if (id < 0 || id >= int(problem_.shots.size()))
      throw RuntimeError(std::string(name_) + ": no shot " + std::to_string(id));
  }
  if (shots == batch_) return;
  taps_.load(shots);
  batch_ = shots;
  if (per_shot_wavelets()) load_wavelets();
}

template <class T>
void BatchPropagator<T>::set_wavelet(const std::vector<double>& wavelet) {
  if (wavelet.size() != std::size_t(problem_.nt)) {
    throw RuntimeError(std::string(name_) + "::set_wavelet: expected " +
                       std::to_string(problem_.nt) + " samples, got " +
                       std::to_string(wavelet.size()));
  }
  problem_.wavelet = wavelet;
  problem_.shot_wavelets.clear();
  load_wavelets();
}

template <class T>
void BatchPropagator<T>::set_shot_wavelets(const std::vector<std::vector<double>>& wavelets) {
  if (wavelets.size() != problem_.shots.size()) {
    throw RuntimeError(std::string(name_) + "::set_shot_wavelets: expected " +
                       std::to_string(problem_.shots.size()) + " wavelets (one per shot), got " +
                       std::to_string(wavelets.size()));
  }
  for (std::size_t s = 0; s < wavelets.size(); ++s) {
    if (wavelets[s].size() != std::size_t(problem_.nt)) {
      throw RuntimeError(std::string(name_) + "::set_shot_wavelets: shot " + std::to_string(s) +
                         "'s wavelet has " + std::to_string(wavelets[s].size()) +
                         " samples; expected " + std::to_string(problem_.nt));
    }
  }
  problem_.shot_wavelets = wavelets;
  load_wavelets();
}

template <class T>
void BatchPropagator<T>::check_traces(const char* what, const Traces<T>& traces, int count) const {
  if (int(traces.extent(0)) < count || int(traces.extent(1)) != nrec_ ||
      int(traces.extent(2)) != problem_.nt) {
    throw RuntimeError(std::string(what) + " are " + std::to_string(traces.extent(0)) + " x " +
                       std::to_string(traces.extent(1)) + " x " + std::to_string(traces.extent(2)) +
                       "; this batch needs at least " + std::to_string(count) + " x " +
                       std::to_string(nrec_) + " x " + std::to_string(problem_.nt) +
                       " ([shot][receiver][time])");
  }
}

template <class T>
void BatchPropagator<T>::check_finite(const Field<T>& u, int count, int step) const {
  int bad = 0;
  const long rows = long(count) * u.extent(1);
  Kokkos::parallel_reduce("pwave::propagation::check_finite",
                          Kokkos::RangePolicy<ExecSpace>(0, rows),
                          physics::CountNonFinite<T>{u, int(u.extent(1)), int(u.extent(2))}, bad);
  if (bad > 0) {
    std::ostringstream msg;
    msg << "the wavefield blew up (" << bad << " NaN/Inf values) by time step " << step << " of "
        << problem_.nt << " (t = " << step * problem_.dt
        << " s); check the model velocities, time.dt and the source amplitude";
    throw RuntimeError(msg.str());
  }
}

template <class T>
GridView<T> BatchPropagator<T>::model_grid(physics::Parameter p) const {
  const Grid& g = problem_.model.grid;
  const std::vector<double>& v = problem_.model.values(p);
  GridView<T> d(std::string("pwave::") + physics::name(p), g.nz, g.ny * g.nx);
  auto h = host_mirror_uninit(d);
  for (int iz = 0; iz < g.nz; ++iz)
    for (int q = 0; q < g.ny * g.nx; ++q) h(iz, q) = T(v[std::size_t(iz) * g.ny * g.nx + q]);
  Kokkos::deep_copy(d, h);
  return d;
}

template class BatchPropagator<float>;
template class BatchPropagator<double>;

}  // namespace pwave
