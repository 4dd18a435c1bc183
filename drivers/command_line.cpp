#include "command_line.hpp"

#include <Kokkos_Core.hpp>
#include <cstdlib>

#include "backends/host_pages.hpp"
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
    } else if (arg == "--resume") {
      cl.resume = true;
    } else if (arg == "--no-plots") {
      cl.no_plots = true;
    } else if (arg == "--stop-after" || starts_with(arg, "--stop-after=")) {
      std::string value;
      if (arg == "--stop-after") {
        if (i + 1 >= argc) usage_error("--stop-after needs a number of iterations");
        value = argv[++i];
      } else {
        value = arg.substr(13);
      }
      char* end = nullptr;
      const long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 1 || n > 1000000000L) {
        usage_error("--stop-after needs a positive number of iterations, got '" + value + "'");
      }
      cl.stop_after = int(n);
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
  if (cl.command == "check" && (cl.resume || cl.stop_after > 0)) {
    usage_error(std::string(cl.resume ? "--resume" : "--stop-after") +
                " applies to pwave run only");
  }
  return cl;
}

std::string help_text() {
  return std::string("pwave ") + version +
         ": acoustic wave propagation, gradients and FWI driven by YAML decks\n"
         "\n"
         "usage:\n"
         "  pwave run DECK.yaml [--set KEY=VALUE]... [--quiet] [--resume] [--stop-after N]\n"
         "            [--no-plots]\n"
         "  pwave check DECK.yaml [--set KEY=VALUE]...\n"
         "  pwave --help | --version\n"
         "\n"
         "commands:\n"
         "  run     validate the deck and run its task. Writes into output.directory:\n"
         "          pwave.log, deck.resolved.yaml, run.json, wavelet.npy ([time], or\n"
         "          [shot, time] with per-shot wavelets), and\n"
         "          forward:  receivers.npy [shot, receiver, time] (+ receivers.segy)\n"
         "          gradient: gradient.npy [nz, nx], synthetic.npy (+ synthetic.segy),\n"
         "                    summary.json\n"
         "          fwi:      initial_model.npy, model_final.npy, synthetic.npy (+ .segy),\n"
         "                    history.csv, snapshots, checkpoint.bin (+ observed.npy,\n"
         "                    true_model.npy)\n"
         "          then figures with tools/pwave-plot when python3 and matplotlib exist.\n"
         "  check   validate the deck and print it resolved (every default filled), with\n"
         "          the stability and dispersion figures, the padded grid and a memory\n"
         "          estimate (gradient, fwi: the memory of both wavefield storages and the\n"
         "          iteration plan). Runs nothing.\n"
         "\n"
         "options:\n"
         "  --set KEY=VALUE  override a deck value before validation (VALUE is YAML), e.g.\n"
         "                   --set time.nt=200 --set model.vp=2500\n"
         "                   --set 'acquisition.sources.x=[100, 200]'\n"
         "  --quiet, -q      no progress lines on the terminal (pwave.log still has them)\n"
         "  --resume         fwi: continue from checkpoint.bin in output.directory (without\n"
         "                   it a run first removes the results of an earlier run there)\n"
         "  --stop-after N   fwi: stop after N iterations of this run, with a checkpoint\n"
         "                   (for jobs with a time limit; continue with --resume)\n"
         "  --no-plots       do not make figures (same as output.plots: false)\n"
         "  --help, -h       this text\n"
         "  --version        pwave and Kokkos versions\n"
         "\n"
         "Kokkos options (--kokkos-...) and variables (KOKKOS_NUM_THREADS, KOKKOS_DEVICE_ID)\n"
         "are honoured. Every deck key: inputs/README.md.\n"
         "Exit status: 0 success, 2 bad input or usage, 1 failure while running.\n";
}

std::string version_text() {
  return std::string("pwave ") + version + "\nKokkos " + kokkos_version + ", " + kokkos_flavour +
         "\ndefault execution space: " + Kokkos::DefaultExecutionSpace::name() +
         "\nhost huge pages: " + backend::huge_pages_status() + "\n";
}

}  // namespace pwave::cli
