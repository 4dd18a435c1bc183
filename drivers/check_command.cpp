#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "estimates.hpp"
#include "pwave/io/deck.hpp"
#include "pwave/io/deck_observed.hpp"
#include "pwave/physics/stability.hpp"
#include "pwave/propagation/forward.hpp"

namespace pwave::cli {
namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c, d);
  return buf;
}

double mb(double bytes) {
  return bytes / (1024.0 * 1024.0);
}

// Memory of both storage strategies, and for fwi the iteration plan.
void print_gradient_figures(const io::Deck& deck, std::size_t bytes) {
  const ForwardProblem& p = deck.problem;
  const int nshots = int(p.shots.size());
  const int per_iteration =
      deck.task == "fwi" && deck.inversion.batch_size > 0 ? deck.inversion.batch_size : nshots;
  // Both tasks propagate in chunks of at most execution.shot_batch shots (per rank).
  const StorageOptions& storage = deck.storage_options;
  const HistoryEstimate h = estimate_history(p, bytes, per_iteration, storage);
  // What `full` keeps with the deck's stride and compression (given with `full` only).
  const bool exact = storage.full_settings_exact();
  char approximate[96];
  std::snprintf(approximate, sizeof approximate, "stride %d, %s", storage.stride,
                to_string(storage.compression));
  const std::string full_kept =  // elastic
      exact ? std::string("every step's update terms") : std::string(approximate);
  const char* chosen = to_string(deck.storage);
  const bool elastic = p.equation == physics::Equation::elastic;
  if (elastic) {
    std::cout << "# gradient storage (" << chosen << " selected): checkpoint "
              << format("%.1f MB per shot", mb(h.checkpoint_per_shot)) << " (a state every "
              << h.checkpoint_interval << " steps and " << h.checkpoint_interval
              << " steps' update terms), full " << format("%.1f MB per shot", mb(h.full_per_shot))
              << " (" << full_kept << "), boundary "
              << format("%.1f MB per shot", mb(h.boundary_per_shot))
              << " (every step's strips and memory variables); batch of " << h.batch
              << format(" shots: checkpoint %.1f MB, full %.1f MB, boundary %.1f MB",
                        mb(h.batch * h.checkpoint_per_shot), mb(h.batch * h.full_per_shot),
                        mb(h.batch * h.boundary_per_shot))
              << "\n";
  } else {
    std::cout << "# gradient storage (" << chosen << " selected): full "
              << format("%.1f MB per shot", mb(h.full_per_shot))
              << (exact ? std::string() : std::string(" (second differences, ") + approximate + ")")
              << format(", boundary %.1f MB per shot (", mb(h.boundary_per_shot))
              << format("%.0f frame cells, %.1f%% of the padded grid), ", h.frame_cells,
                        100.0 * h.frame_cells / double(padded_grid(p).cells()))
              << format("checkpoint %.1f MB per shot (a checkpoint every ",
                        mb(h.checkpoint_per_shot))
              << h.checkpoint_interval << " steps); batch of " << h.batch
              << format(" shots: full %.1f MB, boundary %.1f MB, checkpoint %.1f MB",
                        mb(h.batch * h.full_per_shot), mb(h.batch * h.boundary_per_shot),
                        mb(h.batch * h.checkpoint_per_shot))
              << "\n";
  }
  // A gradient of one batch on the device: the forward run's state and model, the history of
  // the selected storage and the backward run.
  const MemoryEstimate m = estimate_memory(p, bytes);
  const double history = deck.storage == Storage::full         ? h.full_per_shot
                         : deck.storage == Storage::checkpoint ? h.checkpoint_per_shot
                                                               : h.boundary_per_shot;
  const double total =
      h.batch * (m.per_shot + history + h.backward_per_shot) + m.model + h.backward_fixed;
  std::cout << format(
                   "# backward run: %.1f MB per shot (adjoint wavefields, CPML memory "
                   "variables, imaging) + %.2f MB; ",
                   mb(h.backward_per_shot), mb(h.backward_fixed))
            << "a gradient of " << h.batch << " shots with " << chosen << " storage: "
            << format("%.1f MB on the device (forward, history, backward)", mb(total)) << "\n";
  if (deck.observed.traces) {
    // A file's traces are never loaded whole: only a chunk's are staged, on the host and the
    // device, in the deck's precision.
    const ObservedTraces& o = *deck.observed.traces;
    const auto* npy = dynamic_cast<const io::MappedNpyTraces*>(&o);
    const double file_values = double(o.shots()) * double(o.shot_size());
    const double file_bytes = file_values * (npy ? (npy->holds_float64() ? 8.0 : 4.0) : 4.0);
    std::cout << "# observed data: " << deck.observed.file << " ("
              << (npy ? npy->dtype() + " .npy, memory-mapped" : std::string("SEG-Y, read by shot"))
              << format(", %.1f MB); staged per chunk of ", mb(file_bytes)) << h.batch
              << format(" shots: %.1f MB on the host (and as much on a GPU)",
                        mb(double(h.batch) * double(o.shot_size()) * double(bytes)))
              << "\n";
  }
  std::cout << "# gradient: CPML velocity fixed at "
            << format("%g m/s (boundary.pml_velocity)", p.boundary.pml_velocity) << "\n";
  std::cout << "# misfit: " << misfit::name(deck.misfit.function);
  if (deck.misfit.function == misfit::Misfit::envelope) {
    // misfit::Workspace: one complex trace of N values per receiver of a shot, and N / 2
    // complex twiddles, in double, on the device.
    const int n = misfit::Workspace::fft_length(p.nt);
    const double nrec = double(max_receivers(p.shots));
    std::cout << format(" (Hilbert transforms of length %.0f: %.3g MB of scratch on the device)", n,
                        mb((2.0 * n * nrec + n) * sizeof(double)));
  }
  std::cout << "\n";
  if (deck.task != "fwi") return;
  const io::DeckInversion& inv = deck.inversion;
  std::cout << "# fwi: " << inv.total_iterations() << " iterations in " << inv.stages.size()
            << " stage(s):";
  for (std::size_t i = 0; i < inv.stages.size(); ++i) {
    const StageConfig& s = inv.stages[i];
    std::cout << (i ? "," : "") << " " << s.iterations
              << (s.min_frequency > 0 && s.max_frequency > 0
                      ? format(" at %g-%g Hz", s.min_frequency, s.max_frequency)
                  : s.min_frequency > 0 ? format(" at >= %g Hz", s.min_frequency)
                  : s.max_frequency > 0 ? format(" at <= %g Hz", s.max_frequency)
                                        : std::string(" unfiltered"));
  }
  std::cout << "; batch size " << per_iteration << " of " << nshots << " shots; "
            << inv.optimizer.type << format(" with learning rate %g ", inv.optimizer.learning_rate)
            << physics::unit(inv.parameters.front()) << "; parameters";
  for (physics::Parameter q : inv.parameters) {
    std::cout << " " << physics::name(q)
              << format(" [%g, %g] ", inv.lower_bound(q), inv.upper_bound(q)) << physics::unit(q);
  }
  std::cout << "\n";
  std::cout << "# fwi: observed data "
            << (deck.has_true_model ? std::string("modelled from true_model")
                                    : "read from " + deck.observed.file)
            << format("; %.0f gradient shot propagations (forward + adjoint) in all",
                      double(inv.total_iterations()) * per_iteration)
            << "\n";
  const WaveletEstimation& we = inv.wavelet_estimation;
  if (we.enabled) {
    std::cout << "# fwi: wavelet estimated every " << name(we.every)
              << format(", water level %g, ", we.water_level)
              << (we.per_shot
                      ? format("per shot (%g wavelets, each from its own traces)", double(nshots))
                      : std::string("one for every shot"))
              << "\n";
  }
}

}  // namespace

int check_command(const CommandLine& cl) {
  const io::Deck deck = io::load_deck(cl.deck, cl.sets);
  validate(deck.problem);
  if (deck.observed.traces && !deck.misfit.selection.exclude_dead_traces)
    io::check_observed_values(deck.observed, 0, deck.observed.traces->shots());
  const ForwardProblem& p = deck.problem;
  const Grid& g = p.model.grid;

  std::cout << "# pwave check " << deck.path << ": the deck resolved, every default filled\n";
  for (const std::string& s : cl.sets) std::cout << "# --set " << s << "\n";
  std::cout << io::resolved_yaml(deck);

  // vmin: the slowest wave (for the elastic equation the smallest vs > 0, vp in fluid cells).
  const double vmin = dispersion_velocity(p.equation, p.model), vmax = stability_velocity(p);
  const double dy = g.is_3d() ? g.dy : 0.0;
  const double dt_max = max_stable_dt(p, vmax);
  // Density contrasts raise the staggered limit (variable density and elastic).
  const bool vd = physics::has_parameter(p.equation, physics::Parameter::rho);
  const bool elastic = p.equation == physics::Equation::elastic;
  const double fmax = physics::ricker_max_frequency(p.peak_frequency);
  const double ppw = physics::points_per_wavelength(vmin, fmax, g.dx, g.dz, dy);
  const PaddedGrid pg = padded_grid(p);
  const std::size_t bytes = deck.precision == "float64" ? 8 : 4;
  const MemoryEstimate m = estimate_memory(p, bytes);

  std::cout << "#\n# stability: dt = "
            << format("%g s, largest stable dt = %.3g s", p.dt, io::round_down_3(dt_max))
            << " (order " << p.order
            << (elastic ? ", elastic"
                : vd    ? ", variable density"
                        : "")
            << format(", vmax = %g m/s", vmax) << (vd ? " with the density contrasts" : "")
            << format("), CFL ratio dt/dt_max = %.3f", p.dt / dt_max) << "\n";
  std::cout << format("# dispersion: %.2f points per wavelength (", ppw)
            << (elastic ? "slowest wave vs (vp where vs = 0)" : "vmin")
            << format(" = %g m/s, fmax = %g Hz, ", vmin, fmax)
            << format("h = %g m; at least %g wanted)", std::max({g.dx, g.dz, dy}),
                      physics::min_points_per_wavelength)
            << "\n";
  if (!p.shot_wavelets.empty()) {
    std::cout << "# wavelet: one per shot, " << p.shot_wavelets.size() << " rows of " << p.nt
              << " samples (wavelet.file)\n";
  }
  const int* wd = p.boundary.width;
  if (g.is_3d()) {
    std::cout << "# grid: " << g.nz << " x " << g.ny << " x " << g.nx << " = " << g.cells()
              << " cells (nz x ny x nx)"
              << format(", dz = %g m, dy = %g m, dx = %g m; ", g.dz, g.dy, g.dx)
              << "padded with CPML (" << wd[top] << "/" << wd[bottom] << "/" << wd[left] << "/"
              << wd[right] << "/" << wd[front] << "/" << wd[back]
              << " top/bottom/left/right/front/back): " << pg.nz << " x " << pg.ny << " x " << pg.nx
              << " = " << pg.cells() << " cells\n";
  } else {
    std::cout << "# grid: " << g.nz << " x " << g.nx << " cells (nz x nx)"
              << format(", dz = %g m, dx = %g m; ", g.dz, g.dx) << "padded with CPML (" << wd[top]
              << "/" << wd[bottom] << "/" << wd[left] << "/" << wd[right]
              << " top/bottom/left/right): " << pg.nz << " x " << pg.nx << "\n";
  }
  std::cout << "# run: " << describe_shots(p.shots) << ", " << p.nt
            << format(" steps (%g s of signal), ", p.nt * p.dt) << m.batch << " shots per batch, "
            << deck.precision
            << format(", %.3g cell updates (padded cells x steps x shots)",
                      double(pg.cells()) * p.nt * double(p.shots.size()))
            << "\n";
  std::cout << format("# memory: %.1f MB per shot (wavefields %.1f MB, CPML %.1f MB, receivers ",
                      mb(m.per_shot), mb(m.wavefields), mb(m.cpml))
            << format("%.1f MB) x ", mb(m.receivers)) << m.batch
            << format(" shots + model %.1f MB = %.1f MB on the device; ", mb(m.model),
                      mb(m.device_total))
            << format("%.1f MB of traces on the host", mb(m.host_traces)) << "\n";
  if (deck.task != "forward") print_gradient_figures(deck, bytes);
  for (const std::string& n : deck.notes) std::cout << "# " << n << "\n";
  for (const std::string& w : deck.warnings) std::cout << "# warning: " << w << "\n";
  return 0;
}

}  // namespace pwave::cli
