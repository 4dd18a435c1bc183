#pragma once
// Shared helpers of the deck tests: a valid base deck, text edits, scratch folders and error
// capture. Line numbers of base_deck are relied on by the tests: keep them stable.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pwave/core/error.hpp"
#include "pwave/io/deck.hpp"

namespace pwave::test {

// One key per line so that tests can name the line of each error.
inline const char* base_deck =
    "task: forward\n"                                                // 1
    "precision: float32\n"                                           // 2
    "model:\n"                                                       // 3
    "  shape: [51, 61]\n"                                            // 4
    "  spacing: 10.0\n"                                              // 5
    "  vp: 2000.0\n"                                                 // 6
    "time: {dt: 0.001, nt: 300}\n"                                   // 7
    "wavelet: {type: ricker, peak_frequency: 10.0}\n"                // 8
    "acquisition:\n"                                                 // 9
    "  sources: {x: [100.0, 300.0], z: 20.0}\n"                      // 10
    "  receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}\n"  // 11
    "physics: {order: 8}\n"                                          // 12
    "boundary: {type: cpml, width: 20}\n"                            // 13
    "output: {directory: out}\n";                                    // 14

/// base_deck made an fwi deck: lines 1-14 as base_deck (task: fwi), then these.
inline std::string fwi_deck() {
  std::string text = base_deck;
  text.replace(0, 13, "task: fwi");
  return text +
         "true_model:\n"                                                                    // 15
         "  vp: {constant: 2000.0, anomalies: [{x: 300, z: 250, radius: 50, vp: 2200}]}\n"  // 16
         "inversion:\n"                                                                     // 17
         "  iterations: 5\n"                                                                // 18
         "  batch_size: 1\n"                                                                // 19
         "  optimizer: {type: adam, learning_rate: 10.0}\n"                                 // 20
         "  bounds: [1500.0, 3000.0]\n"                                                     // 21
         "  smoothing: 20.0\n"                                                              // 22
         "gradient: {storage: full}\n";                                                     // 23
}

/// base_deck made a gradient deck reading observed data from obs.npy (next to the deck):
/// lines 1-14 as base_deck (task: gradient), then line 15 `observed: {file: obs.npy}`.
inline std::string gradient_deck() {
  std::string text = base_deck;
  text.replace(0, 13, "task: gradient");
  return text + "observed: {file: obs.npy}\n";  // 15
}

/// `text` with the first `from` replaced by `to` (fails the test if `from` is absent).
inline std::string edit(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the deck";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// An empty scratch folder under the build tree, named after the test.
inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::path(PWAVE_BINARY_DIR) / "test-scratch" / "io" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// Writes `text` to `path`.
inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// Writes little-endian float32 values as a headerless file.
inline void write_raw_f32(const std::filesystem::path& path, const std::vector<float>& v) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
}

/// The InputError load_deck_text throws for `text` (path "deck.yaml"); fails if none.
struct CaughtError {
  bool thrown = false;
  std::string key, where, what;
};
inline CaughtError deck_error(const std::string& text, const std::vector<std::string>& sets = {},
                              const std::string& path = "deck.yaml") {
  CaughtError c;
  try {
    io::load_deck_text(text, path, sets);
  } catch (const InputError& e) {
    c.thrown = true;
    c.key = e.key();
    c.where = e.where();
    c.what = e.what();
  }
  EXPECT_TRUE(c.thrown) << "expected an InputError";
  return c;
}

}  // namespace pwave::test

/// Asserts an InputError naming `key` at `where` whose message contains `fragment`.
#define EXPECT_DECK_ERROR(caught, key_, where_, fragment)                        \
  do {                                                                           \
    const auto& c_ = (caught);                                                   \
    EXPECT_EQ(c_.key, key_) << c_.what;                                          \
    EXPECT_EQ(c_.where, where_) << c_.what;                                      \
    EXPECT_NE(c_.what.find(fragment), std::string::npos) << c_.what;             \
    EXPECT_EQ(c_.what.find('\n'), std::string::npos) << "one line: " << c_.what; \
  } while (0)
