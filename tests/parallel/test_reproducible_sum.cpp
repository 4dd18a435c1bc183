// The reproducible sum gives, on any number of ranks, bitwise the serial sum of the per-shot
// rows in key order: every run (1, 2, 3 ranks) compares with the same serial reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "parallel_test_env.hpp"
#include "pwave/parallel/reproducible_sum.hpp"
#include "pwave/parallel/shot_plan.hpp"

using namespace pwave::parallel;
using pwave::MemSpace;

namespace {

// Per-shot rows whose float sum depends on the order: magnitudes spread over 12 decades and
// both signs, from a generator seeded by the shot id (the same on every rank).
template <class T>
std::vector<T> shot_row(int shot, std::size_t n) {
  std::mt19937_64 gen(1000003ULL * std::uint64_t(shot + 1));
  std::uniform_real_distribution<double> mant(-1.0, 1.0), expo(-6.0, 6.0);
  std::vector<T> row(n);
  for (auto& x : row) x = T(mant(gen) * std::pow(10.0, expo(gen)));
  return row;
}

// What one rank computes: T sum = 0; for rows in order: sum += row.
template <class T>
std::vector<T> serial_sum(const std::vector<int>& shots, std::size_t n) {
  std::vector<T> s(n, T(0));
  for (int shot : shots) {
    const std::vector<T> row = shot_row<T>(shot, n);
    for (std::size_t i = 0; i < n; ++i) s[i] += row[i];
  }
  return s;
}

template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// This rank's rows [count][nz][nx] (n = nz * nx) on the device for the given shots.
template <class T>
pwave::Field<T> device_rows(const std::vector<int>& shots, int nz, int nx, int capacity) {
  pwave::Field<T> rows("rows", std::max<int>({capacity, int(shots.size()), 1}), nz, nx);
  auto h = Kokkos::create_mirror_view(rows);
  for (std::size_t k = 0; k < shots.size(); ++k) {
    const std::vector<T> r = shot_row<T>(shots[k], std::size_t(nz) * nx);
    std::copy(r.begin(), r.end(), h.data() + k * r.size());
  }
  Kokkos::deep_copy(rows, h);
  return rows;
}

template <class T>
std::vector<T> to_host(const Kokkos::View<T*, Kokkos::LayoutRight, MemSpace>& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<T>(h.data(), h.data() + h.extent(0));
}

const char* name(OrderedSumMethod m) {
  return m == OrderedSumMethod::chain    ? "chain"
         : m == OrderedSumMethod::gather ? "gather"
                                         : "automatic";
}

}  // namespace

template <class T>
class ReproducibleSum : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ReproducibleSum, Scalars);

TYPED_TEST(ReproducibleSum, BitwiseEqualToTheSerialSumInBatchOrder) {
  using T = TypeParam;
  const Communicator& w = test_env::world();
  const int nz = 13, nx = 77;  // n = 1001: several chunks of 128 and a short last one
  const std::size_t n = std::size_t(nz) * nx;
  const std::vector<int> minibatch = {9, 2, 14, 0, 7, 11, 5};  // a drawn minibatch, unsorted
  const std::vector<T> reference = serial_sum<T>(minibatch, n);
  // The test can tell orders apart: the reversed order gives other bits.
  const std::vector<int> reversed(minibatch.rbegin(), minibatch.rend());
  EXPECT_FALSE(bitwise_equal(serial_sum<T>(reversed, n), reference));

  const ShotPlan plan = plan_shots(minibatch, w.rank(), w.size());
  const pwave::Field<T> rows =
      device_rows<T>(plan.shots, nz, nx, plan.count + 1);  // spare capacity
  for (AllreducePath path : {AllreducePath::device, AllreducePath::staged}) {
    for (OrderedSumMethod method :
         {OrderedSumMethod::automatic, OrderedSumMethod::chain, OrderedSumMethod::gather}) {
      OrderedSum<T> sum(n, path, method, 128);
      Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> result("result", n);
      for (int repeat = 0; repeat < 2; ++repeat) {  // buffers reused
        sum.sum(w, plan.positions(), rows, result);
        EXPECT_TRUE(bitwise_equal(to_host(result), reference))
            << name(method) << (path == AllreducePath::staged ? " staged" : " device");
      }
      EXPECT_EQ(sum.last().total_rows, int(minibatch.size()));
      const OrderedSumMethod expected = method == OrderedSumMethod::gather && w.size() > 1
                                            ? OrderedSumMethod::gather
                                            : OrderedSumMethod::chain;
      EXPECT_EQ(sum.last().method, expected);
    }
  }
}

TYPED_TEST(ReproducibleSum, AnyKeyDistributionFallsBackToGather) {
  using T = TypeParam;
  const Communicator& w = test_env::world();
  const std::size_t n = 500;
  // Round-robin ownership: rank r holds positions r, r + size, ... (keys interleave).
  const std::vector<int> minibatch = {3, 8, 1, 6, 4, 0, 12, 10};
  std::vector<int> my_shots;
  std::vector<long> my_keys;
  for (int k = w.rank(); k < int(minibatch.size()); k += w.size()) {
    my_shots.push_back(minibatch[k]);
    my_keys.push_back(k);
  }
  // Rows stored in reverse key order: the sum must still follow the keys.
  std::reverse(my_shots.begin(), my_shots.end());
  std::reverse(my_keys.begin(), my_keys.end());
  const pwave::Field<T> rows = device_rows<T>(my_shots, 1, int(n), int(my_shots.size()));
  for (AllreducePath path : {AllreducePath::device, AllreducePath::staged}) {
    OrderedSum<T> sum(n, path);
    Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> result("result", n);
    sum.sum(w, my_keys, rows, result);
    EXPECT_TRUE(bitwise_equal(to_host(result), serial_sum<T>(minibatch, n)));
    EXPECT_EQ(sum.last().method, w.size() > 1 ? OrderedSumMethod::gather : OrderedSumMethod::chain);
  }
}

TYPED_TEST(ReproducibleSum, RanksWithoutShotsAndEmptyBatches) {
  using T = TypeParam;
  const Communicator& w = test_env::world();
  const std::size_t n = 300;
  for (const std::vector<int>& minibatch :
       {std::vector<int>{4}, std::vector<int>{4, 1}, std::vector<int>{}}) {
    const ShotPlan plan = plan_shots(minibatch, w.rank(), w.size());
    const pwave::Field<T> rows = device_rows<T>(plan.shots, 1, int(n), plan.count);
    for (AllreducePath path : {AllreducePath::device, AllreducePath::staged}) {
      for (OrderedSumMethod method : {OrderedSumMethod::chain, OrderedSumMethod::gather}) {
        OrderedSum<T> sum(n, path, method, 64);
        Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> result("result", n);
        Kokkos::deep_copy(result, T(-1));
        sum.sum(w, plan.positions(), rows, result);
        EXPECT_TRUE(bitwise_equal(to_host(result), serial_sum<T>(minibatch, n)))
            << minibatch.size() << " shots, " << name(method);
      }
    }
  }
}

TYPED_TEST(ReproducibleSum, RejectsDuplicateKeysAndBadShapesOnEveryRank) {
  using T = TypeParam;
  const Communicator& w = test_env::world();
  const pwave::Field<T> rows = device_rows<T>({1, 2}, 1, 10, 2);
  Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> result("result", 10);
  OrderedSum<T> sum(10, AllreducePath::device);
  // Every rank says key 5 (one rank alone also duplicates when it holds two rows keyed 5).
  EXPECT_THROW(
      sum.sum(w, w.size() > 1 ? std::vector<long>{5} : std::vector<long>{5, 5}, rows, result),
      std::invalid_argument);
  Kokkos::View<T*, Kokkos::LayoutRight, MemSpace> wrong("wrong", 11);
  EXPECT_THROW(sum.sum(w, {long(w.rank())}, rows, wrong), std::invalid_argument);
}

TEST(OrderedSumScalars, MisfitsAddInKeyOrder) {
  const Communicator& w = test_env::world();
  const std::vector<double> all = {1e16, 1.0, -1e16, 1.0, 3.0, 1e-3};
  const ShotPlan plan = plan_shots(std::vector<int>(all.size(), 0), w.rank(), w.size());
  std::vector<double> mine(all.begin() + plan.first, all.begin() + plan.first + plan.count);
  double serial = 0.0;
  for (double v : all) serial += v;
  const double got = ordered_sum(w, plan.positions(), mine);
  EXPECT_EQ(std::memcmp(&got, &serial, sizeof got), 0) << got << " vs " << serial;
  EXPECT_THROW(ordered_sum(w, {1, 2}, {1.0}), std::invalid_argument);
}
