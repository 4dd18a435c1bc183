#include "run_outputs.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

#include "pwave/core/log.hpp"
#include "pwave/io/atomic_file.hpp"
#include "pwave/io/npy.hpp"
#include "pwave/io/segy.hpp"
#include "pwave/io/segy_gathers.hpp"

#ifndef PWAVE_TOOLS_DIR
#define PWAVE_TOOLS_DIR ""
#endif

namespace fs = std::filesystem;

namespace pwave::cli {
namespace {

// Results of any task; an earlier run's files must not sit beside this run's.
const char* const result_files[] = {
    "receivers.npy",      "receivers.segy",    "wavelet.npy",
    "gradient.npy",       "synthetic.npy",     "summary.json",
    "run.json",           "observed.npy",      "true_model.npy",
    "true_model_rho.npy", "initial_model.npy", "initial_model_rho.npy",
    "history.csv",        "checkpoint.bin",    "receiver_counts.npy",
    "synthetic.segy",     "true_model_vs.npy", "initial_model_vs.npy"};
// model_final.npy, model_0005.npy, gradient_0005.npy, gradient_rho.npy, gradient_vs.npy,
// model_rho_final.npy, gradient_rho_0005.npy, model_vs_0005.npy, wavelet_0005.npy,
// wavelet_estimate.npy, figures.
const std::regex result_pattern(
    R"((model|gradient)(_rho|_vs)?_[A-Za-z0-9]+\.npy|wavelet_([0-9]+|estimate)\.npy|.*\.png)");

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

void remove_stale_results(const fs::path& dir) {
  std::vector<fs::path> stale;
  for (const char* name : result_files) stale.push_back(dir / name);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file(ec) && std::regex_match(name, result_pattern)) {
      stale.push_back(entry.path());
    }
  }
  for (const fs::path& f : stale) {
    if (fs::is_regular_file(f, ec) && fs::remove(f, ec)) {
      log::info("removed " + f.filename().string() + " of an earlier run");
    }
  }
}

ResultFiles::~ResultFiles() {
  if (committed_) return;
  for (const fs::path& f : files_) {
    std::error_code ec;
    fs::remove(f, ec);
  }
}

std::string ResultFiles::add(const std::string& name) {
  files_.push_back(dir_ / name);
  return files_.back().string();
}

void ResultFiles::commit() {
  committed_ = true;
  for (const fs::path& f : files_) log::info("wrote " + f.string());
}

template <class T>
void write_traces_npy(ResultFiles& files, const std::string& name, const HostArray3<T>& traces,
                      const std::vector<ShotGeometry>& shots) {
  io::write_npy(files.add(name), traces.data(),
                {traces.extent(0), traces.extent(1), traces.extent(2)});
  if (same_receiver_counts(shots)) return;
  std::vector<std::int32_t> counts;
  for (const ShotGeometry& s : shots) counts.push_back(std::int32_t(s.receivers.size()));
  io::write_npy(files.add("receiver_counts.npy"), counts.data(), {counts.size()});
}

template void write_traces_npy<float>(ResultFiles&, const std::string&, const HostArray3<float>&,
                                      const std::vector<ShotGeometry>&);
template void write_traces_npy<double>(ResultFiles&, const std::string&, const HostArray3<double>&,
                                       const std::vector<ShotGeometry>&);

template <class T>
void write_synthetics(ResultFiles& files, const io::Deck& deck, const HostArray3<T>& synthetic) {
  const ForwardProblem& p = deck.problem;
  write_traces_npy(files, "synthetic.npy", synthetic, p.shots);
  if (!deck.output.segy) return;
  const auto segy = std::dynamic_pointer_cast<const io::SegyTraces>(deck.observed.traces);
  if (segy) {
    io::write_synthetic_segy(files.add("synthetic.segy"), *segy, synthetic, p.dt);
  } else {
    const std::vector<float> f32(synthetic.data(), synthetic.data() + synthetic.size());
    io::write_shot_gathers_segy(files.add("synthetic.segy"), f32.data(), int(synthetic.extent(0)),
                                int(synthetic.extent(1)), int(synthetic.extent(2)), p.dt, p.shots,
                                p.model.grid.is_3d());
  }
}
template void write_synthetics<float>(ResultFiles&, const io::Deck&, const HostArray3<float>&);
template void write_synthetics<double>(ResultFiles&, const io::Deck&, const HostArray3<double>&);

template <class T>
void write_wavelet_npy(ResultFiles& files, const ForwardProblem& p) {
  if (p.shot_wavelets.empty()) {
    const std::vector<T> w(p.wavelet.begin(), p.wavelet.end());
    io::write_npy(files.add("wavelet.npy"), w.data(), {w.size()});
    return;
  }
  std::vector<T> w;
  for (const std::vector<double>& row : p.shot_wavelets) w.insert(w.end(), row.begin(), row.end());
  io::write_npy(files.add("wavelet.npy"), w.data(),
                {p.shot_wavelets.size(), p.shot_wavelets[0].size()});
}

template void write_wavelet_npy<float>(ResultFiles&, const ForwardProblem&);
template void write_wavelet_npy<double>(ResultFiles&, const ForwardProblem&);

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[64];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

std::string json_string(const std::string& text) {
  std::string s = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      s += '\\';
      s += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      s += buf;
    } else {
      s += char(c);
    }
  }
  return s + "\"";
}

/// The components the receivers record, as a JSON list in the order of shot 0's rows (["p"]
/// when no shot lists them).
std::string components_json(const ForwardProblem& p) {
  std::vector<Component> seen;
  if (!p.shots.empty()) {
    const ShotGeometry& shot = p.shots.front();
    for (std::size_t r = 0; r < shot.receivers.size(); ++r) {
      if (std::find(seen.begin(), seen.end(), shot.component(r)) == seen.end())
        seen.push_back(shot.component(r));
    }
  }
  if (seen.empty()) seen.push_back(Component::pressure);
  std::string s = "[";
  for (std::size_t i = 0; i < seen.size(); ++i) s += (i ? ", " : "") + json_string(name(seen[i]));
  return s + "]";
}

void write_run_json(const io::Deck& deck, const fs::path& dir) {
  const ForwardProblem& p = deck.problem;
  const Grid& g = p.model.grid;
  // [x, z] pairs in 2D, [x, y, z] triples in 3D.
  const bool three_d = g.is_3d();
  const auto points = [three_d](const std::vector<Position>& list) {
    std::string s = "[";
    for (std::size_t i = 0; i < list.size(); ++i) {
      s += (i ? ", [" : "[") + json_number(list[i].x) + ", " +
           (three_d ? json_number(list[i].y) + ", " : std::string()) + json_number(list[i].z) + "]";
    }
    return s + "]";
  };
  std::vector<Position> sources;
  for (const ShotGeometry& shot : p.shots) sources.push_back(shot.source);
  std::string parameters = "[";
  if (deck.task == "fwi") {
    for (physics::Parameter q : deck.inversion.parameters) {
      parameters += (parameters.size() > 1 ? ", " : "") + json_string(physics::name(q));
    }
  }
  parameters += "]";
  std::ostringstream j;
  j << "{\n"
    << "  \"task\": " << json_string(deck.task) << ",\n"
    << "  \"precision\": " << json_string(deck.precision) << ",\n"
    << "  \"equation\": " << json_string(physics::name(p.equation)) << ",\n"
    << "  \"source_type\": " << json_string(name(p.source_type)) << ",\n"
    << "  \"components\": " << components_json(p) << ",\n"
    << "  \"dt\": " << json_number(p.dt) << ",\n"
    << "  \"nt\": " << p.nt << ",\n"
    << "  \"dimension\": " << g.dimension << ",\n"
    << "  \"nz\": " << g.nz << ",\n";
  if (three_d) j << "  \"ny\": " << g.ny << ",\n";
  j << "  \"nx\": " << g.nx << ",\n"
    << "  \"dz\": " << json_number(g.dz) << ",\n";
  if (three_d) j << "  \"dy\": " << json_number(g.dy) << ",\n";
  j << "  \"dx\": " << json_number(g.dx) << ",\n"
    << "  \"sources\": " << points(sources) << ",\n"
    << "  \"receivers\": " << points(p.shots.front().receivers) << ",\n"
    << "  \"shared_receivers\": " << (shared_receivers(p.shots) ? "true" : "false") << ",\n"
    << "  \"output_every\": " << (deck.task == "fwi" ? deck.inversion.output_every : 0) << ",\n"
    << "  \"parameters\": " << parameters << ",\n"
    << "  \"observed_file\": " << json_string(deck.observed.file) << ",\n"
    << "  \"true_model\": " << (deck.has_true_model ? "true" : "false") << "\n"
    << "}\n";
  io::write_text_file((dir / "run.json").string(), j.str());
}

/// The plotting tool: $PWAVE_TOOLS_DIR/pwave-plot, else the one installed beside the executable
/// (`cmake --install` puts both in bin/), else the source tree's tools/pwave-plot.
static fs::path plot_tool() {
  const char* env = std::getenv("PWAVE_TOOLS_DIR");
  if (env && *env) return fs::path(env) / "pwave-plot";
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::is_regular_file(self.parent_path() / "pwave-plot", ec)) {
    return self.parent_path() / "pwave-plot";
  }
  return fs::path(PWAVE_TOOLS_DIR) / "pwave-plot";
}

void make_plots(const fs::path& dir) {
  const fs::path tool = plot_tool();
  std::error_code ec;
  if (!fs::is_regular_file(tool, ec)) {
    log::info("plots: skipped (no plotting tool at " + tool.string() + ")");
    return;
  }
  // The first python3 on PATH may lack matplotlib (a virtual environment, pyenv) while the
  // system one has it (Debian's python3-matplotlib): try both.
  std::string python;
  for (const char* candidate : {"python3", "/usr/bin/python3"}) {
    const std::string probe =
        std::string(candidate) + " -c 'import numpy, matplotlib' > /dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) {
      python = candidate;
      break;
    }
  }
  if (python.empty()) {
    log::info("plots: skipped (no python3 with numpy and matplotlib found)");
    return;
  }
  const std::string cmd = python + " " + shell_quote(tool.string()) + " " +
                          shell_quote(fs::absolute(dir, ec).string()) + " 2>&1";
  log::info("plots: " + cmd);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    log::warn("plots: cannot start python3; the results are complete, only figures are missing");
    return;
  }
  char line[4096];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string text = line;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    log::info("plots: " + text);
  }
  const int status = pclose(pipe);
  if (status != 0) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    log::warn("plots: pwave-plot failed (exit status " + std::to_string(code) +
              "); the results are complete, only figures are missing");
  } else {
    log::info("plots: done");
  }
}

}  // namespace pwave::cli
