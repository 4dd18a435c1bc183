#include "command_line.hpp"

#include <Kokkos_Core.hpp>

#include "pwave/core/error.hpp"
#include "pwave/core/version.hpp"

namespace pwave::cli {
namespace {

[[noreturn]] void usage_error(const std::string& what) {
  throw InputError("", "", what + " (see pwave --help)");
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

CommandLine parse_command_line(int argc, const char* const* argv) {
  CommandLine cl;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      cl.command = "help";
      return cl;
    }
    if (arg == "--version") {
      cl.command = "version";
      return cl;
    }
  }
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--set" || arg == "-s") {
      if (i + 1 >= argc) usage_error("--set needs KEY=VALUE");
      cl.sets.push_back(argv[++i]);
    } else if (starts_with(arg, "--set=")) {
      cl.sets.push_back(arg.substr(6));
    } else if (arg == "--quiet" || arg == "-q") {
      cl.quiet = true;
    } else if (starts_with(arg, "--kokkos-")) {
      continue;  // Kokkos::ScopeGuard consumes these
    } else if (starts_with(arg, "-") && arg.size() > 1) {
      usage_error("unknown option '" + arg + "'");
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.empty()) usage_error("no command given; use pwave run DECK.yaml");
  cl.command = positional[0];
  if (cl.command == "help") return cl;
  if (cl.command == "version") return cl;
  if (cl.command != "run" && cl.command != "check") {
    usage_error("unknown command '" + cl.command + "'; the commands are run and check");
  }
  if (positional.size() < 2) usage_error("'pwave " + cl.command + "' needs a deck file");
  if (positional.size() > 2) usage_error("unexpected argument '" + positional[2] + "'");
  cl.deck = positional[1];
  return cl;
}

std::string help_text() {
  return std::string("pwave ") + version +
         ": acoustic wave propagation (and, later, FWI) driven by YAML decks\n"
         "\n"
         "usage:\n"
         "  pwave run DECK.yaml [--set KEY=VALUE]... [--quiet]\n"
         "  pwave check DECK.yaml [--set KEY=VALUE]...\n"
         "  pwave --help | --version\n"
         "\n"
         "commands:\n"
         "  run     validate the deck and run its task (task: forward). Writes into\n"
         "          output.directory: pwave.log, deck.resolved.yaml, receivers.npy\n"
         "          [shot, receiver, time], wavelet.npy [time], and receivers.segy when\n"
         "          output.segy is true.\n"
         "  check   validate the deck and print it resolved (every default filled), with\n"
         "          the stability and dispersion figures, the padded grid and a memory\n"
         "          estimate. Runs nothing.\n"
         "\n"
         "options:\n"
         "  --set KEY=VALUE  override a deck value before validation (VALUE is YAML), e.g.\n"
         "                   --set time.nt=200 --set model.vp=2500\n"
         "                   --set 'acquisition.sources.x=[100, 200]'\n"
         "  --quiet, -q      no progress lines on the terminal (pwave.log still has them)\n"
         "  --help, -h       this text\n"
         "  --version        pwave and Kokkos versions\n"
         "\n"
         "Kokkos options (--kokkos-...) and variables (KOKKOS_NUM_THREADS, KOKKOS_DEVICE_ID)\n"
         "are honoured. Every deck key: inputs/README.md.\n"
         "Exit status: 0 success, 2 bad input or usage, 1 failure while running.\n";
}

std::string version_text() {
  return std::string("pwave ") + version + "\nKokkos " + kokkos_version + ", " + kokkos_flavour +
         "\ndefault execution space: " + Kokkos::DefaultExecutionSpace::name() + "\n";
}

}  // namespace pwave::cli
