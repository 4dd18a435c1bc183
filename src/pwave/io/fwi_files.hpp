#pragma once
// The FWI observer that writes pwave's output folder.

#include <string>

#include "pwave/inversion/fwi_observer.hpp"

namespace pwave::io {

/// Writes an inversion's outputs into `directory` (created on the first write), every file
/// atomically, array files as .npy in precision T:
///   history.csv        "iteration,stage,misfit,gradient_norm,step,seconds,dead_traces", rewritten
///                      after every iteration;
///   model_NNNN.npy, gradient_NNNN.npy  every output_every iterations (NNNN from 0001), shape
///                      [nz, nx] or [nz, ny, nx]; a parameter other than vp inserts its name
///                      (model_rho_NNNN.npy, gradient_rho_NNNN.npy, model_vs_NNNN.npy,
///                      gradient_vs_NNNN.npy);
///   model_final.npy (model_rho_final.npy, model_vs_final.npy)  after the last iteration;
///   wavelet_NNNN.npy, wavelet_estimate.npy  with wavelet estimation, each time the wavelet
///                      changes: the estimate iteration NNNN starts from, shape [nt] ([shots, nt]
///                      when every shot has its own wavelet), and the same as the latest
///                      estimate;
///   checkpoint.bin     the state to resume from (io/fwi_checkpoint.hpp).
/// With `resume`, resume_point() reads checkpoint.bin from the directory (a missing one is a
/// warning: the run starts from the initial model).
template <class T>
class FwiFiles : public FwiObserver {
 public:
  FwiFiles(std::string directory, bool resume);

  std::optional<ResumePoint> resume_point() override;
  void started(const std::vector<HistoryRow>& history) override;
  void iteration_done(const std::vector<HistoryRow>& history) override;
  void snapshot(long iteration, const Grid& grid,
                const std::vector<ParameterSnapshot>& parameters) override;
  void checkpoint(const FwiState& state) override;
  void wavelet(long iteration, const std::vector<double>& wavelet) override;
  void shot_wavelets(long iteration, const std::vector<std::vector<double>>& wavelets) override;
  void finished(const Model& model, const std::vector<physics::Parameter>& parameters) override;

  /// The path of a file in the directory.
  std::string path(const std::string& name) const;

 private:
  std::string directory_;
  bool resume_ = false;
};

}  // namespace pwave::io
