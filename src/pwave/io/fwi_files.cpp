#include "pwave/io/fwi_files.hpp"

#include <cstdio>
#include <filesystem>
#include <utility>

#include "pwave/core/log.hpp"
#include "pwave/io/atomic_file.hpp"
#include "pwave/io/fwi_checkpoint.hpp"
#include "pwave/io/grid_file.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::io {
namespace {

/// The stems of a parameter's files: vp keeps the names of a velocity-only inversion
/// (model_NNNN.npy, gradient_NNNN.npy, model_final.npy); every other parameter inserts its name
/// (model_rho_NNNN.npy, gradient_rho_NNNN.npy, model_rho_final.npy; model_vs_NNNN.npy,
/// gradient_vs_NNNN.npy, model_vs_final.npy).
std::string stem(const char* kind, physics::Parameter p) {
  return p == physics::Parameter::vp ? std::string(kind)
                                     : std::string(kind) + "_" + physics::name(p);
}

std::string numbered(const std::string& stem, long iteration) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "_%04ld.npy", iteration);
  return stem + suffix;
}

}  // namespace

template <class T>
FwiFiles<T>::FwiFiles(std::string directory, bool resume)
    : directory_(std::move(directory)), resume_(resume) {}

template <class T>
std::string FwiFiles<T>::path(const std::string& name) const {
  return (std::filesystem::path(directory_) / name).string();
}

template <class T>
std::optional<ResumePoint> FwiFiles<T>::resume_point() {
  if (!resume_) return std::nullopt;
  const std::string file = path("checkpoint.bin");
  if (!std::filesystem::exists(file)) {
    log::warn("--resume: no checkpoint in " + directory_ + "; starting from the initial model");
    return std::nullopt;
  }
  return ResumePoint{read_checkpoint(file), file};
}

template <class T>
void FwiFiles<T>::started(const std::vector<HistoryRow>& history) {
  std::filesystem::create_directories(directory_);
  write_text_file(path("history.csv"), history_csv(history));
}

template <class T>
void FwiFiles<T>::iteration_done(const std::vector<HistoryRow>& history) {
  write_text_file(path("history.csv"), history_csv(history));
}

template <class T>
void FwiFiles<T>::snapshot(long iteration, const Grid& grid,
                           const std::vector<ParameterSnapshot>& parameters) {
  for (const ParameterSnapshot& p : parameters) {
    write_grid_npy<T>(path(numbered(stem("model", p.parameter), iteration)), grid, p.model);
    write_grid_npy<T>(path(numbered(stem("gradient", p.parameter), iteration)), grid, p.gradient);
  }
}

template <class T>
void FwiFiles<T>::checkpoint(const FwiState& state) {
  write_checkpoint(path("checkpoint.bin"), state);
}

template <class T>
void FwiFiles<T>::wavelet(long iteration, const std::vector<double>& wavelet) {
  std::filesystem::create_directories(directory_);
  const std::vector<T> w(wavelet.begin(), wavelet.end());
  write_npy(path(numbered("wavelet", iteration)), w.data(), {w.size()});
  write_npy(path("wavelet_estimate.npy"), w.data(), {w.size()});
}

template <class T>
void FwiFiles<T>::shot_wavelets(long iteration, const std::vector<std::vector<double>>& wavelets) {
  std::filesystem::create_directories(directory_);
  const std::size_t nt = wavelets.empty() ? 0 : wavelets[0].size();
  std::vector<T> w;
  w.reserve(wavelets.size() * nt);
  for (const std::vector<double>& row : wavelets) w.insert(w.end(), row.begin(), row.end());
  write_npy(path(numbered("wavelet", iteration)), w.data(), {wavelets.size(), nt});
  write_npy(path("wavelet_estimate.npy"), w.data(), {wavelets.size(), nt});
}

template <class T>
void FwiFiles<T>::finished(const Model& model, const std::vector<physics::Parameter>& parameters) {
  for (physics::Parameter p : parameters) {
    write_grid_npy<T>(path(stem("model", p) + "_final.npy"), model.grid, model.values(p));
  }
}

template class FwiFiles<float>;
template class FwiFiles<double>;

}  // namespace pwave::io
