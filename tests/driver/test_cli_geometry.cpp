// Per-shot geometry through `pwave run`: a streamer spread that moves with the source, cut at
// the model's edge (different receiver counts per shot), written as a padded .npy with its
// receiver counts and as SEG-Y with only the real traces, and read back as observed data.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "cli_fixtures.hpp"
#include "pwave/io/npy.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cli_test;
using cli_test::pwave;  // the function, not the namespace

constexpr int kNt = 150;  // survey_deck's time.nt

// Sources at 100, 300, 500 m on a 600 m wide model; receivers every 50 m from 300 m behind the
// source to 100 m ahead of it: shot 0 keeps the 3 at 0, 50, 100 m, shots 1 and 2 all 7.
std::string deck(const std::string& task, const fs::path& out_dir, int count,
                 const std::string& extra) {
  return survey_deck(task, out_dir,
                     "  sources: {x: [100.0, 300.0, 500.0], z: 100.0}\n"
                     "  receivers: {x: {start: -300, step: 50, count: " +
                         std::to_string(count) +
                         "}, z: 20.0, relative_to_source: true, outside: drop}\n",
                     extra);
}

TEST(CliGeometry, StreamerShotsKeepTheirOwnReceiversThroughFilesAndGradients) {
  const auto dir = scratch_dir("geometry_streamer");
  write_file(dir / "forward.yaml", deck("forward", dir / "fwd", 7, ""));
  const Result f = pwave("run --no-plots '" + (dir / "forward.yaml").string() + "'", dir);
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_TRUE(contains(f.err + f.out, "4 receiver positions outside the model left out")) << f.err;
  EXPECT_TRUE(contains(f.err + f.out, "3 shots of 3 to 7 receivers (17 traces)")) << f.err;

  const auto traces = pwave::io::read_npy((dir / "fwd" / "receivers.npy").string());
  ASSERT_EQ(traces.shape, (std::vector<std::size_t>{3, 7, kNt}));
  const auto counts = pwave::io::read_npy((dir / "fwd" / "receiver_counts.npy").string());
  EXPECT_EQ(counts.dtype, "<i4");
  EXPECT_EQ(counts.data, (std::vector<double>{3, 7, 7}));
  for (std::size_t r = 0; r < 7; ++r) {
    double peak = 0.0;
    for (int n = 0; n < kNt; ++n) peak = std::max(peak, std::abs(traces.data[r * kNt + n]));
    if (r < 3) {
      EXPECT_GT(peak, 0.0) << r;
    } else {
      EXPECT_EQ(peak, 0.0) << "padding row " << r;
    }
  }
  // SEG-Y holds the 17 real traces: 3600 header bytes, then 240 + 4 nt bytes a trace.
  EXPECT_EQ(fs::file_size(dir / "fwd" / "receivers.segy"), 3600u + 17u * (240u + 4u * kNt));
  const YAML::Node summary = YAML::LoadFile((dir / "fwd" / "summary.json").string());
  EXPECT_EQ(summary["receivers"].as<int>(), 7);
  EXPECT_EQ(summary["traces"].as<int>(), 17);

  // Gradients against the SEG-Y gathers and against the padded .npy agree.
  for (const char* observed : {"receivers.segy", "receivers.npy"}) {
    const fs::path out = dir / (std::string("grad_") + observed);
    write_file(dir / "gradient.yaml",
               deck("gradient", out, 7,
                    "observed: {file: '" + (dir / "fwd" / observed).string() + "'}\n"));
    const Result g = pwave("run --no-plots '" + (dir / "gradient.yaml").string() + "'", dir);
    ASSERT_EQ(g.code, 0) << g.err;
    const auto syn = pwave::io::read_npy((out / "synthetic.npy").string());
    EXPECT_EQ(syn.shape, (std::vector<std::size_t>{3, 7, kNt}));
    EXPECT_TRUE(fs::exists(out / "receiver_counts.npy"));
  }
  const auto misfit = [&](const char* observed) {
    return YAML::LoadFile(
               (dir / (std::string("grad_") + observed) / "summary.json").string())["misfit"]
        .as<double>();
  };
  EXPECT_GT(misfit("receivers.segy"), 0.0);
  EXPECT_NEAR(misfit("receivers.segy"), misfit("receivers.npy"), 1e-6 * misfit("receivers.npy"));

  // Gathers that do not match the acquisition shot by shot: exit 2 naming the shot.
  write_file(dir / "bad.yaml",
             deck("gradient", dir / "bad", 6,
                  "observed: {file: '" + (dir / "fwd" / "receivers.segy").string() + "'}\n"));
  const Result bad = pwave("run --no-plots '" + (dir / "bad.yaml").string() + "'", dir);
  expect_one_error_line(bad, 2,
                        "shot 0 (gather 1 in file order) holds 3 traces but the acquisition "
                        "gives it 2 receivers");
  EXPECT_TRUE(contains(bad.err, "observed.file")) << bad.err;
}

}  // namespace
