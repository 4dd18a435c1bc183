#pragma once
// Shared helpers of the command-line tests: running pwave, reading outputs, scratch folders.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "backends/launch.hpp"
#include "pwave/core/types.hpp"

namespace cli_test {

/// Values of an x line of `values` as this build's backend allocates it (padded:
/// backend::padded_row_length), for the memory figures `pwave check` prints.
inline int padded_row(int values, int value_bytes = 4) {
  return ::pwave::backend::padded_row_length<::pwave::ExecSpace>(values, value_bytes);
}

/// Bytes as `pwave check` prints megabytes (2^20 bytes, one decimal).
inline std::string mb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", bytes / (1024.0 * 1024.0));
  return buf;
}

struct Result {
  int code = -1;
  std::string out, err;
};

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::path(PWAVE_BINARY_DIR) / "test-scratch" / "driver" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// Runs `pwave <args>` (args already shell-quoted) in the source folder, capturing both streams.
inline Result pwave(const std::string& args, const std::filesystem::path& scratch) {
  const auto out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string cmd = "cd '" + std::string(PWAVE_SOURCE_DIR) + "' && '" + PWAVE_EXE + "' " +
                          args + " > '" + out.string() + "' 2> '" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// Exactly one line on stderr: "pwave: error: ...".
inline void expect_one_error_line(const Result& r, int code, const std::string& part) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_EQ(r.err.rfind("pwave: error: ", 0), 0u) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_TRUE(contains(r.err, part)) << r.err;
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

/// A deck of task `task` on a 41 x 61 grid of 10 m (constant 2000 m/s for forward, with a
/// 2200 m/s disc at (300, 200) m otherwise), 150 steps of 1 ms, 10 Hz Ricker, order 4, CPML 10,
/// SEG-Y output into `out_dir`; `acquisition` is the acquisition section's body (indented
/// lines), `extra` appended (observed, ...). The per-shot geometry tests' deck.
inline std::string survey_deck(const std::string& task, const std::filesystem::path& out_dir,
                               const std::string& acquisition, const std::string& extra) {
  return "task: " + task +
         "\n"
         "model: {shape: [41, 61], spacing: 10.0, vp: " +
         (task == "forward" ? "2000.0"
                            : "{constant: 2000.0, anomalies: [{x: 300, z: 200, "
                              "radius: 60, vp: 2200}]}") +
         "}\n"
         "precision: float32\n"
         "time: {dt: 0.001, nt: 150}\n"
         "wavelet: {type: ricker, peak_frequency: 10.0, delay: 0.07}\n"
         "acquisition:\n" +
         acquisition +
         "physics: {order: 4}\n"
         "boundary: {type: cpml, width: 10}\n"
         "output: {directory: '" +
         out_dir.string() + "', segy: true}\n" + extra;
}

inline bool has_partial_files(const std::filesystem::path& dir) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (contains(e.path().filename().string(), ".partial")) return true;
  }
  return false;
}

}  // namespace cli_test
