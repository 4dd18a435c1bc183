#pragma once
// The memory roofline every pwave benchmark divides by: a STREAM copy of 2 x 32 Mi values (far
// beyond any cache) on the execution space the propagator runs on. Each benchmark times
// operator() with its own clock (best of 10) and divides bytes() by the time.

#include <Kokkos_Core.hpp>

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

}  // namespace pwave::bench
