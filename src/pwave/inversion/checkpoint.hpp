#pragma once
// The inversion state on disk, so that `pwave run DECK --resume` continues after a crash or a
// kill and reaches the same final model as an uninterrupted run.

#include <string>
#include <vector>

namespace pwave {

/// One row of history.csv.
struct HistoryRow {
  long iteration = 0;
  int stage = 0;
  double misfit = 0, gradient_norm = 0, step = 0, seconds = 0;
};

/// Everything needed to continue an inversion after `iteration` completed iterations.
struct FwiState {
  std::string fingerprint;        ///< identifies the inversion (grid, shots, optimiser, stages)
  long iteration = 0;             ///< completed iterations, all stages together
  std::vector<double> model;      ///< [nz * nx], m/s
  std::vector<double> optimizer;  ///< Optimizer::save()
  std::vector<HistoryRow> history;
};

/// Writes the state atomically (binary, little-endian host format). Throws RuntimeError.
void write_checkpoint(const std::string& path, const FwiState& state);

/// Reads a state written by write_checkpoint. Throws InputError if the file is not a pwave
/// checkpoint or is truncated.
FwiState read_checkpoint(const std::string& path);

/// history.csv text for the rows: "iteration,stage,misfit,gradient_norm,step,seconds".
std::string history_csv(const std::vector<HistoryRow>& rows);

}  // namespace pwave
