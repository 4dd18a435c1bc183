#pragma once
// What an inversion has done so far: its history rows and the state a later run resumes from.

#include <string>
#include <vector>

namespace pwave {

/// One iteration of an inversion (one row of history.csv).
struct HistoryRow {
  long iteration = 0;        ///< 1-based, all stages together
  int stage = 0;             ///< 1-based
  double misfit = 0;         ///< of the iteration's minibatch, at the model the step began from
  double gradient_norm = 0;  ///< Euclidean norm of the conditioned gradient (optimiser units)
  double step = 0;           ///< largest model change of the step (the first parameter's unit)
  double seconds = 0;        ///< wall time of the iteration
  /// Observed traces of the iteration's shots excluded from the misfit as dead (all zero, or
  /// NaN/Inf; gradient.selection.dead_traces); -1: unknown (a row of a checkpoint written
  /// before pwave kept the count).
  long dead_traces = -1;
};

/// Everything needed to continue an inversion after `iteration` completed iterations.
struct FwiState {
  std::string fingerprint;        ///< identifies the inversion (grid, shots, optimiser, stages)
  long iteration = 0;             ///< completed iterations, all stages together
  std::vector<double> model;      ///< the optimiser's vector: [parameter][nz][ny nx], scaled
  std::vector<double> optimizer;  ///< Optimizer::save()
  std::vector<HistoryRow> history;
  /// The wavelet the next iteration starts from when it is estimated
  /// (WaveletEstimation); empty: the problem's.
  std::vector<double> wavelet;
  /// Per-shot wavelets (WaveletEstimation::per_shot, or the problem's shot_wavelets) the next
  /// iteration starts from, [shot][time]; empty: `wavelet` (shared).
  std::vector<std::vector<double>> shot_wavelets;
};

}  // namespace pwave
