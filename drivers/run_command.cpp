#include <unistd.h>

#include <filesystem>
#include <string>

#include "backends/host_pages.hpp"
#include "commands.hpp"
#include "mpi_context.hpp"
#include "pwave/core/error.hpp"
#include "pwave/core/log.hpp"
#include "pwave/core/version.hpp"
#include "pwave/io/atomic_file.hpp"
#include "pwave/io/deck.hpp"
#include "pwave/io/deck_observed.hpp"
#include "pwave/propagation/forward.hpp"
#include "run_outputs.hpp"
#include "run_tasks.hpp"

namespace fs = std::filesystem;

namespace pwave::cli {
namespace {

std::string header(const io::Deck& deck, const CommandLine& cl) {
  std::string h = std::string("# Resolved by pwave ") + version + " from " + deck.path;
  for (const std::string& s : cl.sets) h += " --set '" + s + "'";
  return h + "\n";
}

template <class T>
void run_task(const io::Deck& deck, const fs::path& dir, const CommandLine& cl) {
  if (deck.task == "gradient") {
    run_gradient_task<T>(deck, dir);
  } else if (deck.task == "fwi") {
    run_fwi_task<T>(deck, dir, cl.resume, cl.stop_after);
  } else {
    run_forward_task<T>(deck, dir);
  }
}

}  // namespace

int run_command(const CommandLine& cl) {
  // Every rank reads and checks the deck; they agree on the outcome, so a bad deck (or a file
  // that one rank cannot read) ends every rank with the same code and one message.
  io::Deck deck;
  const parallel::Status loaded = parallel::run_collectively(world(), [&] {
    deck = io::load_deck(cl.deck, cl.sets);
    validate(deck.problem);
    // With gradient.selection.dead_traces: keep, the observed values are checked once over all
    // ranks, each reading only its slice of the shots, rather than the whole file on every rank
    // (with exclude, the default, traces holding NaN/Inf are left out and counted instead).
    if (!deck.misfit.selection.exclude_dead_traces) {
      const auto [first, last] = io::observed_check_range(
          deck.observed.shape.empty() ? 0 : deck.observed.shape[0], world().rank(), world().size());
      io::check_observed_values(deck.observed, first, last);
    }
    if ((cl.resume || cl.stop_after > 0) && deck.task != "fwi") {
      throw InputError("", deck.path,
                       std::string(cl.resume ? "--resume" : "--stop-after") +
                           " applies to task fwi only (this deck has task: " + deck.task + ")");
    }
  });
  if (!loaded.ok()) throw AgreedFailure(loaded.code, loaded.message);
  if (world().is_root()) log::set_quiet(cl.quiet);

  // Rank 0 alone writes the run's files; the other ranks write into a private scratch folder
  // (removed at the end) so that the code paths stay the same.
  const bool root = world().is_root();
  const fs::path dir =
      root ? fs::path(deck.output.directory)
           : fs::temp_directory_path() /
                 ("pwave-rank" + std::to_string(world().rank()) + "-" + std::to_string(::getpid()));
  struct RemoveScratch {
    fs::path path;
    bool active;
    ~RemoveScratch() {
      std::error_code ec;
      if (active) fs::remove_all(path, ec);
    }
  } scratch{dir, !root};
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw InputError("output.directory", deck.path,
                     "cannot create directory '" + dir.string() + "': " + ec.message());
  }
  // A resumed run keeps the log of the run it continues as pwave.previous.log.
  if (cl.resume && fs::is_regular_file(dir / "pwave.log", ec)) {
    fs::rename(dir / "pwave.log", dir / "pwave.previous.log", ec);
  }
  log::open_file((dir / "pwave.log").string());
  try {
    log::info(std::string("pwave ") + version + ", Kokkos " + kokkos_version + " (" +
              ExecSpace::name() + "), host huge pages " + backend::huge_pages_status());
    std::string command = "deck " + deck.path + " (task " + deck.task + ")";
    for (const std::string& s : cl.sets) command += " --set '" + s + "'";
    if (cl.resume) command += " --resume";
    if (cl.stop_after > 0) command += " --stop-after " + std::to_string(cl.stop_after);
    log::info(command);
    for (const std::string& n : deck.notes) log::info(n);
    for (const std::string& w : deck.warnings) log::warn(w);
    if (!cl.resume) remove_stale_results(dir);
    io::write_text_file((dir / "deck.resolved.yaml").string(),
                        header(deck, cl) + io::resolved_yaml(deck));
    write_run_json(deck, dir);
    if (deck.precision == "float64") {
      run_task<double>(deck, dir, cl);
    } else {
      run_task<float>(deck, dir, cl);
    }
    if (!root) {
      // plots are rank 0's
    } else if (deck.output.plots && !cl.no_plots) {
      make_plots(dir);
    } else {
      log::info("plots: disabled (" + std::string(cl.no_plots ? "--no-plots" : "output.plots") +
                ")");
    }
  } catch (const std::exception& e) {
    // Into the log file only: main prints the one error line on the terminal.
    log::set_quiet(true);
    log::info(std::string("error: ") + e.what());
    log::close_file();
    throw;
  }
  log::close_file();
  return 0;
}

}  // namespace pwave::cli
