#pragma once
// Which shots of an iteration's minibatch this rank models.

#include <vector>

namespace pwave::parallel {

/// This rank's share of one iteration's minibatch. The minibatch (global shot ids, identical on
/// every rank) is cut into `size` contiguous pieces whose lengths differ by at most one, the
/// first `batch % size` ranks taking the longer ones; rank r gets the r-th piece, in minibatch
/// order. A rank gets no shot when the batch is smaller than the number of ranks.
struct ShotPlan {
  std::vector<int> shots;  ///< global shot ids of this rank's share, in minibatch order
  int first = 0;           ///< position of shots[0] in the minibatch (its "batch position")
  int count = 0;           ///< shots.size()
  int batch = 0;           ///< length of the whole minibatch

  /// Batch positions first .. first + count - 1: the keys that put the ranks' per-shot results
  /// back into minibatch order (see reproducible_sum).
  std::vector<long> positions() const;
  bool empty() const { return count == 0; }
};

/// Splits `minibatch` across `size` ranks and returns rank `rank`'s share.
/// Throws std::invalid_argument unless 0 <= rank < size.
ShotPlan plan_shots(const std::vector<int>& minibatch, int rank, int size);

/// Number of shots of every rank for a batch of `batch` shots over `size` ranks.
std::vector<int> share_counts(int batch, int size);

/// Position in the minibatch of rank `rank`'s first shot.
int share_first(int batch, int rank, int size);

}  // namespace pwave::parallel
