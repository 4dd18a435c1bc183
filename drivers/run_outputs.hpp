#pragma once
// What `pwave run` writes besides the task's own results: the list of result files (removed
// when a run starts, or when it fails part-way), run.json, small JSON helpers and the plots.

#include <filesystem>
#include <string>
#include <vector>

#include "pwave/core/types.hpp"
#include "pwave/io/deck.hpp"

namespace pwave::cli {

/// Removes the results of an earlier run from `dir` (receivers, gradients, models, history,
/// checkpoint, run.json, summary.json, figures); logs each removal.
void remove_stale_results(const std::filesystem::path& dir);

/// Files a run writes under their final names. If destroyed before commit(), removes them all:
/// the folder then holds no result of a failed run. commit() logs "wrote ..." for each.
class ResultFiles {
 public:
  explicit ResultFiles(std::filesystem::path dir) : dir_(std::move(dir)) {}
  ~ResultFiles();
  ResultFiles(const ResultFiles&) = delete;
  ResultFiles& operator=(const ResultFiles&) = delete;
  /// Records `name` as written (call just before writing it) and returns its path.
  std::string add(const std::string& name);
  void commit();

 private:
  std::filesystem::path dir_;
  std::vector<std::filesystem::path> files_;
  bool committed_ = false;
};

/// Writes traces [shot][receiver][time] as `name` (.npy). When the shots have different numbers
/// of receivers, the array is padded to the widest shot (zero rows) and receiver_counts.npy
/// ([shot] int32) says how many rows of each shot are traces.
template <class T>
void write_traces_npy(ResultFiles& files, const std::string& name, const HostArray3<T>& traces,
                      const std::vector<ShotGeometry>& shots);

/// Writes modelled traces [shot][receiver][time] of the deck's shots as synthetic.npy
/// (write_traces_npy) and, with output.segy, as synthetic.segy: with SEG-Y observed data on the
/// data's own time axis with their trace headers (io::write_synthetic_segy), else as pwave's
/// shot gathers.
template <class T>
void write_synthetics(ResultFiles& files, const io::Deck& deck, const HostArray3<T>& synthetic);

/// Writes the injected source time function as wavelet.npy in precision T: [time], or
/// [shot, time] when the shots have their own (ForwardProblem::shot_wavelets).
template <class T>
void write_wavelet_npy(ResultFiles& files, const ForwardProblem& problem);

/// `value` as a JSON number (shortest form that reads back exactly; null if not finite).
std::string json_number(double value);
/// `text` as a JSON string, quoted and escaped.
std::string json_string(const std::string& text);

/// Writes run.json, the run's description for tools/pwave-plot: task, precision, dt, nt,
/// dimension (2 or 3), nz, [ny,] nx, dz, [dy,] dx, sources [[x, z], ...], receivers (shot 0's)
/// [[x, z], ...] (3D: ny, dy and [x, y, z] triples), shared_receivers (whether every shot has
/// shot 0's receivers), output_every, observed_file (absolute path or "") and true_model (bool).
void write_run_json(const io::Deck& deck, const std::filesystem::path& dir);

/// Runs `python3 <tools>/pwave-plot <dir>` when the tool, python3 and matplotlib exist (the
/// tools folder is PWAVE_TOOLS_DIR from the environment, else the executable's folder when it
/// holds pwave-plot (an installed pwave), else the one of the source tree).
/// A missing tool or Python is a log line; a failing tool is a warning, never an error.
void make_plots(const std::filesystem::path& dir);

}  // namespace pwave::cli
