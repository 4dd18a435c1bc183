// The pwave executable on 3D decks: `pwave check` of inputs/forward_3d_small.yaml (grid, padded
// grid, memory, steps), a forward run feeding a gradient run, and what 3D lacks refused with
// exit 2.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>

#include "cli_fixtures.hpp"
#include "pwave/io/npy.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cli_test;

std::string edit_text(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}
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
  // Wavefields 2 x 129 x 129 x 144 float32 (order 8: halo 4 each side; x lines of 129 values
  // padded, host backends: to 144, 9 cache lines) = 18.3 MB; CPML 3 arrays on six 14-cell
  // strips (10-cell layer + stencil radius 4) of 121 x 121 cells.
  EXPECT_TRUE(contains(
      r.out, "wavefields " + mb(2.0 * 129 * 129 * padded_row(129) * 4) + " MB, CPML 14.1 MB"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "MB on the device")) << r.out;

  // The resolved deck checks again to the same deck.
  const fs::path again = dir / "resolved.yaml";
  write_file(again, r.out);
  const Result r2 = pwave("check '" + again.string() + "'", dir);
  ASSERT_EQ(r2.code, 0) << r2.err;
  EXPECT_TRUE(contains(r2.out, "# grid: 101 x 101 x 101")) << r2.out;
}

TEST(Cli3D, ForwardThenGradientThenFwiEndToEnd) {
  // A small 3D survey: forward modelling writes the observed data, then the gradient task of a
  // slower model against them writes a [nz, ny, nx] gradient (boundary storage by default),
  // and an inversion from that model writes 3D models.
  const auto dir = scratch_dir("gradient_3d");
  const fs::path out = dir / "out";
  const std::string common =
      "model: {shape: [21, 11, 31], spacing: 10.0, vp: 2000.0}\n"
      "time: {dt: 0.001, nt: 200}\n"
      "wavelet: {peak_frequency: 10.0}\n"
      "boundary: {width: 6}\n"
      "acquisition:\n"
      "  sources: {x: 100.0, y: 50.0, z: 20.0}\n"
      "  receivers: {x: {start: 0, step: 10, count: 31}, y: [0, 50, 100], z: 10.0}\n";
  const fs::path forward = dir / "forward.yaml";
  write_file(forward, "task: forward\n" + common + "output: {directory: '" +
                          (out / "fwd").string() + "'}\n");
  const Result f = pwave("run --no-plots '" + forward.string() + "'", dir);
  ASSERT_EQ(f.code, 0) << f.err;
  const pwave::io::NpyArray traces = pwave::io::read_npy((out / "fwd" / "receivers.npy").string());
  EXPECT_EQ(traces.shape, (std::vector<std::size_t>{1, 93, 200}));

  const fs::path gradient = dir / "gradient.yaml";
  write_file(gradient, "task: gradient\n" + edit_text(common, "vp: 2000.0", "vp: 1900.0") +
                           "observed: {file: '" + (out / "fwd" / "receivers.npy").string() +
                           "'}\noutput: {directory: '" + (out / "grad").string() + "'}\n");
  const Result g = pwave("run --no-plots '" + gradient.string() + "'", dir);
  ASSERT_EQ(g.code, 0) << g.err;
  const pwave::io::NpyArray grad = pwave::io::read_npy((out / "grad" / "gradient.npy").string());
  EXPECT_EQ(grad.shape, (std::vector<std::size_t>{21, 11, 31}));
  const YAML::Node summary = YAML::LoadFile((out / "grad" / "summary.json").string());
  EXPECT_EQ(summary["storage"].as<std::string>(), "boundary");
  EXPECT_GT(summary["misfit"].as<double>(), 0.0);
  EXPECT_GT(summary["gradient_max_abs"].as<double>(), 0.0);

  // An inversion of the same data: two L-BFGS iterations, 3D models and gradients written.
  const fs::path fwi = dir / "fwi.yaml";
  write_file(fwi, "task: fwi\n" + edit_text(common, "vp: 2000.0", "vp: 1900.0") +
                      "observed: {file: '" + (out / "fwd" / "receivers.npy").string() +
                      "'}\ninversion: {iterations: 2, optimizer: {type: lbfgs, learning_rate: "
                      "20.0}, bounds: [1500, 2500], smoothing: 10.0, source_taper: 20.0, "
                      "output_every: 1}\noutput: {directory: '" +
                      (out / "fwi").string() + "'}\n");
  const Result w = pwave("run --no-plots '" + fwi.string() + "'", dir);
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_EQ(pwave::io::read_npy((out / "fwi" / "model_final.npy").string()).shape,
            (std::vector<std::size_t>{21, 11, 31}));
  EXPECT_EQ(pwave::io::read_npy((out / "fwi" / "gradient_0001.npy").string()).shape,
            (std::vector<std::size_t>{21, 11, 31}));

  // Not yet in 3D: strided or compressed full histories (exit 2 naming the key).
  expect_one_error_line(
      pwave("check '" + gradient.string() + "' --set gradient.storage=full --set gradient.stride=2",
            dir),
      2,
      "--set: 'gradient.stride': 3D acoustic gradients keep every step (stride 1) in "
      "this version");
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
