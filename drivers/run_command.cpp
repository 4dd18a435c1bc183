#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "estimates.hpp"
#include "pwave/core/error.hpp"
#include "pwave/core/log.hpp"
#include "pwave/core/version.hpp"
#include "pwave/io/atomic_file.hpp"
#include "pwave/io/deck.hpp"
#include "pwave/io/npy.hpp"
#include "pwave/io/segy.hpp"
#include "pwave/propagation/forward.hpp"

namespace fs = std::filesystem;

namespace pwave::cli {
namespace {

// Final outputs of a run. Leftovers from an earlier run into the same folder are removed
// first, so the folder never mixes this run's deck.resolved.yaml with older results.
const char* const result_files[] = {"receivers.npy", "wavelet.npy", "receivers.segy"};

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

void remove_stale_results(const fs::path& dir) {
  for (const char* name : result_files) {
    std::error_code ec;
    if (fs::remove(dir / name, ec))
      log::info(std::string("removed ") + name + " of an earlier run");
  }
}

template <class T>
void run_forward(const io::Deck& deck, const fs::path& dir) {
  const ForwardProblem& p = deck.problem;
  std::optional<log::Progress> progress;
  const auto callback = [&](long done, long total) {
    if (!progress) progress.emplace("forward", total);
    progress->update(done);
  };
  const auto start = std::chrono::steady_clock::now();
  const HostArray3<T> traces = forward_model<T>(p, callback);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (progress) progress->finish();

  const std::size_t nshots = traces.extent(0), nrec = traces.extent(1), nt = traces.extent(2);
  // A failure part-way removes what this run already wrote: results come all or none.
  std::vector<fs::path> written;
  try {
    written.push_back(dir / "receivers.npy");
    io::write_npy(written.back().string(), traces.data(), {nshots, nrec, nt});
    const std::vector<T> wavelet(p.wavelet.begin(), p.wavelet.end());
    written.push_back(dir / "wavelet.npy");
    io::write_npy(written.back().string(), wavelet.data(), {wavelet.size()});
    if (deck.output.segy) {
      const std::vector<float> f32(traces.data(), traces.data() + traces.size());
      written.push_back(dir / "receivers.segy");
      io::write_shot_gathers_segy(written.back().string(), f32.data(), int(nshots), int(nrec),
                                  int(nt), p.dt, p.shots);
    }
  } catch (...) {
    for (const fs::path& f : written) {
      std::error_code ec;
      fs::remove(f, ec);
    }
    throw;
  }
  for (const fs::path& f : written) log::info("wrote " + f.string());

  const Grid2D& g = p.model.grid;
  const PaddedGrid pg = padded_grid(p);
  log::info("summary: grid " + std::to_string(g.nz) + " x " + std::to_string(g.nx) +
            format(" (nz x nx) at dz = %g m, dx = %g m", g.dz, g.dx) + ", padded " +
            std::to_string(pg.nz) + " x " + std::to_string(pg.nx));
  log::info("summary: " + std::to_string(nshots) + " shots x " + std::to_string(nrec) +
            " receivers, " + std::to_string(nt) + format(" steps of %g s, order ", p.dt) +
            std::to_string(p.order) + ", " + deck.precision);
  const double updates = double(pg.cells()) * double(nt) * double(nshots);
  log::info(format("summary: wall time %.2f s, %.3g cell updates/s", seconds,
                   seconds > 0 ? updates / seconds : 0.0));
}

std::string header(const io::Deck& deck, const CommandLine& cl) {
  std::string h = std::string("# Resolved by pwave ") + version + " from " + deck.path;
  for (const std::string& s : cl.sets) h += " --set '" + s + "'";
  return h + "\n";
}

}  // namespace

int run_command(const CommandLine& cl) {
  const io::Deck deck = io::load_deck(cl.deck, cl.sets);
  validate(deck.problem);
  log::set_quiet(cl.quiet);

  const fs::path dir(deck.output.directory);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw InputError("output.directory", deck.path,
                     "cannot create directory '" + dir.string() + "': " + ec.message());
  }
  log::open_file((dir / "pwave.log").string());
  try {
    log::info(std::string("pwave ") + version + ", Kokkos " + kokkos_version + " (" +
              ExecSpace::name() + ")");
    std::string command = "deck " + deck.path;
    for (const std::string& s : cl.sets) command += " --set '" + s + "'";
    log::info(command);
    for (const std::string& w : deck.warnings) log::warn(w);
    remove_stale_results(dir);
    io::write_text_file((dir / "deck.resolved.yaml").string(),
                        header(deck, cl) + io::resolved_yaml(deck));
    if (deck.precision == "float64") {
      run_forward<double>(deck, dir);
    } else {
      run_forward<float>(deck, dir);
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
