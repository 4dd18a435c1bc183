#pragma once
// Sums whose bits do not depend on the number of ranks. Each rank holds some rows (per-shot
// contributions, e.g. per-shot gradients), each tagged with a global key (e.g. the shot's
// position in the minibatch, ShotPlan::positions()); the result is, element by element,
//     result = (((0 + row_k0) + row_k1) + ... ) with k0 < k1 < ... over the keys of all ranks,
// which is exactly what one rank computes with `T sum = 0; for (s...) sum += row_s;`. So 1, 2
// or 3 ranks give bitwise the same result as long as each row's values do not depend on which
// rank computed them.
//
// Two methods, chosen per call:
//  - chain (when every rank's keys precede the next rank's, as with a ShotPlan): the ranks with
//    rows form a pipeline in rank order; each receives the running sum from the previous one,
//    adds its rows in key order and passes it on, in chunks so that the ranks work concurrently;
//    the last rank broadcasts the result. Per rank about n values received + n sent + the
//    broadcast (as much as a ring allreduce moves), no extra device memory, but a latency of
//    (ranks - 1) hops + the broadcast.
//  - gather (any key distribution): MPI_Allgatherv of every row to every rank, then each rank
//    sums all rows in key order. Each rank receives (rows elsewhere) * n values; memory for
//    all rows of the batch on every rank.
// Measured costs: src/pwave/parallel/README.md.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "pwave/core/types.hpp"
#include "pwave/parallel/allreduce.hpp"
#include "pwave/parallel/communicator.hpp"

namespace pwave::parallel {

enum class OrderedSumMethod { automatic, chain, gather };

/// What the last OrderedSum::sum() call did (this rank's share), for measurements and logs.
struct OrderedSumStats {
  OrderedSumMethod method = OrderedSumMethod::automatic;
  std::size_t bytes_sent = 0;      ///< payload bytes this rank sent
  std::size_t bytes_received = 0;  ///< payload bytes this rank received
  int total_rows = 0;              ///< rows summed over all ranks
};

/// Workspace and driver of the reproducible sum of rows of length n (float or double). Keep
/// one per reduced quantity: its buffers are allocated once and reused.
template <class T>
class OrderedSum {
 public:
  /// `path`: device buffers straight to MPI, or staged through host memory (choose_allreduce_path).
  /// `method`: automatic picks chain when the keys allow it, else gather; chain falls back to
  /// gather when they do not. `chunk`: values per pipeline message of the chain (0: about n/16,
  /// between 32 Ki and 4 Mi).
  OrderedSum(std::size_t n, AllreducePath path,
             OrderedSumMethod method = OrderedSumMethod::automatic, std::size_t chunk = 0);

  /// Collective. rows: any contiguous LayoutRight View in pwave::MemSpace whose first extent
  /// indexes rows (at least keys.size() of them; the first keys.size() are used) and whose other
  /// extents multiply to n, e.g. [shot][nz][nx]. keys[k] is row k's global key; keys are
  /// distinct over all ranks (else std::invalid_argument on every rank). result: contiguous
  /// View in pwave::MemSpace of n values, overwritten with the ordered sum on every rank (all
  /// zeros when no rank has a row). Fences before MPI; the result is ready when it returns.
  template <class RowsView, class ResultView>
  void sum(const Communicator& comm, const std::vector<long>& keys, const RowsView& rows,
           const ResultView& result) {
    check_views(rows, result, keys.size());
    sum_raw(comm, keys, rows.data(), result.data());
  }

  /// The same on raw device pointers (rows: keys.size() rows of n contiguous values).
  void sum_raw(const Communicator& comm, const std::vector<long>& keys, const T* rows, T* result);

  std::size_t size() const { return n_; }
  const OrderedSumStats& last() const { return stats_; }

 private:
  template <class RowsView, class ResultView>
  void check_views(const RowsView& rows, const ResultView& result, std::size_t nkeys) const {
    static_assert(std::is_same<typename RowsView::memory_space, MemSpace>::value &&
                      std::is_same<typename ResultView::memory_space, MemSpace>::value,
                  "pwave::parallel::OrderedSum: Views in pwave::MemSpace");
    static_assert(std::is_same<typename RowsView::array_layout, Kokkos::LayoutRight>::value ||
                      RowsView::rank == 1,
                  "pwave::parallel::OrderedSum: rows must be LayoutRight");
    std::size_t per_row = 1;
    for (unsigned d = 1; d < RowsView::rank; ++d) per_row *= rows.extent(d);
    if (!rows.span_is_contiguous() || !result.span_is_contiguous() || per_row != n_ ||
        result.size() != n_ || rows.extent(0) < nkeys) {
      throw std::invalid_argument(
          "pwave::parallel::OrderedSum: rows must be [>= " + std::to_string(nkeys) + "][" +
          std::to_string(n_) + "] and the result [" + std::to_string(n_) + "], both contiguous");
    }
  }
  void sum_chain(const Communicator& comm, const std::vector<int>& counts,
                 const std::vector<int>& local_order, const T* rows, T* result);
  void sum_gather(const Communicator& comm, const std::vector<long>& all_keys,
                  const std::vector<int>& counts, const T* rows, T* result);

  std::size_t n_, chunk_;
  AllreducePath path_;
  OrderedSumMethod method_;
  OrderedSumStats stats_;
  Kokkos::View<int*, MemSpace> order_;   // row order of the device sum
  Kokkos::View<T*, MemSpace> gathered_;  // gather: all rows [total][n]
  StagingBuffer<T> staging_;             // host side of the staged path
};

/// Reproducible sum of per-row host scalars (e.g. per-shot misfits): the values of all ranks
/// added from 0.0 in increasing key order, identical on every rank. Collective.
double ordered_sum(const Communicator& comm, const std::vector<long>& keys,
                   const std::vector<double>& values);

/// The same for host rows of `length` values per key (e.g. per-shot spectra): rows[k * length
/// .. (k + 1) * length) is key k's row (values past keys.size() rows are ignored). Returns the
/// element-wise sum of the rows of all ranks, added from 0.0 in increasing key order,
/// identical on every rank. Collective.
std::vector<double> ordered_sum(const Communicator& comm, const std::vector<long>& keys,
                                const std::vector<double>& rows, std::size_t length);

}  // namespace pwave::parallel
