#pragma once
// The pwave command line: pwave run|check DECK.yaml [--set k=v]... [--quiet] [--resume]
// [--no-plots]; --help; --version.

#include <string>
#include <vector>

namespace pwave::cli {

/// What the user asked for.
struct CommandLine {
  std::string command;            ///< "run", "check", "help" or "version"
  std::string deck;               ///< deck path (run, check)
  std::vector<std::string> sets;  ///< "key.sub=value" overrides, in order
  bool quiet = false;             ///< no progress lines on the terminal
  bool resume = false;            ///< fwi: continue from the checkpoint in the output folder
  bool no_plots = false;          ///< do not run the plotting tool after the run
  int stop_after = 0;             ///< fwi: stop after this many iterations (0 = run to the end)
};

/// Parses argv. Kokkos options (--kokkos-*) are skipped: Kokkos reads them itself.
/// Throws InputError (exit code 2) for usage errors, with a one-line message.
CommandLine parse_command_line(int argc, const char* const* argv);

/// The --help text.
std::string help_text();

/// The --version text: pwave and Kokkos versions, Kokkos flavour and default execution space.
std::string version_text();

}  // namespace pwave::cli
