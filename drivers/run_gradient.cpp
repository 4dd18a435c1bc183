#include <chrono>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "estimates.hpp"
#include "mpi_context.hpp"
#include "pwave/core/log.hpp"
#include "pwave/io/atomic_file.hpp"
#include "pwave/io/npy.hpp"
#include "pwave/propagation/gradient.hpp"
#include "run_outputs.hpp"
#include "run_tasks.hpp"

namespace fs = std::filesystem;

namespace pwave::cli {

template <class T>
void run_gradient_task(const io::Deck& deck, const fs::path& dir) {
  const ForwardProblem& p = deck.problem;
  const StorageOptions& o = deck.storage_options;
  const HistoryEstimate h = estimate_history(p, sizeof(T), 0, o);
  const double per_shot = deck.storage == Storage::full         ? h.full_per_shot
                          : deck.storage == Storage::checkpoint ? h.checkpoint_per_shot
                                                                : h.boundary_per_shot;
  const double mb = per_shot / (1024.0 * 1024.0);
  char line[256];
  if (deck.storage == Storage::checkpoint) {
    std::snprintf(line, sizeof line,
                  "gradient: checkpoint storage (interval %d), %.1f MB per shot x %d shots per "
                  "batch",
                  h.checkpoint_interval, mb, h.batch);
  } else if (deck.storage == Storage::full && !o.exact_full()) {
    std::snprintf(line, sizeof line,
                  "gradient: full storage (stride %d, %s), %.1f MB per shot x %d shots per batch",
                  o.stride, to_string(o.compression), mb, h.batch);
  } else {
    std::snprintf(line, sizeof line, "gradient: %s storage, %.1f MB per shot x %d shots per batch",
                  to_string(deck.storage), mb, h.batch);
  }
  log::info(line);
  std::snprintf(line, sizeof line, "gradient: backward run %.1f MB per shot",
                h.backward_per_shot / (1024.0 * 1024.0));
  log::info(line);
  if (deck.misfit.function != misfit::Misfit::l2)
    log::info(std::string("misfit: ") + misfit::name(deck.misfit.function));

  std::optional<log::Progress> progress;
  const auto callback = [&](long done, long total) {
    if (!progress) progress.emplace("gradient", total);
    progress->update(done);
  };
  const auto start = std::chrono::steady_clock::now();
  const GradientResult<T> g = misfit_gradient<T>(p, *deck.observed.traces, deck.storage_options,
                                                 callback, world(), deck.misfit);
  if (g.dead_traces > 0) {
    log::warn("observed: " + std::to_string(g.dead_traces) +
              " dead traces (all zero, or NaN/Inf) excluded from the misfit "
              "(gradient.selection.dead_traces)");
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (progress) progress->finish();

  const Grid& grid = p.model.grid;
  const std::size_t nshots = g.synthetic.extent(0), nrec = g.synthetic.extent(1),
                    nt = g.synthetic.extent(2);
  const auto max_abs = [](const HostArray2<T>& a) {
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a.data()[i])));
    return m;
  };
  const double gmax = max_abs(g.gradient);
  // Every parameter of the equation but vp (whose names stay gradient.npy and
  // gradient_max_abs): gradient_rho.npy, gradient_vs.npy and gradient_<p>_max_abs.
  std::vector<physics::Parameter> others;
  for (const physics::Parameter q : physics::all_parameters) {
    if (q != physics::Parameter::vp && g.has(q)) others.push_back(q);
  }
  std::string other_max;
  for (const physics::Parameter q : others) {
    other_max += std::string(", \"gradient_") + physics::name(q) +
                 "_max_abs\": " + json_number(max_abs(g.of(q)));
  }
  std::ostringstream summary;
  summary << "{\"task\": \"gradient\", \"misfit\": " << json_number(g.misfit)
          << ", \"storage\": " << json_string(to_string(deck.storage)) << ", \"shots\": " << nshots
          << ", \"receivers\": " << nrec << ", \"nt\": " << nt
          << ", \"dead_traces\": " << g.dead_traces
          << ", \"gradient_max_abs\": " << json_number(gmax) << other_max
          << ", \"seconds\": " << json_number(seconds) << "}\n";

  ResultFiles files(dir);
  std::vector<std::size_t> shape{std::size_t(grid.nz), std::size_t(grid.nx)};
  if (grid.is_3d()) shape.insert(shape.begin() + 1, std::size_t(grid.ny));  // [nz, ny, nx]
  io::write_npy(files.add("gradient.npy"), g.gradient.data(), shape);
  for (const physics::Parameter q : others) {
    io::write_npy(files.add(std::string("gradient_") + physics::name(q) + ".npy"), g.of(q).data(),
                  shape);
  }
  write_synthetics(files, deck, g.synthetic);
  write_wavelet_npy<T>(files, p);
  io::write_text_file(files.add("summary.json"), summary.str());
  files.commit();

  std::snprintf(line, sizeof line,
                "summary: misfit %.6g, max |dJ/dvp| %.3g, %s, %zu steps, wall time %.2f s",
                g.misfit, gmax, describe_shots(p.shots).c_str(), nt, seconds);
  log::info(line);
}

template void run_gradient_task<float>(const io::Deck&, const fs::path&);
template void run_gradient_task<double>(const io::Deck&, const fs::path&);

}  // namespace pwave::cli
