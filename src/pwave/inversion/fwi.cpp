#include "pwave/inversion/fwi.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <sstream>

#include "pwave/core/error.hpp"
#include "pwave/core/log.hpp"
#include "pwave/inversion/bandpass.hpp"
#include "pwave/inversion/conditioning.hpp"
#include "pwave/inversion/optimizer.hpp"
#include "pwave/inversion/wavelet_estimation.hpp"
#include "pwave/parallel/allreduce.hpp"
#include "pwave/parallel/reproducible_sum.hpp"
#include "pwave/parallel/shot_plan.hpp"
#include "pwave/physics/stability.hpp"
#include "pwave/propagation/gradient.hpp"
#include "pwave/propagation/propagator.hpp"
#include "pwave/propagation/shot_gradient.hpp"

namespace pwave {
namespace {

void validate_fwi(const FwiConfig& c, std::size_t observed_shots) {
  validate(c.problem);
  const int nshots = int(c.problem.shots.size());
  if (c.stages.empty()) throw InputError("inversion.iterations", "", "no iterations to run");
  for (const StageConfig& s : c.stages) {
    if (s.iterations < 1)
      throw InputError("inversion.stages", "", "every stage needs iterations >= 1");
  }
  if (c.batch_size < 0 || c.batch_size > nshots) {
    throw InputError("inversion.batch_size", "",
                     "is " + std::to_string(c.batch_size) + " but there are " +
                         std::to_string(nshots) + " shots");
  }
  if (c.parameters.empty()) throw InputError("inversion.parameters", "", "is empty");
  for (std::size_t i = 0; i < c.parameters.size(); ++i) {
    const physics::Parameter p = c.parameters[i];
    if (!physics::has_parameter(c.problem.equation, p)) {
      throw InputError("inversion.parameters", "",
                       std::string("the equation ") + physics::name(c.problem.equation) +
                           " has no " + physics::name(p));
    }
    for (std::size_t k = 0; k < i; ++k) {
      if (c.parameters[k] == p) {
        throw InputError("inversion.parameters", "",
                         std::string("'") + physics::name(p) + "' is listed twice");
      }
    }
    const double lo = c.lower_bound(p), hi = c.upper_bound(p);
    const bool zero = InversionSettings::lower_bound_may_be_zero(p);  // vs: fluid cells
    if (!(zero ? lo >= 0 : lo > 0) || !(hi > lo)) {
      throw InputError(
          "inversion.bounds", "",
          std::string("needs 0 ") + (zero ? "<=" : "<") + " lower < upper for " + physics::name(p));
    }
  }
  if (std::find(c.parameters.begin(), c.parameters.end(), physics::Parameter::vp) !=
      c.parameters.end()) {
    const double dt_max = max_stable_dt(
        c.problem, c.vmax * density_contrast_factor(c.problem.equation, c.problem.model));
    if (c.problem.dt > dt_max) {
      std::ostringstream m;
      m << "the upper bound " << c.vmax << " m/s makes time.dt = " << c.problem.dt
        << " s unstable; with this bound dt must not exceed " << dt_max << " s";
      throw InputError("inversion.bounds", "", m.str());
    }
  }
  if (c.wavelet_estimation.enabled && !(c.wavelet_estimation.water_level >= 0.0)) {
    throw InputError("wavelet.estimate.water_level", "", "must be >= 0");
  }
  if (observed_shots != std::size_t(nshots)) {
    throw InputError("observed", "",
                     "holds " + std::to_string(observed_shots) + " shots but the acquisition has " +
                         std::to_string(nshots));
  }
}

/// The shots of one iteration: `batch` distinct shots drawn from a generator seeded by (seed,
/// iteration), so every rank and every resumed run draws the same ones without communicating.
std::vector<int> draw_batch(unsigned long seed, long iteration, int nshots, int batch) {
  std::vector<int> all(static_cast<std::size_t>(nshots));
  for (int i = 0; i < nshots; ++i) all[i] = i;
  if (batch >= nshots) return all;
  std::mt19937_64 gen(seed * 0x9E3779B97F4A7C15ULL + std::uint64_t(iteration));
  for (int i = 0; i < batch; ++i) {  // partial Fisher-Yates
    std::uniform_int_distribution<int> pick(i, nshots - 1);
    std::swap(all[i], all[pick(gen)]);
  }
  all.resize(std::size_t(batch));
  return all;
}

/// Identifies an inversion, so that --resume refuses a checkpoint of another one.
std::string fingerprint(const FwiConfig& c, int precision_bytes) {
  std::ostringstream f;
  const Grid& g = c.problem.model.grid;
  f << "pwave-fwi-1 " << precision_bytes << ' ' << g.nz << 'x'
    << (g.is_3d() ? std::to_string(g.ny) + "x" : std::string()) << g.nx << ' ' << c.problem.nt
    << ' ' << c.problem.shots.size() << ' ' << c.optimizer.type << ' ' << c.batch_size << ' '
    << c.seed;
  for (const StageConfig& s : c.stages) {
    f << ' ' << s.iterations << '@' << s.max_frequency;
    if (s.min_frequency > 0) f << "hp" << s.min_frequency;  // none: as before band-passes
  }
  if (c.parameters != std::vector<physics::Parameter>{physics::Parameter::vp}) {
    f << " parameters";
    for (physics::Parameter p : c.parameters) f << ' ' << physics::name(p);
  }
  // l2 adds nothing, so that checkpoints of runs without a misfit choice still resume.
  if (c.misfit.function != misfit::Misfit::l2) f << " misfit " << misfit::name(c.misfit.function);
  const WaveletEstimation& we = c.wavelet_estimation;
  if (we.enabled) f << " wavelet-estimate " << name(we.every) << ' ' << we.water_level;
  if (we.enabled && we.per_shot) f << " per-shot";
  return f.str();
}

/// y = x * factor, elementwise (parameter scaling between physical and optimiser units).
template <class T>
void scaled_copy(const DeviceVector<T>& x, const DeviceVector<T>& y, const T factor) {
  Kokkos::parallel_for(
      "pwave::inversion::scale_parameter", Kokkos::RangePolicy<ExecSpace>(0, x.extent(0)),
      KOKKOS_LAMBDA(const long i) { y(i) = x(i) * factor; });
}

/// A device vector's values on the host, as doubles.
template <class T>
std::vector<double> to_host(const DeviceVector<T>& v) {
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

std::string seconds_text(double s) {
  char b[32];
  if (s < 120)
    std::snprintf(b, sizeof b, "%.1fs", s);
  else
    std::snprintf(b, sizeof b, "%dm%02ds", int(s) / 60, int(s) % 60);
  return b;
}

}  // namespace

template <class T>
FwiResult run_fwi(const FwiConfig& config_in, const ObservedTraces& observed, FwiObserver& observer,
                  const parallel::Communicator& comm) {
  const bool root = comm.is_root();
  FwiConfig cfg = config_in;
  validate_fwi(cfg, observed.shots());
  // The CPML must not change as the model does (the gradient treats it as fixed).
  if (cfg.problem.boundary.pml_velocity <= 0) {
    cfg.problem.boundary.pml_velocity = cfg.problem.model.vmax();
  }
  const Grid& g = cfg.problem.model.grid;
  const int nz = g.nz, nplane = g.ny * g.nx;  // model-grid arrays are [nz][ny nx] (ny = 1 in 2D)
  const std::size_t ncells = std::size_t(g.cells());
  const int nshots = int(cfg.problem.shots.size());
  const int batch = cfg.batch_size > 0 ? cfg.batch_size : nshots;
  const int nt = cfg.problem.nt;

  // Each rank propagates at most its share of a minibatch, in chunks of at most shot_batch
  // shots: device memory (wavefields, history, traces) is sized for one chunk.
  const int share = (batch + comm.size() - 1) / comm.size();
  const int chunk = cfg.problem.shot_batch > 0 ? std::min(cfg.problem.shot_batch, share) : share;
  const std::unique_ptr<Propagator<T>> made = make_propagator<T>(cfg.problem, chunk);
  Propagator<T>& prop = *made;
  const int nrec = prop.max_receivers();
  if (observed.receivers() != std::size_t(nrec) || observed.samples() != std::size_t(nt)) {
    throw InputError("observed", "",
                     "has shape [" + std::to_string(observed.shots()) + ", " +
                         std::to_string(observed.receivers()) + ", " +
                         std::to_string(observed.samples()) + "] but the acquisition needs [" +
                         std::to_string(nshots) + ", " + std::to_string(nrec) + ", " +
                         std::to_string(nt) + "]");
  }
  const parallel::AllreduceChoice path = parallel::choose_allreduce_path(
      parallel::parse_gpu_aware_setting(cfg.gpu_aware_mpi, "execution.gpu_aware_mpi"));
  ShotGradient<T> shot_gradient(prop, observed, share, cfg.storage, path.path, comm, cfg.misfit);
  if (root && comm.size() > 1) {
    log::info(std::to_string(comm.size()) + " ranks, up to " + std::to_string(share) +
              " shots each per iteration; " + path.log_line());
  }
  if (root && chunk < share) {
    log::info("shots propagated in chunks of " + std::to_string(chunk) + " per launch (of up to " +
              std::to_string(share) + " per rank and iteration; execution.shot_batch)");
  }
  // The optimiser's vector holds the inverted parameters one after the other, parameter k scaled
  // by scale[k] = (first parameter's bound width) / (its own): one step moves each parameter by
  // the same fraction of its range (FwiConfig::parameters). scale[0] = 1.
  const std::vector<physics::Parameter>& params = cfg.parameters;
  const std::size_t np = params.size();
  std::vector<double> scale(np, 1.0);
  std::vector<typename Optimizer<T>::Bounds> bounds;
  const auto width = [&](physics::Parameter p) { return cfg.upper_bound(p) - cfg.lower_bound(p); };
  for (std::size_t k = 0; k < np; ++k) {
    scale[k] = k == 0 ? 1.0 : width(params[0]) / width(params[k]);
    bounds.push_back({cfg.lower_bound(params[k]) * scale[k], cfg.upper_bound(params[k]) * scale[k],
                      params[k] == physics::Parameter::vs});  // fluid cells stay fluid
  }
  DeviceVector<T> model("pwave::fwi_model", np * ncells);
  DeviceVector<T> gradient("pwave::fwi_gradient", np * ncells);
  {
    auto h = Kokkos::create_mirror_view(model);
    for (std::size_t k = 0; k < np; ++k) {
      const std::vector<double>& v = cfg.problem.model.values(params[k]);
      for (std::size_t i = 0; i < ncells; ++i) h(k * ncells + i) = T(v[i] * scale[k]);
    }
    Kokkos::deep_copy(model, h);
  }
  // Block k of a model-sized vector (unmanaged), and a physical-unit buffer per scaled block.
  const auto block = [&](const DeviceVector<T>& v, std::size_t k) {
    return DeviceVector<T>(v.data() + k * ncells, ncells);
  };
  std::vector<DeviceVector<T>> physical(np);
  for (std::size_t k = 1; k < np; ++k) {
    if (scale[k] != 1.0) physical[k] = DeviceVector<T>("pwave::fwi_parameter", ncells);
  }
  // The model block k in its physical unit (a view of `x` when unscaled).
  const auto physical_block = [&](const DeviceVector<T>& x, std::size_t k) {
    if (scale[k] == 1.0) return block(x, k);
    scaled_copy(block(x, k), physical[k], T(1.0 / scale[k]));
    return physical[k];
  };
  Optimizer<T> opt(cfg.optimizer, np * ncells, bounds);
  GradientConditioner<T> cond(g, cfg.problem.shots, cfg.water_depth, cfg.source_taper,
                              cfg.smoothing);

  // The wavelet of the iterations (full band; a multiscale stage low-passes what the propagator
  // injects): the problem's, or with wavelet estimation the latest estimate.
  // `wavelets`: one row shared by every shot, or one per shot (the problem's shot_wavelets, or
  // the shared one repeated for a per-shot estimate).
  const WaveletEstimation& estimation = cfg.wavelet_estimation;
  const bool per_shot =
      !cfg.problem.shot_wavelets.empty() || (estimation.enabled && estimation.per_shot);
  std::vector<std::vector<double>> wavelets;
  if (!cfg.problem.shot_wavelets.empty()) {
    wavelets = cfg.problem.shot_wavelets;
  } else {
    wavelets.assign(per_shot ? std::size_t(nshots) : 1, cfg.problem.wavelet);
  }

  const std::string print = fingerprint(cfg, int(sizeof(T)));
  FwiState state;
  state.fingerprint = print;
  if (std::optional<ResumePoint> saved = observer.resume_point()) {
    if (saved->state.fingerprint != print || saved->state.model.size() != np * ncells) {
      throw InputError("--resume", saved->source,
                       "the checkpoint belongs to another inversion (" + saved->state.fingerprint +
                           "); this deck is " + print);
    }
    state = std::move(saved->state);
    auto h = Kokkos::create_mirror_view(model);
    for (std::size_t i = 0; i < np * ncells; ++i) h(i) = T(state.model[i]);
    Kokkos::deep_copy(model, h);
    opt.load(state.optimizer);
    const auto resumed = [&](const std::vector<double>& w) {
      if (w.size() != std::size_t(nt)) {
        throw InputError("--resume", saved->source,
                         "the checkpoint's wavelet has " + std::to_string(w.size()) +
                             " samples; time.nt is " + std::to_string(nt));
      }
      return w;
    };
    if (!state.shot_wavelets.empty()) {
      if (!per_shot || state.shot_wavelets.size() != std::size_t(nshots)) {
        throw InputError("--resume", saved->source,
                         "the checkpoint holds " + std::to_string(state.shot_wavelets.size()) +
                             " per-shot wavelets; this inversion has " +
                             (per_shot ? std::to_string(nshots) + " shots" : "a shared wavelet"));
      }
      for (std::size_t s = 0; s < wavelets.size(); ++s) {
        wavelets[s] = resumed(state.shot_wavelets[s]);
      }
    } else if (!state.wavelet.empty()) {
      for (std::vector<double>& w : wavelets) w = resumed(state.wavelet);
    }
    if (root) log::info("resuming after iteration " + std::to_string(state.iteration));
  }
  if (root) observer.started(state.history);

  long total = 0;
  for (const StageConfig& s : cfg.stages) total += s.iterations;

  // One objective evaluation: misfit and conditioned dJ/dvp of the iteration's minibatch.
  // This rank runs its share; misfits and per-shot imaging sums are added over the whole batch
  // in batch order on every rank (bitwise independent of the number of ranks and of the chunk
  // size). The observed traces of each chunk are staged (and, in a multiscale stage, low-passed:
  // the same filter per trace as filtering all data first) as it starts; the full data stay
  // where `observed` keeps them.
  parallel::ShotPlan plan;
  std::optional<BandpassFilter> filter;
  typename ShotGradient<T>::Hooks hooks;  // hooks.filter: the stage's band-pass, if any
  const auto grid_view = [&](const DeviceVector<T>& v) {
    return GridView<T>(v.data(), nz, nplane);
  };
  // Sets the propagator's model to `m` (optimiser units), each block in its physical unit.
  const auto set_model = [&](const DeviceVector<T>& m) {
    for (std::size_t k = 0; k < np; ++k)
      prop.set_parameter(params[k], grid_view(physical_block(m, k)));
  };
  auto objective = [&](const DeviceVector<T>& m, const DeviceVector<T>& grad) {
    // Every rank, with or without shots: the chain rule below reads the propagator's model
    // (a rank that kept the previous one would take another step than the others).
    set_model(m);
    const double j = shot_gradient.evaluate(plan.shots, plan.positions(), hooks);
    // dJ/dp of each inverted parameter straight into its block of the gradient (the chain rule
    // of the equation: Propagator::model_gradients), then dJ/d(optimiser variable) =
    // dJ/dp / scale.
    ParameterGrids<T> grads;
    for (std::size_t k = 0; k < np; ++k) grads[params[k]] = grid_view(block(grad, k));
    prop.model_gradients(shot_gradient.imaging(), grads);
    for (std::size_t k = 0; k < np; ++k) {
      const DeviceVector<T> gk = block(grad, k);
      if (scale[k] != 1.0) scaled_copy(gk, gk, T(1.0 / scale[k]));
      cond.apply(grid_view(gk));
    }
    return j;
  };

  // The stage's band-pass of the injected wavelets (both 0: none).
  double stage_min_frequency = 0.0, stage_max_frequency = 0.0;
  const auto band = [&](const std::vector<double>& w) {
    return stage_min_frequency > 0 || stage_max_frequency > 0
               ? bandpass(w, stage_min_frequency, stage_max_frequency, cfg.problem.dt)
               : w;
  };
  const auto inject_wavelet = [&]() {
    if (!per_shot) {
      prop.set_wavelet(band(wavelets[0]));
      return;
    }
    std::vector<std::vector<double>> injected(wavelets.size());
    for (std::size_t s = 0; s < wavelets.size(); ++s) injected[s] = band(wavelets[s]);
    prop.set_shot_wavelets(injected);
  };
  // Source wavelet estimation (wavelet_estimation.hpp): the ranks' `shots` modelled with the
  // current model and wavelets, their spectra (one row per shot), then
  // - shared: the rows summed over all ranks in batch order (bitwise the same on any number of
  //   ranks) and the one filter applied to every wavelet;
  // - per shot: each shot's wavelet updated from its own row by the rank that models it, and
  //   the new wavelets gathered, in batch order, to every rank (copies: bitwise the same).
  // Collective. `batch`: the shots of every rank (global ids, batch order).
  std::optional<WaveletEstimator> estimator;
  if (estimation.enabled) estimator.emplace(nt);
  std::vector<double> spectra;  // [this rank's shot][WaveletEstimator::row_size()]
  typename Traces<T>::host_mirror_type host_syn, host_obs;
  const auto estimate_wavelet = [&](long it, const std::vector<int>& batch,
                                    const parallel::ShotPlan& shots) {
    set_model(model);  // the propagator may hold a line search's trial model
    const std::size_t row = estimator->row_size();
    spectra.assign(shots.shots.size() * row, 0.0);
    shot_gradient.model(
        shots.shots, hooks, [&](const Traces<T>& syn, const Traces<T>& obs, int first, int count) {
          if (host_syn.extent(0) == 0) {  // allocated once (aliases on host-only builds)
            host_syn = Kokkos::create_mirror_view(syn);
            host_obs = Kokkos::create_mirror_view(obs);
          }
          Kokkos::deep_copy(host_syn, syn);
          Kokkos::deep_copy(host_obs, obs);
          const std::size_t traces = syn.extent(1), per_shot = traces * syn.extent(2);
          for (int k = 0; k < count; ++k) {
            estimator->spectra(host_syn.data() + std::size_t(k) * per_shot,
                               host_obs.data() + std::size_t(k) * per_shot, traces,
                               spectra.data() + std::size_t(first + k) * row);
          }
        });
    double change = 0, before = 0;
    const auto replace = [&](std::vector<double>& w, std::vector<double> next) {
      for (int n = 0; n < nt; ++n) {
        change += (next[n] - w[n]) * (next[n] - w[n]);
        before += w[n] * w[n];
      }
      w = std::move(next);
    };
    if (!estimation.per_shot) {
      const std::vector<double> sums = parallel::ordered_sum(comm, shots.positions(), spectra, row);
      for (std::vector<double>& w : wavelets) {
        replace(w, estimator->update(w, sums.data(), estimation.water_level));
      }
    } else {
      std::vector<double> mine;  // this rank's shots' new wavelets, [shot][time]
      mine.reserve(shots.shots.size() * std::size_t(nt));
      for (std::size_t k = 0; k < shots.shots.size(); ++k) {
        const std::vector<double> next =
            estimator->update(wavelets[std::size_t(shots.shots[k])], spectra.data() + k * row,
                              estimation.water_level);
        mine.insert(mine.end(), next.begin(), next.end());
      }
      // The ranks' shares are contiguous pieces of the batch in rank order: their
      // concatenation is the batch's new wavelets in batch order.
      const std::vector<double> all = comm.allgatherv(mine);
      if (all.size() != batch.size() * std::size_t(nt)) {
        throw RuntimeError("wavelet estimation: gathered " + std::to_string(all.size()) +
                           " samples for " + std::to_string(batch.size()) + " shots");
      }
      for (std::size_t b = 0; b < batch.size(); ++b) {
        const auto from = all.begin() + std::ptrdiff_t(b * std::size_t(nt));
        replace(wavelets[std::size_t(batch[b])], std::vector<double>(from, from + nt));
      }
    }
    inject_wavelet();
    if (root) {
      char line[200];
      std::snprintf(line, sizeof line,
                    "iteration %ld: %s estimated from %d shots, changed by %.3g of its norm", it,
                    estimation.per_shot ? "per-shot wavelets" : "wavelet", shots.batch,
                    before > 0 ? std::sqrt(change / before) : 0.0);
      log::info(line);
      if (per_shot) {
        observer.shot_wavelets(it, wavelets);
      } else {
        observer.wavelet(it, wavelets[0]);
      }
    }
  };
  // Dead traces of each shot this rank's evaluations staged (-1: not drawn by this rank).
  std::vector<double> dead_per_shot(static_cast<std::size_t>(nshots), -1.0);
  std::vector<int> all_shots(static_cast<std::size_t>(nshots));
  for (int s = 0; s < nshots; ++s) all_shots[std::size_t(s)] = s;

  long done = state.iteration, stage_start = 0;
  const auto run_start = std::chrono::steady_clock::now();
  long iterations_this_run = 0;
  bool stopped_early = false;
  for (std::size_t si = 0; si < cfg.stages.size(); ++si) {
    const StageConfig& stage = cfg.stages[si];
    const long stage_end = stage_start + stage.iterations;
    if (done >= stage_end) {
      stage_start = stage_end;
      continue;
    }
    shot_gradient.invalidate_observed();
    if (stage.max_frequency > 0 || stage.min_frequency > 0) {
      filter.emplace(stage.min_frequency, stage.max_frequency, cfg.problem.dt);
      hooks.filter = [&](T* trace, std::size_t n) { filter->apply(trace, n); };
      if (root) {
        std::string band;
        if (stage.min_frequency > 0 && stage.max_frequency > 0) {
          band = "band-passed between " + std::to_string(stage.min_frequency) + " and " +
                 std::to_string(stage.max_frequency) + " Hz";
        } else if (stage.min_frequency > 0) {
          band = "high-passed above " + std::to_string(stage.min_frequency) + " Hz";
        } else {
          band = "low-passed below " + std::to_string(stage.max_frequency) + " Hz";
        }
        log::info("stage " + std::to_string(si + 1) + "/" + std::to_string(cfg.stages.size()) +
                  ": data and wavelet " + band);
      }
    } else {
      filter.reset();
      hooks.filter = nullptr;
    }
    stage_min_frequency = stage.min_frequency;
    stage_max_frequency = stage.max_frequency;
    inject_wavelet();
    for (; done < stage_end; ++done) {
      const long it = done + 1;
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<int> minibatch = draw_batch(cfg.seed, it, nshots, batch);
      plan = parallel::plan_shots(minibatch, comm.rank(), comm.size());
      if (estimation.enabled && estimation.every == WaveletEstimation::Every::iteration) {
        estimate_wavelet(it, minibatch, plan);
      } else if (estimation.enabled && done == stage_start) {  // every stage, from every shot
        estimate_wavelet(it, all_shots, parallel::plan_shots(all_shots, comm.rank(), comm.size()));
      }
      const StepInfo info = opt.step(model, gradient, objective);
      if (!std::isfinite(info.misfit)) {
        throw RuntimeError("iteration " + std::to_string(it) + ": the misfit is not finite");
      }
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      ++iterations_this_run;
      const double per_it =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count() /
          double(iterations_this_run);
      for (int s : plan.shots) dead_per_shot[std::size_t(s)] = shot_gradient.shot_dead_traces(s);
      state.history.push_back(HistoryRow{it, int(si) + 1, info.misfit, info.gradient_norm,
                                         info.step, secs, shot_gradient.dead_traces()});
      char line[256];
      std::snprintf(line, sizeof line,
                    "iteration %ld/%ld (stage %zu/%zu): misfit %.6e, |g| %.3e, step %.3g m/s, "
                    "%.2f s/iteration, ETA %s",
                    it, total, si + 1, cfg.stages.size(), info.misfit, info.gradient_norm,
                    info.step, secs, seconds_text(per_it * double(total - it)).c_str());
      if (root) log::info(line);
      if (root && iterations_this_run == 1 && shot_gradient.dead_traces() > 0) {
        log::warn("observed: " + std::to_string(shot_gradient.dead_traces()) +
                  " dead traces (all zero, or NaN/Inf) among iteration " + std::to_string(it) +
                  "'s shots excluded from the misfit (gradient.selection.dead_traces)");
      }
      if (root) observer.iteration_done(state.history);
      if (root && cfg.output_every > 0 && it % cfg.output_every == 0) {
        std::vector<ParameterSnapshot> snapshots(np);
        for (std::size_t k = 0; k < np; ++k) {
          snapshots[k].parameter = params[k];
          snapshots[k].model = to_host(physical_block(model, k));
          // The gradient with respect to the physical parameter (J per its unit).
          DeviceVector<T> gk = block(gradient, k);
          if (scale[k] != 1.0) {
            scaled_copy(gk, physical[k], T(scale[k]));
            gk = physical[k];
          }
          snapshots[k].gradient = to_host(gk);
        }
        observer.snapshot(it, g, snapshots);
      }
      const bool stopping = cfg.stop_after > 0 && iterations_this_run >= cfg.stop_after;
      if ((cfg.checkpoint_every > 0 && it % cfg.checkpoint_every == 0) || it == total || stopping) {
        auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), model);
        state.model.assign(h.data(), h.data() + np * ncells);
        state.optimizer = opt.save();
        state.iteration = it;
        if (estimation.enabled && per_shot) {
          state.shot_wavelets = wavelets;
        } else if (estimation.enabled) {
          state.wavelet = wavelets[0];
        }
        if (root) observer.checkpoint(state);
      }
      if (stopping && it < total) {
        if (root)
          log::info("stopping after " + std::to_string(iterations_this_run) +
                    " iterations as asked; continue with --resume");
        stopped_early = true;
        break;
      }
    }
    if (stopped_early) break;
    stage_start = stage_end;
  }
  FwiResult result;
  result.model = cfg.problem.model;
  for (std::size_t k = 0; k < np; ++k) {
    result.model.values(params[k]) = to_host(physical_block(model, k));
  }
  result.completed = !stopped_early;
  if (per_shot) {
    result.shot_wavelets = wavelets;
  } else {
    result.wavelet = wavelets[0];
  }
  comm.allreduce_max(dead_per_shot);  // a shot's count from any rank that staged it
  for (double d : dead_per_shot) result.dead_traces += d > 0 ? long(d) : 0;
  if (root && result.completed) observer.finished(result.model, params);
  for (const HistoryRow& r : state.history) result.misfits.push_back(r.misfit);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  result.reduce_seconds = shot_gradient.reduce_seconds();
  return result;
}

template <class T>
FwiResult run_fwi(const FwiConfig& config, const HostArray3<T>& observed, FwiObserver& observer,
                  const parallel::Communicator& comm) {
  return run_fwi<T>(config, ObservedArray<T>(observed), observer, comm);
}

template <class T>
FwiResult run_fwi(const FwiConfig& config, const ObservedTraces& observed,
                  const parallel::Communicator& comm) {
  FwiObserver nothing_kept;
  return run_fwi<T>(config, observed, nothing_kept, comm);
}

template <class T>
FwiResult run_fwi(const FwiConfig& config, const HostArray3<T>& observed,
                  const parallel::Communicator& comm) {
  FwiObserver nothing_kept;
  return run_fwi<T>(config, ObservedArray<T>(observed), nothing_kept, comm);
}

template FwiResult run_fwi<float>(const FwiConfig&, const ObservedTraces&, FwiObserver&,
                                  const parallel::Communicator&);
template FwiResult run_fwi<float>(const FwiConfig&, const HostArray3<float>&, FwiObserver&,
                                  const parallel::Communicator&);
template FwiResult run_fwi<float>(const FwiConfig&, const ObservedTraces&,
                                  const parallel::Communicator&);
template FwiResult run_fwi<float>(const FwiConfig&, const HostArray3<float>&,
                                  const parallel::Communicator&);
template FwiResult run_fwi<double>(const FwiConfig&, const ObservedTraces&, FwiObserver&,
                                   const parallel::Communicator&);
template FwiResult run_fwi<double>(const FwiConfig&, const HostArray3<double>&, FwiObserver&,
                                   const parallel::Communicator&);
template FwiResult run_fwi<double>(const FwiConfig&, const ObservedTraces&,
                                   const parallel::Communicator&);
template FwiResult run_fwi<double>(const FwiConfig&, const HostArray3<double>&,
                                   const parallel::Communicator&);

}  // namespace pwave
