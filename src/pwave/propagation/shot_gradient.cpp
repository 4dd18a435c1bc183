#include "pwave/propagation/shot_gradient.hpp"

#include <algorithm>
#include <chrono>

#include "pwave/core/error.hpp"
#include "pwave/propagation/gradient.hpp"

namespace pwave {

template <class T>
ObservedStaging<T>::ObservedStaging(const ObservedTraces& observed, int capacity,
                                    const ForwardProblem& problem,
                                    const misfit::Selection& selection)
    : observed_(&observed),
      selection_(selection, problem.shots, problem.dt, std::max(capacity, 0),
                 int(observed.receivers())),
      dead_(observed.shots(), 0),
      device_("pwave::observed_batch", std::size_t(std::max(capacity, 0)), observed.receivers(),
              observed.samples()),
      host_(Kokkos::create_mirror_view(device_)) {}

template <class T>
void ObservedStaging<T>::load(const int* shots, int count, const TraceFilter& filter) {
  if (count < 0 || count > capacity()) {
    throw RuntimeError("observed data: " + std::to_string(count) +
                       " shots do not fit a staging buffer of " + std::to_string(capacity()));
  }
  const std::size_t nrec = device_.extent(1), nt = device_.extent(2);
  for (int k = 0; k < count; ++k) {
    T* row = host_.data() + std::size_t(k) * nrec * nt;
    observed_->read_shot(std::size_t(shots[k]), row);
    if (filter) {
      for (std::size_t r = 0; r < nrec; ++r) filter(row + r * nt, nt);
    }
    dead_.at(std::size_t(shots[k])) = selection_.stage(k, shots[k], row, int(nt));
  }
  selection_.upload(count);
  if (count == 0) return;
  const auto rows = std::make_pair(0, count);
  Kokkos::deep_copy(Kokkos::subview(device_, rows, Kokkos::ALL, Kokkos::ALL),
                    Kokkos::subview(host_, rows, Kokkos::ALL, Kokkos::ALL));
}

namespace {

/// acc = (start_from_zero ? 0 : acc) + rows[0] + rows[1] + ... + rows[count - 1], left to right
/// in T: the arithmetic of OrderedSum on one rank, spread over calls, so that chunk after chunk
/// gives the bits of one sum over all rows.
template <class T>
struct AccumulateRows {
  GridView<T> acc;
  Field<T> rows;
  int count;
  bool start_from_zero;
  KOKKOS_INLINE_FUNCTION void operator()(const int iz, const int ix) const {
    T s = start_from_zero ? T(0) : acc(iz, ix);
    for (int k = 0; k < count; ++k) s += rows(k, iz, ix);
    acc(iz, ix) = s;
  }
};

template <class T>
void accumulate_rows(const GridView<T>& acc, const Field<T>& rows, int count,
                     bool start_from_zero) {
  Kokkos::parallel_for("pwave::propagation::accumulate_imaging",
                       Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
                           {0, 0}, {int(acc.extent(0)), int(acc.extent(1))}),
                       AccumulateRows<T>{acc, rows, count, start_from_zero});
}

}  // namespace

template <class T>
ShotGradient<T>::ShotGradient(Propagator<T>& prop, const ObservedTraces& observed, int share,
                              const StorageOptions& storage, parallel::AllreducePath path,
                              const parallel::Communicator& comm, const misfit::Options& misfit)
    : prop_(prop),
      comm_(comm),
      share_(share),
      chunk_(std::min(prop.batch_capacity(), std::max(share, 1))),
      nt_(int(observed.samples())),
      kind_(misfit.function),
      staging_(observed, chunk_, prop.problem(), misfit.selection),
      history_(prop.make_history(chunk_, storage)),
      syn_("pwave::syn", chunk_, prop.max_receivers(), nt_),
      res_("pwave::res", chunk_, prop.max_receivers(), nt_),
      imaging_("pwave::imaging", prop.imaging_rows(), prop.padded_plane()),
      no_rows_("pwave::no_rows", 0, prop.imaging_rows(), prop.padded_plane()),
      imaging_sum_(imaging_.size(), path) {
  if (kind_ == misfit::Misfit::envelope) misfit_scratch_.reserve(prop.max_receivers(), nt_);
}

template <class T>
std::vector<int> ShotGradient<T>::stage_chunk(const std::vector<int>& shots, int first, int count,
                                              int chunks, const Hooks& hooks) {
  std::vector<int> part(shots.begin() + first, shots.begin() + first + count);
  // One chunk that the device rows already hold is not staged again.
  if (chunks > 1 || part != staged_) {
    staging_.load(part.data(), count, hooks.filter);
    staged_ = chunks == 1 ? part : std::vector<int>();
  }
  return part;
}

template <class T>
double ShotGradient<T>::evaluate(const std::vector<int>& shots, const std::vector<long>& keys,
                                 const Hooks& hooks) {
  const int count = int(shots.size());
  if (count > share_ || keys.size() != shots.size()) {
    throw RuntimeError("ShotGradient: " + std::to_string(count) + " shots with " +
                       std::to_string(keys.size()) + " keys for a share of " +
                       std::to_string(share_));
  }
  const int nchunks = (count + chunk_ - 1) / chunk_;
  // One rank with its keys in order can add each chunk's imaging to the sum as it goes;
  // otherwise every row waits for the cross-rank sum.
  const bool streaming =
      nchunks > 1 && comm_.size() == 1 && std::is_sorted(keys.begin(), keys.end());
  if (nchunks > 1 && !streaming && rows_.extent(0) < std::size_t(count)) {
    rows_ =
        Field<T>("pwave::shot_imaging_rows", share_, prop_.imaging_rows(), prop_.padded_plane());
  }
  std::vector<double> misfits;
  misfits.reserve(shots.size());
  const long steps_total = 2L * nt_ * nchunks;
  long steps = 0;
  for (int c0 = 0; c0 < count; c0 += chunk_) {
    const int n = std::min(chunk_, count - c0);
    const std::vector<int> part = stage_chunk(shots, c0, n, nchunks, hooks);
    prop_.forward(part, syn_, hooks.progress, steps, steps_total, history_);
    steps += nt_;
    if (hooks.synthetic) hooks.synthetic(syn_, c0, n);
    staging_.selection().apply(syn_, n);  // J(W d, W o); W o was weighted when staged
    for (double j : misfit::misfits_and_adjoint_sources(kind_, syn_, staging_.device(), res_, n,
                                                        misfit_scratch_)) {
      misfits.push_back(j);
    }
    staging_.selection().apply(res_, n);  // dJ/dd = W (dJ/dd)(W d, W o)
    prop_.adjoint_per_shot(part, res_, history_);
    steps += nt_;
    if (hooks.progress) hooks.progress(steps, steps_total);
    const auto chunk_rows = std::make_pair(0, n);
    if (streaming) {
      accumulate_rows(imaging_, prop_.shot_imaging(), n, c0 == 0);
    } else if (nchunks > 1) {
      Kokkos::deep_copy(
          Kokkos::subview(rows_, std::make_pair(c0, c0 + n), Kokkos::ALL, Kokkos::ALL),
          Kokkos::subview(prop_.shot_imaging(), chunk_rows, Kokkos::ALL, Kokkos::ALL));
    }
  }
  const auto r0 = std::chrono::steady_clock::now();
  const double j = parallel::ordered_sum(comm_, keys, misfits);
  std::vector<double> dead(shots.size());
  for (std::size_t k = 0; k < shots.size(); ++k) dead[k] = staging_.dead_traces(shots[k]);
  dead_traces_ = long(parallel::ordered_sum(comm_, keys, dead));
  if (!streaming) {
    const Field<T>& rows = count == 0 ? no_rows_ : nchunks > 1 ? rows_ : prop_.shot_imaging();
    imaging_sum_.sum(comm_, keys, rows, imaging_);
  }
  fence_all();
  reduce_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count();
  return j;
}

template <class T>
void ShotGradient<T>::model(const std::vector<int>& shots, const Hooks& hooks,
                            const ChunkTraces& chunk) {
  const int count = int(shots.size());
  const int nchunks = (count + chunk_ - 1) / chunk_;
  for (int c0 = 0; c0 < count; c0 += chunk_) {
    const int n = std::min(chunk_, count - c0);
    const std::vector<int> part = stage_chunk(shots, c0, n, nchunks, hooks);
    prop_.forward(part, syn_);
    staging_.selection().apply(syn_, n);
    fence_all();
    chunk(syn_, staging_.device(), c0, n);
  }
}

template class ObservedStaging<float>;
template class ObservedStaging<double>;
template class ShotGradient<float>;
template class ShotGradient<double>;

}  // namespace pwave
