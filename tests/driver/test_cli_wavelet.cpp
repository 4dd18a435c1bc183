// `pwave run` with wavelet.estimate: data modelled with another wavelet are inverted with the
// wavelet estimated every iteration, the estimates are written (and resumed), and misplaced or
// bad keys exit 2 naming the key.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "cli_fixtures.hpp"
#include "pwave/io/npy.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cli_test;
using cli_test::pwave;  // the function, not the namespace

// A small 2D problem; `wavelet` and `task` vary. 400 samples hold every arrival whole: the
// estimate assumes traces that are not cut off.
std::string deck(const std::string& task, const std::string& wavelet, const fs::path& out_dir) {
  return "task: " + task +
         "\n"
         "model: {shape: [41, 61], spacing: 10.0, vp: 2000.0}\n"
         "time: {dt: 0.001, nt: 400}\n"
         "wavelet: " +
         wavelet +
         "\n"
         "acquisition:\n"
         "  sources: {x: [200.0, 400.0], z: 100.0}\n"
         "  receivers: {x: {start: 100, step: 100, count: 5}, z: 50.0}\n"
         "physics: {order: 4}\n"
         "boundary: {type: cpml, width: 10}\n"
         "output: {directory: '" +
         out_dir.string() + "'}\n";
}

std::string fwi_deck(const fs::path& observed, const fs::path& out_dir) {
  return deck("fwi",
              "{type: ricker, peak_frequency: 14.0, delay: 0.1, estimate: {every: iteration}}",
              out_dir) +
         "observed: {file: '" + observed.string() +
         "'}\n"
         "inversion: {iterations: 3, bounds: [1500.0, 3000.0]}\n";
}

double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
  return ab / std::sqrt(aa * bb);
}

// Data of a 10 Hz Ricker of amplitude 2.5 peaking at 0.13 s, inverted from a 14 Hz Ricker of
// amplitude 1 peaking at 0.1 s, starting in the true model: the estimate is the true wavelet to
// the model's drift (measured correlation 0.99998 at iteration 1, 0.99974 at iteration 3;
// -0.43 for the initial wavelet). Stopped after 2 iterations and resumed.
TEST(CliWavelet, FwiEstimatesAndWritesTheWavelet) {
  const auto dir = scratch_dir("wavelet_estimate");
  write_file(dir / "forward.yaml",
             deck("forward", "{type: ricker, peak_frequency: 10.0, delay: 0.13, amplitude: 2.5}",
                  dir / "data"));
  ASSERT_EQ(pwave("run --no-plots '" + (dir / "forward.yaml").string() + "'", dir).code, 0);
  const fs::path out = dir / "out";
  write_file(dir / "fwi.yaml", fwi_deck(dir / "data" / "receivers.npy", out));
  const std::string run = "run --no-plots '" + (dir / "fwi.yaml").string() + "'";
  Result r = pwave(run + " --stop-after 2", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  r = pwave(run + " --resume", dir);
  ASSERT_EQ(r.code, 0) << r.err;

  const std::vector<double> truth =
      pwave::io::read_npy((dir / "data" / "wavelet.npy").string()).data;
  const std::vector<double> initial = pwave::io::read_npy((out / "wavelet.npy").string()).data;
  const pwave::io::NpyArray latest = pwave::io::read_npy((out / "wavelet_estimate.npy").string());
  EXPECT_EQ(latest.shape, (std::vector<std::size_t>{400}));
  EXPECT_EQ(latest.dtype, "<f4");
  for (const char* name : {"wavelet_0001.npy", "wavelet_0002.npy", "wavelet_0003.npy"}) {
    EXPECT_TRUE(fs::exists(out / name)) << name;
  }
  EXPECT_EQ(read_text(out / "wavelet_0003.npy"), read_text(out / "wavelet_estimate.npy"));
  const double c = correlation(latest.data, truth);
  ::testing::Test::RecordProperty("one_minus_correlation", std::to_string(1 - c));
  EXPECT_GT(c, 0.9995);
  EXPECT_LT(correlation(initial, truth), 0.0);
  const std::string log = read_text(out / "pwave.log") + read_text(out / "pwave.previous.log");
  EXPECT_TRUE(contains(log, "wavelet estimated every iteration")) << log;
  EXPECT_TRUE(contains(log, "iteration 3: wavelet estimated from 2 shots")) << log;
  const std::string resolved = read_text(out / "deck.resolved.yaml");
  EXPECT_TRUE(contains(resolved, "estimate: {every: iteration, water_level: 0.001}")) << resolved;

  // A new run removes the estimates of the earlier one.
  write_file(out / "wavelet_0099.npy", "stale");
  ASSERT_EQ(pwave(run + " --set inversion.iterations=1", dir).code, 0);
  EXPECT_FALSE(fs::exists(out / "wavelet_0099.npy"));
  EXPECT_FALSE(fs::exists(out / "wavelet_0002.npy"));
  EXPECT_TRUE(fs::exists(out / "wavelet_0001.npy"));
}

TEST(CliWavelet, MisplacedOrBadKeysExit2) {
  const auto dir = scratch_dir("wavelet_errors");
  const fs::path yaml = dir / "forward.yaml";
  write_file(yaml, deck("forward", "{type: ricker, peak_frequency: 10.0, estimate: true}", dir));
  expect_one_error_line(pwave("check '" + yaml.string() + "'", dir), 2,
                        "forward.yaml:4: 'wavelet.estimate': applies to task fwi only (this deck "
                        "has task: forward)");
  write_file(dir / "fwi.yaml", fwi_deck(dir / "missing.npy", dir / "out"));
  expect_one_error_line(
      pwave(
          "run --no-plots '" + (dir / "fwi.yaml").string() + "' --set wavelet.estimate.every=epoch",
          dir),
      2, "--set: 'wavelet.estimate.every': expected iteration or stage, got 'epoch'");
}

}  // namespace
