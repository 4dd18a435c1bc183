#pragma once
// How run_fwi reports what it does: the library computes, an observer keeps (files, plots, a
// caller's own arrays). io::FwiFiles is the observer that writes pwave's output folder.

#include <optional>
#include <string>
#include <vector>

#include "pwave/grid/model.hpp"
#include "pwave/inversion/fwi_state.hpp"
#include "pwave/physics/equation.hpp"

namespace pwave {

/// One inverted parameter's model and gradient on the model grid ([nz][ny nx], physical units:
/// the model in m/s or kg/m^3, the gradient in misfit units per m/s or per kg/m^3, conditioned).
struct ParameterSnapshot {
  physics::Parameter parameter = physics::Parameter::vp;
  std::vector<double> model;
  std::vector<double> gradient;
};

/// A checkpoint to continue from, and where it came from (for error messages).
struct ResumePoint {
  FwiState state;
  std::string source;
};

/// Receives an inversion's progress and results. Every method has a default that does nothing,
/// so an observer overrides only what it keeps. run_fwi calls resume_point() on every rank and
/// everything else on rank 0 only (the one that writes), outside the time loop.
class FwiObserver {
 public:
  virtual ~FwiObserver() = default;
  /// The state to continue from, or nothing to start from the initial model. run_fwi refuses a
  /// state of another inversion (its fingerprint differs) with InputError("--resume", source).
  virtual std::optional<ResumePoint> resume_point() { return std::nullopt; }
  /// Before the first iteration of this run: the rows done before it (empty unless resumed).
  virtual void started(const std::vector<HistoryRow>& history) { (void)history; }
  /// After each iteration: every row so far, the last one the iteration just done.
  virtual void iteration_done(const std::vector<HistoryRow>& history) { (void)history; }
  /// Every InversionSettings::output_every iterations: each inverted parameter, in the order of
  /// InversionSettings::parameters.
  virtual void snapshot(long iteration, const Grid& grid,
                        const std::vector<ParameterSnapshot>& parameters) {
    (void)iteration, (void)grid, (void)parameters;
  }
  /// Every InversionSettings::checkpoint_every iterations, after the last one and when stopping
  /// early (FwiConfig::stop_after): the state a later resume_point() should return.
  virtual void checkpoint(const FwiState& state) { (void)state; }
  /// With wavelet estimation (WaveletEstimation), each time the wavelet changes: the estimate
  /// (nt samples, full band, before any stage's low-pass) that iteration `iteration` and the
  /// next ones use until the next change.
  virtual void wavelet(long iteration, const std::vector<double>& wavelet) {
    (void)iteration, (void)wavelet;
  }
  /// The same when every shot has its own wavelet (WaveletEstimation::per_shot, or
  /// ForwardProblem::shot_wavelets): every shot's, [shot][time] (wavelet() is not called then).
  virtual void shot_wavelets(long iteration, const std::vector<std::vector<double>>& wavelets) {
    (void)iteration, (void)wavelets;
  }
  /// After the last iteration (not when stopping early): the final model; `parameters` are the
  /// inverted ones (the others are as given).
  virtual void finished(const Model& model, const std::vector<physics::Parameter>& parameters) {
    (void)model, (void)parameters;
  }
};

}  // namespace pwave
