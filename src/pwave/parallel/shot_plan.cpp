#include "pwave/parallel/shot_plan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pwave::parallel {

namespace {
void check(int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size) {
    throw std::invalid_argument("pwave::parallel: rank " + std::to_string(rank) +
                                " is not in a communicator of size " + std::to_string(size));
  }
}
}  // namespace

int share_first(int batch, int rank, int size) {
  check(rank, size);
  return rank * (batch / size) + std::min(rank, batch % size);
}

std::vector<int> share_counts(int batch, int size) {
  check(0, size);
  std::vector<int> counts(std::size_t(size), batch / size);
  for (int r = 0; r < batch % size; ++r) ++counts[std::size_t(r)];
  return counts;
}

ShotPlan plan_shots(const std::vector<int>& minibatch, int rank, int size) {
  check(rank, size);
  const int batch = int(minibatch.size());
  ShotPlan plan;
  plan.batch = batch;
  plan.first = share_first(batch, rank, size);
  plan.count = batch / size + (rank < batch % size ? 1 : 0);
  plan.shots.assign(minibatch.begin() + plan.first, minibatch.begin() + plan.first + plan.count);
  return plan;
}

std::vector<long> ShotPlan::positions() const {
  std::vector<long> p(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) p[std::size_t(k)] = long(first) + k;
  return p;
}

}  // namespace pwave::parallel
