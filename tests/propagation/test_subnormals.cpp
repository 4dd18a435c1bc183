// Building a propagator flushes subnormal floats to zero on the calling thread and on every host
// thread (backends/denormals.hpp): a product below float32's smallest normal number is 0 there.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include "backends/denormals.hpp"
#include "pwave/propagation/acoustic_propagator.hpp"
#include "support/problems.hpp"

#if defined(__SSE__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

namespace pwave {
namespace {

using Host = Kokkos::DefaultHostExecutionSpace;
using EachThread = Kokkos::RangePolicy<Host, Kokkos::Schedule<Kokkos::Static>>;

/// 1e-30 * 1e-10 in float32 (a subnormal, 1e-40) on this thread: 0 when flushed.
float subnormal_product() {
  volatile float a = 1e-30f, b = 1e-10f;
  return a * b;
}

/// How many of the host threads (and the calling thread, counted once more) compute a nonzero
/// subnormal product.
int threads_keeping_subnormals() {
  const Host host;
  Kokkos::View<int*, Kokkos::HostSpace> kept("kept", host.concurrency());
  Kokkos::parallel_for("keeps", EachThread(host, 0, host.concurrency()),
                       [=](int i) { kept(i) = subnormal_product() != 0.0f ? 1 : 0; });
  host.fence();
  int n = subnormal_product() != 0.0f ? 1 : 0;
  for (int i = 0; i < host.concurrency(); ++i) n += kept(i);
  return n;
}

TEST(Subnormals, APropagatorFlushesThemOnEveryHostThread) {
#if defined(__SSE__) || defined(_M_X64)
  // Undo what the test runner set, on every thread: subnormals computed again.
  const auto keep = [](int) { _mm_setcsr(_mm_getcsr() & ~((1u << 15) | (1u << 6))); };
  keep(0);
  const Host host;
  Kokkos::parallel_for("keep", EachThread(host, 0, host.concurrency()), keep);
  host.fence();
  ASSERT_EQ(threads_keeping_subnormals(), host.concurrency() + 1);
  ForwardProblem p = test::homogeneous_problem(20, 20, 10.0, 2000.0, 0.001, 10, 10.0, 4, 4);
  ShotGeometry shot;
  shot.source = {100.0, 100.0};
  shot.receivers.push_back({150.0, 100.0});
  p.shots = {shot};
  const AcousticPropagator<float> prop(p);
  EXPECT_EQ(threads_keeping_subnormals(), 0);
  EXPECT_EQ(subnormal_product(), 0.0f);
  backend::flush_subnormals_to_zero();  // as the test runner left it
#else
  GTEST_SKIP() << "no x86 MXCSR to clear on this machine";
#endif
}

}  // namespace
}  // namespace pwave
