#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

#include "mpi_context.hpp"
#include "pwave/core/error.hpp"
#include "pwave/core/log.hpp"
#include "pwave/inversion/fwi.hpp"
#include "pwave/io/atomic_file.hpp"
#include "pwave/io/fwi_files.hpp"
#include "pwave/io/grid_file.hpp"
#include "pwave/io/npy.hpp"
#include "pwave/parallel/shot_plan.hpp"
#include "pwave/propagation/forward.hpp"
#include "run_outputs.hpp"
#include "run_tasks.hpp"

namespace fs = std::filesystem;

namespace pwave::cli {
namespace {

FwiConfig fwi_config(const io::Deck& deck, int stop_after) {
  FwiConfig c;
  static_cast<InversionSettings&>(c) = deck.inversion;
  c.problem = deck.problem;  // the initial model; boundary.pml_velocity is fixed by the deck
  c.storage = deck.storage_options;
  c.misfit = deck.misfit;
  c.stop_after = stop_after;
  return c;
}

std::string stages_text(const io::DeckInversion& inv) {
  std::string s;
  for (std::size_t i = 0; i < inv.stages.size(); ++i) {
    char buf[96];
    const StageConfig& st = inv.stages[i];
    if (st.min_frequency > 0 && st.max_frequency > 0) {
      std::snprintf(buf, sizeof buf, "%d at %g-%g Hz", st.iterations, st.min_frequency,
                    st.max_frequency);
    } else if (st.min_frequency > 0) {
      std::snprintf(buf, sizeof buf, "%d at >= %g Hz", st.iterations, st.min_frequency);
    } else if (st.max_frequency > 0) {
      std::snprintf(buf, sizeof buf, "%d at <= %g Hz", st.iterations, st.max_frequency);
    } else {
      std::snprintf(buf, sizeof buf, "%d unfiltered", st.iterations);
    }
    s += (i ? ", " : "") + std::string(buf);
  }
  return s;
}

}  // namespace

/// The data of a problem (the true model's observed data, the final model's synthetics): each
/// rank models its share of the shots and the shares are gathered on every rank (shot order =
/// rank order).
template <class T>
HostArray3<T> model_observed(const ForwardProblem& truth, const ProgressCallback& progress) {
  const parallel::Communicator& comm = world();
  if (comm.size() == 1) return forward_model<T>(truth, progress);
  const int nshots = int(truth.shots.size());
  std::vector<int> all(static_cast<std::size_t>(nshots));
  for (int s = 0; s < nshots; ++s) all[s] = s;
  const parallel::ShotPlan mine = parallel::plan_shots(all, comm.rank(), comm.size());
  // Rows of the widest shot of all: a rank's own shots may all be narrower.
  const std::size_t nrec = max_receivers(truth.shots), nt = std::size_t(truth.nt);
  std::vector<double> local(mine.shots.size() * nrec * nt, 0.0);
  if (!mine.empty()) {
    ForwardProblem part = truth;
    part.shots.clear();
    for (int s : mine.shots) part.shots.push_back(truth.shots[s]);
    const HostArray3<T> traces =
        forward_model<T>(part, comm.is_root() ? progress : ProgressCallback());
    for (std::size_t k = 0; k < traces.extent(0); ++k)
      for (std::size_t r = 0; r < traces.extent(1); ++r)
        for (std::size_t n = 0; n < nt; ++n) local[(k * nrec + r) * nt + n] = traces(k, r, n);
  }
  const std::vector<double> gathered = comm.allgatherv(local);
  HostArray3<T> out("pwave::observed", nshots, nrec, truth.nt);
  if (gathered.size() != out.size()) throw RuntimeError("observed data: gathered the wrong size");
  for (std::size_t i = 0; i < gathered.size(); ++i) out.data()[i] = T(gathered[i]);
  return out;
}

/// model_observed with a progress line named `what` (with an ETA) on rank 0.
template <class T>
HostArray3<T> model_with_progress(const ForwardProblem& problem, const std::string& what) {
  std::optional<log::Progress> progress;
  const auto callback = [&](long done, long total) {
    if (!progress) progress.emplace(what, total);
    progress->update(done);
  };
  HostArray3<T> traces = model_observed<T>(problem, callback);
  if (progress) progress->finish();
  return traces;
}

template <class T>
void run_fwi_task(const io::Deck& deck, const fs::path& dir, bool resume, int stop_after) {
  const ForwardProblem& p = deck.problem;
  const Grid& grid = p.model.grid;
  const io::DeckInversion& inv = deck.inversion;
  const int nshots = int(p.shots.size());
  std::string parameters;
  for (physics::Parameter q : inv.parameters)
    parameters += (parameters.empty() ? "" : ", ") + std::string(physics::name(q));
  log::info(
      "fwi: " + std::to_string(inv.total_iterations()) + " iterations (" + stages_text(inv) +
      ") of [" + parameters + "], " + std::to_string(inv.batch_size > 0 ? inv.batch_size : nshots) +
      " of " + std::to_string(nshots) + " shots per iteration, " + inv.optimizer.type + ", " +
      to_string(deck.storage) + " storage" +
      (deck.misfit.function != misfit::Misfit::l2
           ? std::string(", misfit ") + misfit::name(deck.misfit.function)
           : std::string()) +
      (inv.wavelet_estimation.enabled
           ? std::string(inv.wavelet_estimation.per_shot ? ", per-shot wavelets" : ", wavelet") +
                 " estimated every " + name(inv.wavelet_estimation.every)
           : std::string()) +
      (resume ? ", resuming" : ""));
  {
    ResultFiles files(dir);
    io::write_grid_npy<T>(files.add("initial_model.npy"), grid, p.model.vp);
    // Every other parameter the model holds: initial_model_rho.npy, initial_model_vs.npy.
    for (const physics::Parameter q : physics::all_parameters) {
      if (q != physics::Parameter::vp && !p.model.values(q).empty()) {
        io::write_grid_npy<T>(files.add(std::string("initial_model_") + physics::name(q) + ".npy"),
                              grid, p.model.values(q));
      }
    }
    files.commit();
  }

  // Modelled data live in memory; a file's are read shot by shot from it (deck.observed).
  std::shared_ptr<const ObservedTraces> observed = deck.observed.traces;
  if (deck.has_true_model) {
    ForwardProblem truth = p;  // same acquisition, wavelet and (fixed) CPML
    truth.model = deck.true_model;
    const HostArray3<T> modelled = model_with_progress<T>(truth, "observed data (true model)");
    ResultFiles files(dir);
    io::write_grid_npy<T>(files.add("true_model.npy"), grid, deck.true_model.vp);
    for (const physics::Parameter q : physics::all_parameters) {
      if (q != physics::Parameter::vp && !deck.true_model.values(q).empty()) {
        io::write_grid_npy<T>(files.add(std::string("true_model_") + physics::name(q) + ".npy"),
                              grid, deck.true_model.values(q));
      }
    }
    write_traces_npy(files, "observed.npy", modelled, p.shots);
    files.commit();
    observed = std::make_shared<ObservedArray<T>>(modelled);
  }
  {
    ResultFiles files(dir);
    write_wavelet_npy<T>(files, p);
    files.commit();
  }

  const auto start = std::chrono::steady_clock::now();
  // Models, history and checkpoints go to the deck's folder, which every rank reads on --resume
  // (only rank 0 writes there).
  io::FwiFiles<T> outputs(deck.output.directory, resume);
  const FwiResult result = run_fwi<T>(fwi_config(deck, stop_after), *observed, outputs, world());
  if (result.completed) {
    // The final model's data, full band, with the final wavelet(s) (the last estimate, or the
    // deck's): to set beside the observed data (one more forward run of every shot).
    ForwardProblem final_problem = p;
    final_problem.model = result.model;
    if (!result.shot_wavelets.empty()) {
      final_problem.shot_wavelets = result.shot_wavelets;
    } else if (!result.wavelet.empty()) {
      final_problem.wavelet = result.wavelet;
      final_problem.shot_wavelets.clear();
    }
    const HostArray3<T> synthetic =
        model_with_progress<T>(final_problem, "synthetics (final model)");
    ResultFiles files(dir);
    write_synthetics(files, deck, synthetic);
    files.commit();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::vector<double>& m = result.misfits;
  const bool completed = result.completed;
  // Misfits of different stages are of differently filtered data: compare within a stage.
  struct StageMisfits {
    double first = 0, last = 0;
    int done = 0;
  };
  std::vector<StageMisfits> per_stage;
  std::size_t next = 0;
  for (const StageConfig& st : inv.stages) {
    StageMisfits sm;
    for (int i = 0; i < st.iterations && next < m.size(); ++i, ++next) {
      if (sm.done++ == 0) sm.first = m[next];
      sm.last = m[next];
    }
    per_stage.push_back(sm);
  }
  std::ostringstream summary;
  summary << "{\"task\": \"fwi\", \"iterations\": " << inv.total_iterations()
          << ", \"iterations_done\": " << m.size()
          << ", \"completed\": " << (completed ? "true" : "false")
          << ", \"misfit_first\": " << (m.empty() ? "null" : json_number(m.front()))
          << ", \"misfit_last\": " << (m.empty() ? "null" : json_number(m.back()))
          << ", \"stages\": [";
  for (std::size_t i = 0; i < per_stage.size(); ++i) {
    const StageMisfits& sm = per_stage[i];
    summary << (i ? ", " : "") << "{\"max_frequency\": " << json_number(inv.stages[i].max_frequency)
            << (inv.stages[i].min_frequency > 0
                    ? ", \"min_frequency\": " + json_number(inv.stages[i].min_frequency)
                    : std::string())
            << ", \"iterations_done\": " << sm.done
            << ", \"misfit_first\": " << (sm.done ? json_number(sm.first) : "null")
            << ", \"misfit_last\": " << (sm.done ? json_number(sm.last) : "null") << "}";
  }
  summary << "], \"storage\": " << json_string(to_string(deck.storage)) << ", \"shots\": " << nshots
          << ", \"resumed\": " << (resume ? "true" : "false")
          << ", \"dead_traces\": " << result.dead_traces
          << ", \"seconds\": " << json_number(seconds) << "}\n";
  ResultFiles files(dir);
  io::write_text_file(files.add("summary.json"), summary.str());
  files.commit();
  char line[256];
  if (!completed) {
    log::info("stopped after iteration " + std::to_string(m.size()) + " of " +
              std::to_string(inv.total_iterations()) +
              "; run the same command with --resume to continue");
  }
  for (std::size_t i = 0; i < per_stage.size(); ++i) {
    const StageMisfits& sm = per_stage[i];
    if (sm.done == 0) continue;
    std::snprintf(line, sizeof line,
                  "summary: stage %zu/%zu: %d iteration(s), misfit %.6g -> %.6g (%.3g of the "
                  "first)%s",
                  i + 1, per_stage.size(), sm.done, sm.first, sm.last,
                  sm.first > 0 ? sm.last / sm.first : 0.0,
                  inv.batch_size > 0 && inv.batch_size < nshots
                      ? "; each iteration's misfit is of its own shots"
                      : "");
    log::info(line);
  }
  std::snprintf(line, sizeof line, "summary: %zu of %d iterations done, wall time %.2f s", m.size(),
                inv.total_iterations(), seconds);
  log::info(line);
}

template void run_fwi_task<float>(const io::Deck&, const fs::path&, bool, int);
template void run_fwi_task<double>(const io::Deck&, const fs::path&, bool, int);

}  // namespace pwave::cli
