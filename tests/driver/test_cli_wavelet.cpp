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
  EXPECT_TRUE(
      contains(resolved, "estimate: {every: iteration, water_level: 0.001, per_shot: false}"))
      << resolved;

  // A new run removes the estimates of the earlier one.
  write_file(out / "wavelet_0099.npy", "stale");
  ASSERT_EQ(pwave(run + " --set inversion.iterations=1", dir).code, 0);
  EXPECT_FALSE(fs::exists(out / "wavelet_0099.npy"));
  EXPECT_FALSE(fs::exists(out / "wavelet_0002.npy"));
  EXPECT_TRUE(fs::exists(out / "wavelet_0001.npy"));
}

// Per shot: data of two shots with their own wavelets (a forward deck reading a [2, nt]
// wavelet.file, which it writes back as wavelet.npy [2, nt]), inverted with
// wavelet.estimate.per_shot from one shared initial wavelet: wavelet_estimate.npy is [2, nt] and
// each row is its shot's wavelet; pwave check says so.
TEST(CliWavelet, FwiEstimatesOneWaveletPerShot) {
  const auto dir = scratch_dir("wavelet_per_shot");
  const int nt = 400;
  std::vector<double> rows(2 * nt);
  for (int s = 0; s < 2; ++s) {
    const double f = s == 0 ? 10.0 : 8.0, t0 = s == 0 ? 0.13 : 0.11, amp = s == 0 ? 2.5 : -1.5;
    for (int n = 0; n < nt; ++n) {
      const double a = M_PI * f * (n * 0.001 - t0);
      rows[std::size_t(s) * nt + n] = amp * (1 - 2 * a * a) * std::exp(-a * a);
    }
  }
  pwave::io::write_npy((dir / "rows.npy").string(), rows.data(), {2, std::size_t(nt)});
  write_file(dir / "forward.yaml",
             deck("forward", "{file: rows.npy, peak_frequency: 10.0}", dir / "data"));
  Result r = pwave("run --no-plots '" + (dir / "forward.yaml").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const pwave::io::NpyArray written = pwave::io::read_npy((dir / "data" / "wavelet.npy").string());
  EXPECT_EQ(written.shape, (std::vector<std::size_t>{2, std::size_t(nt)}));

  const fs::path out = dir / "out";
  std::string text = fwi_deck(dir / "data" / "receivers.npy", out);
  const std::string from = "estimate: {every: iteration}";
  text.replace(text.find(from), from.size(), "estimate: {every: iteration, per_shot: true}");
  write_file(dir / "fwi.yaml", text);
  r = pwave("check '" + (dir / "fwi.yaml").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "per_shot: true")) << r.out;
  EXPECT_TRUE(contains(r.out, "per shot (2 wavelets, each from its own traces)")) << r.out;
  r = pwave("run --no-plots '" + (dir / "fwi.yaml").string() + "' --set inversion.iterations=2",
            dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const pwave::io::NpyArray latest = pwave::io::read_npy((out / "wavelet_estimate.npy").string());
  ASSERT_EQ(latest.shape, (std::vector<std::size_t>{2, std::size_t(nt)}));
  EXPECT_EQ(pwave::io::read_npy((out / "wavelet_0001.npy").string()).shape, latest.shape);
  EXPECT_EQ(pwave::io::read_npy((out / "wavelet.npy").string()).shape,
            (std::vector<std::size_t>{std::size_t(nt)}));  // the initial, shared one
  const std::vector<double> first = pwave::io::read_npy((out / "wavelet_0001.npy").string()).data;
  for (int s = 0; s < 2; ++s) {
    const auto row = [&](const std::vector<double>& v) {
      return std::vector<double>(v.begin() + s * nt, v.begin() + (s + 1) * nt);
    };
    // From the true model at iteration 1; the model then drifts (5 traces per shot).
    const double c1 = correlation(row(first), row(rows)),
                 c2 = correlation(row(latest.data), row(rows));
    std::printf(
        "[ measured ] shot %d: 1 - correlation with its true wavelet %.2e (iteration 1), "
        "%.2e (iteration 2)\n",
        s, 1 - c1, 1 - c2);
    EXPECT_LT(1 - c1, 2e-4) << "shot " << s;  // measured 2.5e-5, 7.0e-5
    EXPECT_LT(1 - c2, 2e-3) << "shot " << s;  // measured 7.8e-4, 3.1e-4
  }
  const std::string log = read_text(out / "pwave.log");
  EXPECT_TRUE(contains(log, "per-shot wavelets estimated every iteration")) << log;

  // A table of the wrong number of rows exits 2 naming the key, file and line.
  pwave::io::write_npy((dir / "three.npy").string(), rows.data(), {1, std::size_t(nt)});
  write_file(dir / "bad.yaml", deck("forward", "{file: three.npy, peak_frequency: 10.0}", dir));
  expect_one_error_line(pwave("check '" + (dir / "bad.yaml").string() + "'", dir), 2,
                        "bad.yaml:4: 'wavelet.file': 'three.npy' holds 1 wavelets ([shots, nt] "
                        "rows) but the acquisition has 2 shots");
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
