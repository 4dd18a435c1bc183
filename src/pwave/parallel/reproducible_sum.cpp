#include "pwave/parallel/reproducible_sum.hpp"

#include <algorithm>
#include <numeric>

#ifdef PWAVE_HAVE_MPI
#include "pwave/parallel/mpi_native.hpp"
#endif

namespace pwave::parallel {

namespace {

template <class T>
using DeviceU = Kokkos::View<T*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
using HostU = Kokkos::View<T*, HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// acc(i) = (start_from_zero ? 0 : acc(i)) + rows[order[0]][offset + i] + rows[order[1]][...]
/// + ..., added left to right: the serial order of `T sum = 0; for (s) sum += row_s`.
template <class T>
struct OrderedAccumulate {
  DeviceU<T> acc;
  DeviceU<const T> rows;
  Kokkos::View<const int*, MemSpace> order;
  int nrows;
  long n, offset;
  bool start_from_zero;
  KOKKOS_INLINE_FUNCTION void operator()(const long i) const {
    T s = start_from_zero ? T(0) : acc(i);
    for (int k = 0; k < nrows; ++k) s += rows(long(order(k)) * n + offset + i);
    acc(i) = s;
  }
};

template <class T>
void accumulate(T* acc, const T* rows, const Kokkos::View<int*, MemSpace>& order, int nrows,
                std::size_t n, std::size_t offset, std::size_t len, bool start_from_zero,
                std::size_t total_rows) {
  OrderedAccumulate<T> f{DeviceU<T>(acc, len),
                         DeviceU<const T>(rows, std::max<std::size_t>(total_rows * n, 1)),
                         order,
                         nrows,
                         long(n),
                         long(offset),
                         start_from_zero};
  Kokkos::parallel_for("pwave::parallel::ordered_sum",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long>>(0, long(len)), f);
}

/// Copies `order` to the device View `dst`, growing it when needed.
void upload_order(const std::vector<int>& order, Kokkos::View<int*, MemSpace>& dst) {
  if (dst.extent(0) < order.size()) {
    dst = Kokkos::View<int*, MemSpace>("pwave::parallel::ordered_sum_order", order.size());
  }
  if (order.empty()) return;
  auto h = Kokkos::create_mirror_view(dst);
  std::copy(order.begin(), order.end(), h.data());
  Kokkos::deep_copy(dst, h);
}

/// Indices 0..keys.size()-1 sorted by key.
std::vector<int> sorted_by_key(const std::vector<long>& keys) {
  std::vector<int> idx(keys.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](int a, int b) { return keys[a] < keys[b]; });
  return idx;
}

#ifdef PWAVE_HAVE_MPI
constexpr int kTag = 7301;
#endif

}  // namespace

template <class T>
OrderedSum<T>::OrderedSum(std::size_t n, AllreducePath path, OrderedSumMethod method,
                          std::size_t chunk)
    : n_(n), chunk_(chunk), path_(path), method_(method) {
  // Automatic: about 16 pipeline stages, each message between 32 Ki and 4 Mi values.
  if (chunk_ == 0) {
    chunk_ = std::clamp<std::size_t>((n + 15) / 16, std::size_t(1) << 15, std::size_t(1) << 22);
  }
  chunk_ = std::min<std::size_t>(chunk_, std::size_t(1) << 30);  // MPI counts are int
}

template <class T>
void OrderedSum<T>::sum_raw(const Communicator& comm, const std::vector<long>& keys, const T* rows,
                            T* result) {
  const int size = comm.size();
  const std::vector<long> counts_l = comm.allgather(long(keys.size()));
  const std::vector<long> all_keys = comm.allgatherv(keys);
  std::vector<int> counts(counts_l.begin(), counts_l.end());
  std::vector<int> owner;  // rank of each row of all_keys (rank order)
  for (int r = 0; r < size; ++r) owner.insert(owner.end(), std::size_t(counts[r]), r);

  const std::vector<int> global_order = sorted_by_key(all_keys);
  for (std::size_t k = 1; k < global_order.size(); ++k) {
    if (all_keys[global_order[k]] == all_keys[global_order[k - 1]]) {
      throw std::invalid_argument("pwave::parallel::OrderedSum: key " +
                                  std::to_string(all_keys[global_order[k]]) + " appears twice");
    }
  }
  // Chain works when the rows sorted by key come rank after rank.
  bool chainable = true;
  for (std::size_t k = 1; k < global_order.size(); ++k) {
    if (owner[global_order[k]] < owner[global_order[k - 1]]) chainable = false;
  }
  OrderedSumMethod m = method_ == OrderedSumMethod::gather || !chainable ? OrderedSumMethod::gather
                                                                         : OrderedSumMethod::chain;
  if (size == 1 || !comm.uses_mpi()) m = OrderedSumMethod::chain;  // local only
  stats_ = OrderedSumStats{};
  stats_.method = m;
  stats_.total_rows = int(all_keys.size());
  if (m == OrderedSumMethod::chain) {
    sum_chain(comm, counts, sorted_by_key(keys), rows, result);
  } else {
    sum_gather(comm, all_keys, counts, rows, result);
  }
}

template <class T>
void OrderedSum<T>::sum_chain(const Communicator& comm, const std::vector<int>& counts,
                              const std::vector<int>& local_order, const T* rows, T* result) {
  const int me = comm.rank();
  std::vector<int> participants;
  for (int r = 0; r < comm.size(); ++r) {
    if (counts[r] > 0) participants.push_back(r);
  }
  if (participants.empty()) {
    Kokkos::deep_copy(DeviceU<T>(result, n_), T(0));
    return;
  }
  const auto pos = std::find(participants.begin(), participants.end(), me);
  const bool active = pos != participants.end();
  [[maybe_unused]] const int root = participants.back();
  [[maybe_unused]] const bool staged = path_ == AllreducePath::staged;
  const std::size_t elem = sizeof(T);

  if (active) {
    const int prev = pos == participants.begin() ? -1 : *(pos - 1);
    const int next = pos + 1 == participants.end() ? -1 : *(pos + 1);
    upload_order(local_order, order_);
#ifdef PWAVE_HAVE_MPI
    T* host = staged && (prev >= 0 || next >= 0) ? staging_.host(n_) : nullptr;
    const MPI_Comm c = comm.uses_mpi() ? native(comm) : MPI_COMM_SELF;
#else
    (void)next;
#endif
    for (std::size_t off = 0; off < n_; off += chunk_) {
      const std::size_t len = std::min(chunk_, n_ - off);
#ifdef PWAVE_HAVE_MPI
      if (prev >= 0) {
        if (staged) {
          MPI_Recv(host + off, int(len), mpi_type<T>(), prev, kTag, c, MPI_STATUS_IGNORE);
          Kokkos::deep_copy(DeviceU<T>(result + off, len), HostU<T>(host + off, len));
        } else {
          MPI_Recv(result + off, int(len), mpi_type<T>(), prev, kTag, c, MPI_STATUS_IGNORE);
        }
      }
#endif
      accumulate(result + off, rows, order_, int(local_order.size()), n_, off, len, prev < 0,
                 local_order.size());
#ifdef PWAVE_HAVE_MPI
      if (next >= 0) {
        // A blocking send: an MPI_Isend of a large message would only move (rendezvous) at
        // this rank's next MPI call, one chunk later, which serialises the pipeline.
        fence_all();
        if (staged) {
          Kokkos::deep_copy(HostU<T>(host + off, len), DeviceU<T>(result + off, len));
          MPI_Send(host + off, int(len), mpi_type<T>(), next, kTag, c);
        } else {
          MPI_Send(result + off, int(len), mpi_type<T>(), next, kTag, c);
        }
      }
#endif
    }
    if (prev >= 0) stats_.bytes_received += n_ * elem;
    if (next >= 0) stats_.bytes_sent += n_ * elem;
  }
  fence_all();
  if (comm.size() == 1 || !comm.uses_mpi()) return;
#ifdef PWAVE_HAVE_MPI
  // Everyone gets the last participant's result.
  const MPI_Comm c = native(comm);
  T* buf = result;
  if (staged) {
    buf = staging_.host(n_);
    if (me == root) Kokkos::deep_copy(HostU<T>(buf, n_), DeviceU<T>(result, n_));
  }
  for (std::size_t off = 0; off < n_; off += chunk_) {
    MPI_Bcast(buf + off, int(std::min(chunk_, n_ - off)), mpi_type<T>(), root, c);
  }
  if (staged && me != root) {
    Kokkos::deep_copy(DeviceU<T>(result, n_), HostU<T>(buf, n_));
  }
  if (me == root) {
    stats_.bytes_sent += n_ * elem;
  } else {
    stats_.bytes_received += n_ * elem;
  }
#endif
}

template <class T>
void OrderedSum<T>::sum_gather(const Communicator& comm, const std::vector<long>& all_keys,
                               const std::vector<int>& counts, const T* rows, T* result) {
#ifdef PWAVE_HAVE_MPI
  const int size = comm.size(), me = comm.rank();
  const std::size_t total = all_keys.size();
  std::vector<int> displs(std::size_t(size), 0);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  if (gathered_.extent(0) < total * n_) {
    gathered_ = Kokkos::View<T*, MemSpace>(
        Kokkos::view_alloc(std::string("pwave::parallel::ordered_sum_rows"),
                           Kokkos::WithoutInitializing),
        total * n_);
  }
  MPI_Datatype row;
  MPI_Type_contiguous(int(n_), mpi_type<T>(), &row);
  MPI_Type_commit(&row);
  const MPI_Comm c = native(comm);
  fence_all();
  if (path_ == AllreducePath::staged) {
    T* host = staging_.host(std::max<std::size_t>(total * n_, 1));
    const std::size_t mine = std::size_t(counts[me]) * n_;
    if (mine > 0) {
      Kokkos::deep_copy(HostU<T>(host + std::size_t(displs[me]) * n_, mine),
                        DeviceU<T>(const_cast<T*>(rows), mine));
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, host, counts.data(), displs.data(), row, c);
    if (total > 0) {
      Kokkos::deep_copy(DeviceU<T>(gathered_.data(), total * n_), HostU<T>(host, total * n_));
    }
  } else {
    MPI_Allgatherv(rows, counts[me], row, gathered_.data(), counts.data(), displs.data(), row, c);
  }
  MPI_Type_free(&row);
  upload_order(sorted_by_key(all_keys), order_);
  accumulate(result, gathered_.data(), order_, int(total), n_, 0, n_, true, total);
  fence_all();
  const std::size_t elem = sizeof(T);
  stats_.bytes_received = (total - std::size_t(counts[me])) * n_ * elem;
  stats_.bytes_sent = std::size_t(counts[me]) * n_ * elem * std::size_t(size - 1);
#else
  (void)comm, (void)all_keys, (void)counts, (void)rows, (void)result;
#endif
}

double ordered_sum(const Communicator& comm, const std::vector<long>& keys,
                   const std::vector<double>& values) {
  if (keys.size() != values.size()) {
    throw std::invalid_argument("pwave::parallel::ordered_sum: one key per value");
  }
  const std::vector<long> all_keys = comm.allgatherv(keys);
  const std::vector<double> all_values = comm.allgatherv(values);
  double s = 0.0;
  for (int i : sorted_by_key(all_keys)) s += all_values[std::size_t(i)];
  return s;
}

std::vector<double> ordered_sum(const Communicator& comm, const std::vector<long>& keys,
                                const std::vector<double>& rows, std::size_t length) {
  if (rows.size() < keys.size() * length) {
    throw std::invalid_argument("pwave::parallel::ordered_sum: " + std::to_string(keys.size()) +
                                " rows of " + std::to_string(length) + " values, but " +
                                std::to_string(rows.size()) + " values");
  }
  const std::vector<long> all_keys = comm.allgatherv(keys);
  const std::vector<double> all_rows = comm.allgatherv(
      std::vector<double>(rows.begin(), rows.begin() + std::ptrdiff_t(keys.size() * length)));
  std::vector<double> sum(length, 0.0);
  for (int i : sorted_by_key(all_keys)) {
    const double* row = all_rows.data() + std::size_t(i) * length;
    for (std::size_t j = 0; j < length; ++j) sum[j] += row[j];
  }
  return sum;
}

template class OrderedSum<float>;
template class OrderedSum<double>;

}  // namespace pwave::parallel
