#pragma once
// The memory roofline every pwave benchmark divides by: a STREAM copy of 2 x 32 Mi values (far
// beyond any cache) on the execution space the propagator runs on. Each benchmark times
// operator() with its own clock (best of 10) and divides bytes() by the time.

#include <Kokkos_Core.hpp>
#include <array>
#include <stdexcept>
#include <utility>

#include "pwave/core/types.hpp"

namespace pwave::bench {

template <class T>
struct StreamCopy {
  static constexpr long n = 1L << 25;
  static constexpr int runs = 10;
  Kokkos::View<T*, MemSpace> from{"pwave::bench::copy_from", n}, to{"pwave::bench::copy_to", n};

  StreamCopy() { Kokkos::deep_copy(from, T(1)); }
  /// Bytes one copy moves: read + write.
  static constexpr double bytes() { return 2.0 * sizeof(T) * n; }
  void operator()() const {
    const auto a = from;
    const auto b = to;
    Kokkos::parallel_for(
        "pwave::bench::stream_copy", Kokkos::RangePolicy<ExecSpace>(0, n),
        KOKKOS_LAMBDA(const long i) { b(i) = a(i); });
  }
};

/// Reads of k arrays at once summed into one more (k + 1 streams: the pattern of an update that
/// reads k fields and coefficients and writes one): how the bandwidth holds up with the number
/// of arrays a kernel streams together, beside the copy's two. 32 MiB per array, the arrays
/// one after the other in one allocation (as propagation::FieldBlock places the wavefields).
template <class T>
struct StreamReads {
  static constexpr long n = (32L << 20) / long(sizeof(T));
  static constexpr int runs = 5;
  /// The array counts measured, in increasing order (each has its pass read<k>()).
  static constexpr std::array counts{1, 2, 4, 6, 8, 10, 12, 16};
  static constexpr int most = counts.back();
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> arrays{"pwave::bench::stream_reads", most + 1,
                                                          n};

  StreamReads() { Kokkos::deep_copy(arrays, T(1)); }
  /// Bytes one pass over k arrays moves: k reads + one write.
  static constexpr double bytes(int k) { return (k + 1.0) * sizeof(T) * n; }
  /// read<counts[I]>() for the I with counts[I] == k; false when there is none.
  template <std::size_t... I>
  bool read_one_of(int k, std::index_sequence<I...>) const {
    return ((k == counts[I] && (read<counts[I]>(), true)) || ...);
  }
  /// The sum of the first K arrays written to the last.
  template <int K>
  void read() const {
    // Rows as unmanaged restrict views: the compiler may then vectorise the host loop (one
    // view's rows, or more than a few pointers, defeat its run-time overlap checks).
    using Row =
        Kokkos::View<T*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::Restrict>>;
    Kokkos::Array<Row, K> in;
    for (int k = 0; k < K; ++k) in[k] = Row(arrays.data() + k * arrays.stride(0), n);
    const Row out(arrays.data() + most * arrays.stride(0), n);
    Kokkos::parallel_for(
        "pwave::bench::stream_reads", Kokkos::RangePolicy<ExecSpace>(0, n),
        KOKKOS_LAMBDA(const long i) {
          T sum = in[0](i);
          for (int k = 1; k < K; ++k) sum += in[k](i);
          out(i) = sum;
        });
  }
  /// One pass over k arrays; k must be one of `counts`.
  void operator()(int k) const {
    if (!read_one_of(k, std::make_index_sequence<counts.size()>{}))
      throw std::invalid_argument("StreamReads: no pass over that many arrays");
  }
};

}  // namespace pwave::bench
