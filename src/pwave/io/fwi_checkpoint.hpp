#pragma once
// An inversion's state on disk (checkpoint.bin) and its history as text (history.csv), so that
// `pwave run DECK --resume` continues after a crash or a kill and reaches the same final model
// as an uninterrupted run.

#include <string>
#include <vector>

#include "pwave/inversion/fwi_state.hpp"

namespace pwave::io {

/// Writes the state atomically (binary, little-endian host format). Throws RuntimeError.
void write_checkpoint(const std::string& path, const FwiState& state);

/// Reads a state written by write_checkpoint. Throws InputError if the file is not a pwave
/// checkpoint or is truncated.
FwiState read_checkpoint(const std::string& path);

/// history.csv text for the rows: "iteration,stage,misfit,gradient_norm,step,seconds,dead_traces"
/// (dead_traces empty for a row whose count is unknown, HistoryRow::dead_traces < 0).
std::string history_csv(const std::vector<HistoryRow>& rows);

}  // namespace pwave::io
