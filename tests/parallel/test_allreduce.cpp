// Device-aware allreduce: both paths (on host builds "device" hands host memory to MPI and
// "staged" goes through the separate host buffer), blocking and non-blocking, any View shape.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "backends/gpu_aware_mpi.hpp"
#include "parallel_test_env.hpp"
#include "pwave/core/error.hpp"
#include "pwave/parallel/allreduce.hpp"

using namespace pwave::parallel;
using pwave::MemSpace;

namespace {

// Rank r holds (r + 1) * (1 + i % 7): the sum over n ranks is n (n + 1) / 2 * (1 + i % 7),
// exact in float and double.
template <class T, class View>
void fill(const View& v, int rank) {
  auto h = Kokkos::create_mirror_view(v);
  T* p = h.data();
  for (std::size_t i = 0; i < h.size(); ++i) p[i] = T(rank + 1) * T(1 + i % 7);
  Kokkos::deep_copy(v, h);
}

template <class T, class View>
int count_wrong(const View& v, int size) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  const T* p = h.data();
  int wrong = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (p[i] != T(size * (size + 1) / 2) * T(1 + i % 7)) ++wrong;
  }
  return wrong;
}

/// An unrelated kernel (u(i) = i) to overlap with a sum in flight. A free function: nvcc
/// rejects device lambdas in a test body (a private member of the generated class).
template <class T>
void launch_unrelated_kernel(const Kokkos::View<T*, Kokkos::LayoutRight, MemSpace>& u) {
  Kokkos::parallel_for(
      "pwave::tests::overlap", Kokkos::RangePolicy<pwave::ExecSpace>(0, int(u.extent(0))),
      KOKKOS_LAMBDA(const int i) { u(i) = T(i); });
}

const char* name(AllreducePath p) {
  return p == AllreducePath::device ? "device" : "staged";
}

}  // namespace

template <class T>
class Allreduce : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Allreduce, Scalars);

TYPED_TEST(Allreduce, SumsInPlaceOnBothPaths) {
  using T = TypeParam;
  const Communicator& w = test_env::world();
  for (AllreducePath path : {AllreducePath::device, AllreducePath::staged}) {
    StagingBuffer<T> staging;
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(100003)}) {
      Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> v("v", n);
      fill<T>(v, w.rank());
      allreduce_sum(w, v, path, staging);
      EXPECT_EQ(count_wrong<T>(v, w.size()), 0) << name(path) << " n=" << n;
    }
    if (path == AllreducePath::staged && w.size() > 1) {
      EXPECT_EQ(staging.capacity(), std::size_t(100003));
    }
    // 2D device arrays (gradients on the grid) and host arrays reduce the same way.
    pwave::GridView<T> g("g", 31, 17);
    fill<T>(g, w.rank());
    allreduce_sum(w, g, path);
    EXPECT_EQ(count_wrong<T>(g, w.size()), 0) << name(path) << " 2D";
    Kokkos::View<T*, Kokkos::HostSpace> h("h", 77);
    fill<T>(h, w.rank());
    allreduce_sum(w, h, path, staging);
    EXPECT_EQ(count_wrong<T>(h, w.size()), 0) << name(path) << " host";
    Kokkos::View<T*, MemSpace> empty("empty", 0);
    allreduce_sum(w, empty, path, staging);
  }
}

TYPED_TEST(Allreduce, StagingAllocatesOnlyWhenItGrows) {
  using T = TypeParam;
  StagingBuffer<T> s;
  T* a = s.host(1000);
  EXPECT_EQ(s.host(10), a);
  EXPECT_EQ(s.host(1000), a);
  EXPECT_EQ(s.capacity(), std::size_t(1000));
  s.host(2000);
  EXPECT_EQ(s.capacity(), std::size_t(2000));
}

TYPED_TEST(Allreduce, NonBlockingSumsWhileTheHostWorks) {
  using T = TypeParam;
  const Communicator& w = test_env::world();
  for (AllreducePath path : {AllreducePath::device, AllreducePath::staged}) {
    StagingBuffer<T> staging;
    Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> v("v", 50000), u("u", 50000);
    fill<T>(v, w.rank());
    AllreduceRequest req = iallreduce_sum(w, v, path, staging);
    // Overlapped work: an unrelated kernel while the sum is in flight.
    launch_unrelated_kernel<T>(u);
    int polls = 0;
    while (!req.test()) ++polls;
    EXPECT_TRUE(req.done());
    EXPECT_TRUE(req.test());
    req.wait();  // no-op once done
    EXPECT_EQ(count_wrong<T>(v, w.size()), 0) << name(path) << " after " << polls << " polls";
    // wait(), and the destructor of a request nobody waited for.
    fill<T>(v, w.rank());
    AllreduceRequest r2 = iallreduce_sum(w, v, path, staging);
    r2.wait();
    EXPECT_EQ(count_wrong<T>(v, w.size()), 0) << name(path) << " wait";
    fill<T>(v, w.rank());
    { AllreduceRequest r3 = iallreduce_sum(w, v, path, staging); }
    EXPECT_EQ(count_wrong<T>(v, w.size()), 0) << name(path) << " destructor";
    // Move-assigning over a pending request finishes it first.
    fill<T>(v, w.rank());
    fill<T>(u, w.rank());
    StagingBuffer<T> staging_u;
    AllreduceRequest a = iallreduce_sum(w, v, path, staging);
    a = iallreduce_sum(w, u, path, staging_u);
    a.wait();
    EXPECT_EQ(count_wrong<T>(v, w.size()), 0) << name(path) << " move";
    EXPECT_EQ(count_wrong<T>(u, w.size()), 0) << name(path) << " move";
  }
  AllreduceRequest none;
  EXPECT_TRUE(none.done());
  EXPECT_TRUE(none.test());
}

TEST(AllreducePath, ParsesTheSetting) {
  EXPECT_EQ(parse_gpu_aware_setting("auto", "k"), GpuAwareSetting::automatic);
  EXPECT_EQ(parse_gpu_aware_setting("ON", "k"), GpuAwareSetting::on);
  EXPECT_EQ(parse_gpu_aware_setting("1", "k"), GpuAwareSetting::on);
  EXPECT_EQ(parse_gpu_aware_setting("off", "k"), GpuAwareSetting::off);
  EXPECT_EQ(parse_gpu_aware_setting("false", "k"), GpuAwareSetting::off);
  try {
    parse_gpu_aware_setting("sometimes", "PWAVE_GPU_AWARE_MPI");
    ADD_FAILURE() << "no exception";
  } catch (const pwave::InputError& e) {
    EXPECT_EQ(e.key(), "PWAVE_GPU_AWARE_MPI");
    EXPECT_NE(std::string(e.what()).find("sometimes"), std::string::npos);
  }
}

TEST(AllreducePath, ChoosesAndExplains) {
  const char* old = std::getenv("PWAVE_GPU_AWARE_MPI");
  const std::string saved = old ? old : "";
  unsetenv("PWAVE_GPU_AWARE_MPI");
  const AllreduceChoice c = choose_allreduce_path();
  EXPECT_FALSE(c.reason.empty());
  EXPECT_FALSE(std::string(pwave::backend::gpu_aware_reason()).empty());
  EXPECT_NE(c.log_line().find("allreduce:"), std::string::npos);
  if (!pwave::backend::device_memory_is_separate()) {
    // Host memory: straight to MPI whatever the setting (staging would only copy).
    EXPECT_EQ(c.path, AllreducePath::device);
    EXPECT_FALSE(pwave::backend::mpi_is_gpu_aware());
    EXPECT_NE(c.reason.find("host memory"), std::string::npos);
    setenv("PWAVE_GPU_AWARE_MPI", "off", 1);
    EXPECT_EQ(choose_allreduce_path(GpuAwareSetting::off).path, AllreducePath::device);
  } else if (built_with_mpi()) {
    setenv("PWAVE_GPU_AWARE_MPI", "off", 1);
    EXPECT_EQ(choose_allreduce_path(GpuAwareSetting::on).path, AllreducePath::staged);
    setenv("PWAVE_GPU_AWARE_MPI", "on", 1);
    EXPECT_EQ(choose_allreduce_path(GpuAwareSetting::off).path, AllreducePath::device);
    setenv("PWAVE_GPU_AWARE_MPI", "auto", 1);
    EXPECT_EQ(choose_allreduce_path(GpuAwareSetting::off).path, AllreducePath::staged);
    EXPECT_EQ(choose_allreduce_path(GpuAwareSetting::on).path, AllreducePath::device);
    setenv("PWAVE_GPU_AWARE_MPI", "bogus", 1);
    EXPECT_THROW(choose_allreduce_path(), pwave::InputError);
  }
  if (old) {
    setenv("PWAVE_GPU_AWARE_MPI", saved.c_str(), 1);
  } else {
    unsetenv("PWAVE_GPU_AWARE_MPI");
  }
}
