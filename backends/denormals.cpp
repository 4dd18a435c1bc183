#include "backends/denormals.hpp"

#include <Kokkos_Core.hpp>
#include <cstdint>

#if defined(__SSE__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

namespace pwave::backend {
namespace {

void flush_on_this_thread() {
#if defined(__SSE__) || defined(_M_X64)
  constexpr unsigned ftz = 1u << 15, daz = 1u << 6;  // MXCSR bits
  _mm_setcsr(_mm_getcsr() | ftz | daz);
#elif defined(__aarch64__)
  std::uint64_t fpcr = 0;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
  fpcr |= std::uint64_t(1) << 24;  // FZ
  __asm__ __volatile__("msr fpcr, %0" : : "r"(fpcr));
#endif
}

}  // namespace

void flush_subnormals_to_zero() {
  flush_on_this_thread();
  // One item per thread of the host space: a static schedule gives each thread one.
  using Host = Kokkos::DefaultHostExecutionSpace;
  const Host host;
  Kokkos::parallel_for(
      "pwave::backend::flush_subnormals",
      Kokkos::RangePolicy<Host, Kokkos::Schedule<Kokkos::Static>>(host, 0, host.concurrency()),
      [](int) { flush_on_this_thread(); });
  host.fence();
}

}  // namespace pwave::backend
