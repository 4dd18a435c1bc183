// The pwave executable on 3D decks: `pwave check` of inputs/forward_3d_small.yaml (grid, padded
// grid, memory, steps) and the 2D-only tasks refused with exit 2.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>

#include "cli_fixtures.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cli_test;
using cli_test::pwave;  // the function, not the namespace

TEST(Cli3D, CheckPrintsGridPaddedGridMemoryAndSteps) {
  const auto dir = scratch_dir("check_3d");
  const Result r = pwave("check inputs/forward_3d_small.yaml", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  // The output is YAML (figures are comments): the resolved deck with 3 entries per shape.
  const YAML::Node resolved = YAML::Load(r.out);
  EXPECT_EQ(resolved["model"]["shape"].size(), 3u);
  EXPECT_EQ(resolved["boundary"]["width"]["front"].as<int>(), 10);
  EXPECT_EQ(resolved["boundary"]["width"]["back"].as<int>(), 10);
  EXPECT_EQ(resolved["acquisition"]["receivers"]["x"].size(), 189u);  // 21 x 9 carpet
  EXPECT_EQ(resolved["acquisition"]["receivers"]["y"].size(), 189u);
  EXPECT_EQ(resolved["acquisition"]["sources"]["y"].as<double>(), 400.0);

  EXPECT_TRUE(contains(r.out, "# grid: 101 x 101 x 101 = 1030301 cells (nz x ny x nx)")) << r.out;
  EXPECT_TRUE(contains(r.out, "dz = 8 m, dy = 8 m, dx = 8 m")) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "(10/10/10/10/10/10 top/bottom/left/right/front/back): "
                       "121 x 121 x 121 = 1771561 cells"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "# run: 2 shots x 189 receivers, 300 steps")) << r.out;
  EXPECT_TRUE(contains(r.out, "1.06e+09 cell updates")) << r.out;
  // The 3D stability limit (dy included) and dispersion figures.
  EXPECT_TRUE(contains(r.out, "largest stable dt = 0.00181 s")) << r.out;
  EXPECT_TRUE(contains(r.out, "5.56 points per wavelength")) << r.out;
  // Wavefields 2 x 129^3 float32 (order 8: halo 4 each side); CPML 3 arrays on six 10-cell
  // strips of 121 x 121 cells.
  EXPECT_TRUE(contains(r.out, "wavefields 16.4 MB, CPML 10.1 MB")) << r.out;
  EXPECT_TRUE(contains(r.out, "MB on the device")) << r.out;

  // The resolved deck checks again to the same deck.
  const fs::path again = dir / "resolved.yaml";
  write_file(again, r.out);
  const Result r2 = pwave("check '" + again.string() + "'", dir);
  ASSERT_EQ(r2.code, 0) << r2.err;
  EXPECT_TRUE(contains(r2.out, "# grid: 101 x 101 x 101")) << r2.out;
}

TEST(Cli3D, GradientAndFwiOfA3DModelExitWithTwo) {
  const auto dir = scratch_dir("gradient_3d");
  const fs::path out = dir / "out";
  const std::string deck_text =
      "task: gradient\n"
      "model: {shape: [21, 11, 31], spacing: 10.0, vp: 2000.0}\n"
      "time: {dt: 0.001, nt: 200}\n"
      "wavelet: {peak_frequency: 10.0}\n"
      "acquisition:\n"
      "  sources: {x: 100.0, y: 50.0, z: 20.0}\n"
      "  receivers: {x: {start: 0, step: 10, count: 31}, y: [0, 50, 100], z: 10.0}\n"
      "output: {directory: '" +
      out.string() +
      "'}\n"
      "observed: {file: obs.npy}\n";
  const fs::path deck = dir / "deck.yaml";
  write_file(deck, deck_text);
  for (const char* command : {"check", "run --no-plots"}) {
    expect_one_error_line(
        pwave(std::string(command) + " '" + deck.string() + "'", dir), 2,
        deck.string() + ":1: 'task': 3D models support task: forward only in this version");
  }
  expect_one_error_line(
      pwave("check inputs/forward_3d_small.yaml --set task=fwi", dir), 2,
      "--set: 'task': 3D models support task: forward only in this version (this deck has "
      "task: fwi");
  EXPECT_FALSE(fs::exists(out)) << "a deck error must not touch the output folder";
}

TEST(Cli3D, YOfA2DModelExitsWithTwo) {
  const auto dir = scratch_dir("y_2d");
  expect_one_error_line(
      pwave("check inputs/forward_small.yaml --set acquisition.receivers.y=0", dir), 2,
      "--set: 'acquisition.receivers.y': applies to 3D models only");
  expect_one_error_line(
      pwave("check inputs/forward_small.yaml --set 'boundary.width={back: 3}'", dir), 2,
      "--set: 'boundary.width.back': applies to 3D models only");
}

}  // namespace
