#pragma once
// The pwave commands. Each returns the exit code; errors propagate as InputError (exit 2)
// or RuntimeError / std::exception (exit 1) to main, which prints them.

#include "command_line.hpp"

namespace pwave::cli {

/// `pwave run`: loads the deck, runs its task (forward, gradient or fwi) and writes the outputs
/// atomically into output.directory (pwave.log, deck.resolved.yaml, run.json and the task's
/// results, see inputs/README.md), then makes figures with tools/pwave-plot when it can.
int run_command(const CommandLine& cl);

/// `pwave check`: prints the resolved deck, stability and dispersion figures, the padded grid
/// and a memory estimate on stdout (gradient and fwi: both storages' memory, the iteration
/// plan). Runs nothing.
int check_command(const CommandLine& cl);

}  // namespace pwave::cli
