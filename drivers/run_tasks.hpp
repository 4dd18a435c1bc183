#pragma once
// The tasks of `pwave run`, each in precision T (float or double). Each writes its results into
// `dir` (see inputs/README.md, "Outputs of pwave run") and logs a summary; errors propagate.

#include <filesystem>

#include "pwave/io/deck.hpp"

namespace pwave::cli {

/// task: forward: receivers.npy, wavelet.npy (+ receivers.segy). All or none.
template <class T>
void run_forward_task(const io::Deck& deck, const std::filesystem::path& dir);

/// task: gradient: gradient.npy [nz, nx] (dJ/dvp), synthetic.npy, wavelet.npy, summary.json.
/// All or none.
template <class T>
void run_gradient_task(const io::Deck& deck, const std::filesystem::path& dir);

/// task: fwi: initial_model.npy (+ observed.npy and true_model.npy when the data are modelled
/// from true_model), then run_fwi (model_final.npy, history.csv, snapshots, checkpoint.bin) and
/// summary.json. `resume` continues from checkpoint.bin; `stop_after` > 0 stops after that
/// many iterations of this run (with a checkpoint).
template <class T>
void run_fwi_task(const io::Deck& deck, const std::filesystem::path& dir, bool resume,
                  int stop_after);

}  // namespace pwave::cli
