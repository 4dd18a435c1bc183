// ShotPlan: contiguous shares in minibatch order, sizes within one, empty shares allowed.
#include <gtest/gtest.h>

#include <stdexcept>

#include "parallel_test_env.hpp"
#include "pwave/parallel/shot_plan.hpp"

using namespace pwave::parallel;

TEST(ShotPlan, SharesCoverTheBatchInOrderWithSizesWithinOne) {
  for (int size = 1; size <= 8; ++size) {
    for (int batch = 0; batch <= 21; ++batch) {
      std::vector<int> minibatch;
      for (int k = 0; k < batch; ++k) minibatch.push_back((k * 7 + 3) % 29);  // unsorted ids
      std::vector<int> joined;
      int smallest = batch, largest = 0, expected_first = 0;
      for (int r = 0; r < size; ++r) {
        const ShotPlan p = plan_shots(minibatch, r, size);
        EXPECT_EQ(p.batch, batch);
        EXPECT_EQ(p.first, expected_first);
        EXPECT_EQ(p.first, share_first(batch, r, size));
        EXPECT_EQ(p.count, int(p.shots.size()));
        EXPECT_EQ(p.count, share_counts(batch, size)[r]);
        EXPECT_EQ(p.empty(), p.count == 0);
        const std::vector<long> pos = p.positions();
        ASSERT_EQ(int(pos.size()), p.count);
        for (int k = 0; k < p.count; ++k) {
          EXPECT_EQ(pos[k], p.first + k);
          EXPECT_EQ(p.shots[k], minibatch[p.first + k]);
        }
        expected_first += p.count;
        smallest = std::min(smallest, p.count);
        largest = std::max(largest, p.count);
        joined.insert(joined.end(), p.shots.begin(), p.shots.end());
      }
      EXPECT_EQ(joined, minibatch) << "batch " << batch << ", size " << size;
      EXPECT_LE(largest - smallest, 1);
    }
  }
}

TEST(ShotPlan, UnevenSplitGivesTheFirstRanksOneMore) {
  const std::vector<int> batch = {10, 4, 7, 1, 9, 2, 8};
  EXPECT_EQ(plan_shots(batch, 0, 3).shots, (std::vector<int>{10, 4, 7}));
  EXPECT_EQ(plan_shots(batch, 1, 3).shots, (std::vector<int>{1, 9}));
  EXPECT_EQ(plan_shots(batch, 2, 3).shots, (std::vector<int>{2, 8}));
  EXPECT_EQ(share_counts(7, 3), (std::vector<int>{3, 2, 2}));
}

TEST(ShotPlan, RanksBeyondTheBatchGetNothing) {
  const std::vector<int> batch = {5, 3};
  EXPECT_EQ(plan_shots(batch, 0, 3).shots, (std::vector<int>{5}));
  EXPECT_EQ(plan_shots(batch, 1, 3).shots, (std::vector<int>{3}));
  const ShotPlan last = plan_shots(batch, 2, 3);
  EXPECT_TRUE(last.empty());
  EXPECT_EQ(last.first, 2);
  EXPECT_TRUE(plan_shots({}, 0, 1).empty());
}

TEST(ShotPlan, RejectsRanksOutsideTheCommunicator) {
  EXPECT_THROW(plan_shots({1, 2}, 2, 2), std::invalid_argument);
  EXPECT_THROW(plan_shots({1, 2}, -1, 2), std::invalid_argument);
  EXPECT_THROW(plan_shots({1, 2}, 0, 0), std::invalid_argument);
}

TEST(ShotPlan, EveryRankOfThisJobAgreesOnTheSplit) {
  const Communicator& w = test_env::world();
  const std::vector<int> minibatch = {12, 0, 5, 3, 17};
  const ShotPlan p = plan_shots(minibatch, w.rank(), w.size());
  std::vector<long> mine(p.shots.begin(), p.shots.end());
  const std::vector<long> all = w.allgatherv(mine);
  EXPECT_EQ(all, std::vector<long>(minibatch.begin(), minibatch.end()));
}
