#pragma once
// The pwave commands. Each returns the exit code; errors propagate as InputError (exit 2)
// or RuntimeError / std::exception (exit 1) to main, which prints them.

#include "command_line.hpp"

namespace pwave::cli {

/// `pwave run`: loads the deck, runs its task and writes the outputs atomically into
/// output.directory (pwave.log, deck.resolved.yaml, receivers.npy, wavelet.npy, receivers.segy).
int run_command(const CommandLine& cl);

/// `pwave check`: prints the resolved deck, stability and dispersion figures, the padded grid
/// and a memory estimate on stdout. Runs nothing.
int check_command(const CommandLine& cl);

}  // namespace pwave::cli
