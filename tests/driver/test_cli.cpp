// The pwave executable end to end: help, version, check, bad decks (exit 2, one line naming the
// key and line), runs (outputs, shapes, no temporary files left), --set and failed runs.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_fixtures.hpp"
#include "pwave/core/version.hpp"
#include "pwave/io/npy.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cli_test;
using cli_test::pwave;  // the function, not the namespace

// A deck small enough to run in well under a second.
std::string tiny_deck(const fs::path& out_dir) {
  return "task: forward\n"
         "precision: float32\n"
         "model: {shape: [41, 61], spacing: 10.0, vp: 2000.0}\n"
         "time: {dt: 0.001, nt: 150}\n"
         "wavelet: {type: ricker, peak_frequency: 10.0, delay: 0.07}\n"
         "acquisition:\n"
         "  sources: {x: [200.0, 400.0], z: 100.0}\n"
         "  receivers: {x: {start: 100, step: 100, count: 5}, z: 50.0}\n"
         "physics: {order: 4}\n"
         "boundary: {type: cpml, width: 10}\n"
         "output: {directory: '" +
         out_dir.string() + "', segy: true}\n";
}

TEST(Cli, Help) {
  const auto dir = scratch_dir("help");
  const Result r = pwave("--help", dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(contains(r.out, "usage:"));
  EXPECT_TRUE(contains(r.out, "pwave run DECK.yaml"));
  EXPECT_TRUE(contains(r.out, "pwave check DECK.yaml"));
  EXPECT_TRUE(contains(r.out, "--set KEY=VALUE"));
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(pwave("check --help", dir).code, 0);
}

TEST(Cli, Version) {
  const auto dir = scratch_dir("version");
  const Result r = pwave("--version", dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(contains(r.out, std::string("pwave ") + pwave::version)) << r.out;
  EXPECT_TRUE(contains(r.out, std::string("Kokkos ") + pwave::kokkos_version)) << r.out;
  EXPECT_TRUE(contains(r.out, pwave::kokkos_flavour)) << r.out;
}

// `pwave --version` says how its host arrays are paged. Where the kernel gives transparent huge
// pages on request only (THP mode `madvise`) and glibc knows glibc.malloc.hugetlb, pwave has
// re-executed itself with that tunable set (backends/host_pages.hpp): its status says so, and
// PWAVE_HUGE_PAGES=0 keeps it from doing that.
TEST(Cli, VersionSaysHowHostArraysArePaged) {
  const auto dir = scratch_dir("huge_pages");
  const Result on = pwave("--version", dir);
  ASSERT_EQ(on.code, 0) << on.err;
  EXPECT_TRUE(contains(on.out, "host huge pages: ")) << on.out;
  setenv("PWAVE_HUGE_PAGES", "0", 1);
  const Result off = pwave("--version", dir);
  unsetenv("PWAVE_HUGE_PAGES");
  ASSERT_EQ(off.code, 0) << off.err;
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(thp, mode);
  bool tunable_known = false;
#ifdef __GLIBC__
  int major = 0, minor = 0;
  std::sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor);
  tunable_known = major > 2 || (major == 2 && minor >= 35);
#endif
  if (contains(mode, "[madvise]") && tunable_known && !std::getenv("GLIBC_TUNABLES")) {
    EXPECT_TRUE(contains(on.out, "host huge pages: on (glibc.malloc.hugetlb=1)")) << on.out;
    EXPECT_TRUE(contains(off.out, "host huge pages: off (PWAVE_HUGE_PAGES)")) << off.out;
  }
}

TEST(Cli, UsageErrorsExitWithTwo) {
  const auto dir = scratch_dir("usage");
  expect_one_error_line(pwave("", dir), 2, "no command given");
  expect_one_error_line(pwave("frobnicate deck.yaml", dir), 2, "unknown command 'frobnicate'");
  expect_one_error_line(pwave("run", dir), 2, "'pwave run' needs a deck file");
  expect_one_error_line(pwave("check inputs/forward_small.yaml --bogus", dir), 2,
                        "unknown option '--bogus'");
  expect_one_error_line(pwave("check inputs/forward_small.yaml --set", dir), 2, "--set needs");
  expect_one_error_line(pwave("check no/such/deck.yaml", dir), 2,
                        "no/such/deck.yaml: deck file not found");
}

TEST(Cli, CheckPrintsResolvedDeckAndFigures) {
  const auto dir = scratch_dir("check");
  const Result r = pwave("check inputs/forward_small.yaml", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // The whole output is YAML (figures are comments) and is the deck with defaults filled.
  const YAML::Node resolved = YAML::Load(r.out);
  EXPECT_EQ(resolved["task"].as<std::string>(), "forward");
  EXPECT_EQ(resolved["execution"]["check_interval"].as<int>(), 10);
  EXPECT_EQ(resolved["acquisition"]["receivers"]["x"].size(), 61u);
  EXPECT_TRUE(contains(r.out, "largest stable dt = 0.00221 s")) << r.out;
  EXPECT_TRUE(contains(r.out, "CFL ratio dt/dt_max = 0.451")) << r.out;
  EXPECT_TRUE(contains(r.out, "8.33 points per wavelength")) << r.out;
  EXPECT_TRUE(contains(r.out, "padded with CPML")) << r.out;
  EXPECT_TRUE(contains(r.out, "241 x 341")) << r.out;
  EXPECT_TRUE(contains(r.out, "MB on the device")) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(Cli, CheckMarmousiDeckReadsTheSharedModel) {
  const fs::path model =
      fs::path(PWAVE_SOURCE_DIR) / ".." / "shared" / "data" / "marmousi_vp_small_16m.bin";
  if (!fs::exists(model)) GTEST_SKIP() << "no shared data at " << model;
  const auto dir = scratch_dir("check_marmousi");
  const Result r = pwave("check inputs/marmousi_forward.yaml", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "188 x 576 cells")) << r.out;
  EXPECT_TRUE(contains(r.out, "vmax = 5500 m/s")) << r.out;
}

TEST(Cli, CheckAppliesOverrides) {
  const auto dir = scratch_dir("check_set");
  const Result r = pwave(
      "check inputs/forward_small.yaml --set time.nt=123 --set 'acquisition.sources.x=[100, 200]'",
      dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const YAML::Node resolved = YAML::Load(r.out);
  EXPECT_EQ(resolved["time"]["nt"].as<int>(), 123);
  EXPECT_EQ(resolved["acquisition"]["sources"]["x"].size(), 2u);
  expect_one_error_line(pwave("check inputs/forward_small.yaml --set time.nt=abc", dir), 2,
                        "--set: 'time.nt': expected a positive integer, got 'abc'");
  expect_one_error_line(pwave("check inputs/forward_small.yaml --set model.spacng=5", dir), 2,
                        "unknown key 'spacng' (did you mean 'spacing'?)");
}

TEST(Cli, BadDecksGiveOneLineWithKeyAndLine) {
  const auto dir = scratch_dir("bad_decks");
  const std::string good = tiny_deck(dir / "out");
  struct Case {
    std::string from, to, expected;
  };
  const Case cases[] = {
      {"spacing: 10.0", "spacng: 10.0",
       ":3: 'model.spacng': unknown key 'spacng' (did you mean 'spacing'?)"},
      {"vp: 2000.0}", "vp: 2000.0", ":4: YAML syntax error"},  // found on the next line
      {"nt: 150", "nt: abc", ":4: 'time.nt': expected a positive integer, got 'abc'"},
      {"dt: 0.001", "dt: 0.01", ":4: 'time.dt': time.dt = 0.01 s is unstable for order 4"},
      {"vp: 2000.0", "vp: {file: nope.bin}", ":3: 'model.vp.file': file 'nope.bin' not found"},
      {"z: 100.0", "z: 1000.0", ":7: 'acquisition.sources.z': position"},
  };
  for (const Case& c : cases) {
    std::string text = good;
    text.replace(text.find(c.from), c.from.size(), c.to);
    const fs::path deck = dir / "deck.yaml";
    write_file(deck, text);
    expect_one_error_line(pwave("check '" + deck.string() + "'", dir), 2,
                          deck.string() + c.expected);
    expect_one_error_line(pwave("run --no-plots '" + deck.string() + "'", dir), 2,
                          deck.string() + c.expected);
  }
  EXPECT_FALSE(fs::exists(dir / "out")) << "a deck error must not touch the output folder";
}

TEST(Cli, RunWritesOutputs) {
  const auto dir = scratch_dir("run");
  const fs::path out = dir / "out";
  write_file(dir / "deck.yaml", tiny_deck(out));
  const Result r = pwave("run --no-plots '" + (dir / "deck.yaml").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const pwave::io::NpyArray traces = pwave::io::read_npy((out / "receivers.npy").string());
  EXPECT_EQ(traces.shape, (std::vector<std::size_t>{2, 5, 150}));
  EXPECT_EQ(traces.dtype, "<f4");
  double peak = 0.0;
  for (double v : traces.data) peak = std::max(peak, std::abs(v));
  EXPECT_GT(peak, 0.0);
  const pwave::io::NpyArray wavelet = pwave::io::read_npy((out / "wavelet.npy").string());
  EXPECT_EQ(wavelet.shape, (std::vector<std::size_t>{150}));
  EXPECT_NEAR(wavelet.data[70], 1.0, 1e-6);  // Ricker peak at the 0.07 s delay
  EXPECT_TRUE(fs::exists(out / "receivers.segy"));
  EXPECT_TRUE(fs::exists(out / "deck.resolved.yaml"));
  const std::string log = read_text(out / "pwave.log");
  EXPECT_TRUE(contains(log, "cell updates/s")) << log;
  const YAML::Node summary = YAML::LoadFile((out / "summary.json").string());
  EXPECT_EQ(summary["task"].as<std::string>(), "forward");
  EXPECT_EQ(summary["shots"].as<int>(), 2);
  EXPECT_EQ(summary["nt"].as<int>(), 150);
  EXPECT_GT(summary["seconds"].as<double>(), 0.0);
  EXPECT_GT(summary["cell_updates_per_second"].as<double>(), 0.0);
  EXPECT_TRUE(contains(log, "forward: done")) << log;
  EXPECT_FALSE(has_partial_files(dir));
  // The resolved deck runs again to the same result.
  const Result again = pwave("check '" + (out / "deck.resolved.yaml").string() + "'", dir);
  EXPECT_EQ(again.code, 0) << again.err;
}

TEST(Cli, RunWithOverridesAndQuiet) {
  const auto dir = scratch_dir("run_set");
  write_file(dir / "deck.yaml", tiny_deck(dir / "ignored"));
  const fs::path out = dir / "out64";
  const Result r = pwave("run --no-plots '" + (dir / "deck.yaml").string() +
                             "' --quiet --set precision=float64 --set time.nt=120 "
                             "--set output.segy=false --set 'output.directory=" +
                             out.string() + "'",
                         dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << "quiet run printed: " << r.err;
  const pwave::io::NpyArray traces = pwave::io::read_npy((out / "receivers.npy").string());
  EXPECT_EQ(traces.shape, (std::vector<std::size_t>{2, 5, 120}));
  EXPECT_EQ(traces.dtype, "<f8");
  EXPECT_EQ(pwave::io::read_npy((out / "wavelet.npy").string()).dtype, "<f8");
  EXPECT_FALSE(fs::exists(out / "receivers.segy"));
  EXPECT_FALSE(fs::exists(dir / "ignored"));
  EXPECT_TRUE(contains(read_text(out / "deck.resolved.yaml"), "--set 'time.nt=120'"));
}

TEST(Cli, FailedRunLeavesNoResults) {
  const auto dir = scratch_dir("run_fail");
  const fs::path out = dir / "out";
  fs::create_directories(out / "receivers.segy");  // a folder where the SEG-Y file should go
  write_file(out / "receivers.segy" / "keep", "x");
  write_file(out / "receivers.npy", "stale results of an earlier run");
  write_file(dir / "deck.yaml", tiny_deck(out));
  const Result r = pwave("run --no-plots '" + (dir / "deck.yaml").string() + "'", dir);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "pwave: error: ")) << r.err;
  EXPECT_FALSE(fs::exists(out / "receivers.npy"));
  EXPECT_FALSE(fs::exists(out / "wavelet.npy"));
  EXPECT_FALSE(has_partial_files(dir));
  EXPECT_TRUE(contains(read_text(out / "pwave.log"), "error: ")) << "the log records the failure";
}

}  // namespace
