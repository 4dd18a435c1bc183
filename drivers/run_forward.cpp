#include <chrono>
#include <cstdio>
#include <optional>
#include <sstream>

#include "estimates.hpp"
#include "pwave/core/error.hpp"
#include "pwave/core/log.hpp"
#include "pwave/io/atomic_file.hpp"
#include "pwave/io/npy.hpp"
#include "pwave/io/segy.hpp"
#include "pwave/propagation/forward.hpp"
#include "run_outputs.hpp"
#include "run_tasks.hpp"

namespace fs = std::filesystem;

namespace pwave::cli {
namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

}  // namespace

template <class T>
void run_forward_task(const io::Deck& deck, const fs::path& dir) {
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
  const Grid& g = p.model.grid;
  const PaddedGrid pg = padded_grid(p);
  const double updates = double(pg.cells()) * double(nt) * double(nshots);
  // The figures of the log's summary, machine-readable (benchmarks and scripts read them).
  std::ostringstream summary;
  summary << "{\"task\": \"forward\", \"dimension\": " << g.dimension << ", \"shots\": " << nshots
          << ", \"receivers\": " << nrec << ", \"traces\": " << total_traces(p.shots)
          << ", \"nt\": " << nt << ", \"padded_cells\": " << pg.cells()
          << ", \"seconds\": " << json_number(seconds)
          << ", \"cell_updates_per_second\": " << json_number(seconds > 0 ? updates / seconds : 0.0)
          << "}\n";
  // A failure part-way removes what this run already wrote: results come all or none.
  ResultFiles files(dir);
  write_traces_npy(files, "receivers.npy", traces, p.shots);
  write_wavelet_npy<T>(files, p);
  if (deck.output.segy) {
    const std::vector<float> f32(traces.data(), traces.data() + traces.size());
    io::write_shot_gathers_segy(files.add("receivers.segy"), f32.data(), int(nshots), int(nrec),
                                int(nt), p.dt, p.shots, p.model.grid.is_3d());
  }
  io::write_text_file(files.add("summary.json"), summary.str());
  files.commit();

  if (g.is_3d()) {
    log::info("summary: grid " + std::to_string(g.nz) + " x " + std::to_string(g.ny) + " x " +
              std::to_string(g.nx) +
              format(" (nz x ny x nx) at dz = %g m, dy = %g m, dx = %g m", g.dz, g.dy, g.dx) +
              ", padded " + std::to_string(pg.nz) + " x " + std::to_string(pg.ny) + " x " +
              std::to_string(pg.nx));
  } else {
    log::info("summary: grid " + std::to_string(g.nz) + " x " + std::to_string(g.nx) +
              format(" (nz x nx) at dz = %g m, dx = %g m", g.dz, g.dx) + ", padded " +
              std::to_string(pg.nz) + " x " + std::to_string(pg.nx));
  }
  log::info("summary: " + describe_shots(p.shots) + ", " + std::to_string(nt) +
            format(" steps of %g s, order ", p.dt) + std::to_string(p.order) + ", " +
            deck.precision);
  log::info(format("summary: wall time %.2f s, %.3g cell updates/s", seconds,
                   seconds > 0 ? updates / seconds : 0.0));
}

template void run_forward_task<float>(const io::Deck&, const fs::path&);
template void run_forward_task<double>(const io::Deck&, const fs::path&);

}  // namespace pwave::cli
