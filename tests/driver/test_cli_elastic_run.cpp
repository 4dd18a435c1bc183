// `pwave run` on elastic decks.
//
// The example deck runs: vertical forces recorded as vz, one trace per receiver and step,
// finite and not all zero, with the resolved deck echoing the source type and the component.

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

TEST(CliElasticRun, ExampleDeckRunsForward) {
  const auto dir = scratch_dir("elastic_run");
  const fs::path out = dir / "out";
  const Result r = pwave(
      "run inputs/forward_elastic_small.yaml --set time.nt=300 --set "
      "'output.directory=" +
          out.string() + "'",
      dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const pwave::io::NpyArray traces = pwave::io::read_npy((out / "receivers.npy").string());
  EXPECT_EQ(traces.shape, (std::vector<std::size_t>{3, 61, 300}));
  double peak = 0.0;
  for (double v : traces.data) {
    ASSERT_TRUE(std::isfinite(v));
    peak = std::max(peak, std::abs(v));
  }
  EXPECT_GT(peak, 0.0);
  const YAML::Node resolved = YAML::LoadFile((out / "deck.resolved.yaml").string());
  EXPECT_EQ(resolved["physics"]["equation"].as<std::string>(), "elastic");
  EXPECT_EQ(resolved["acquisition"]["sources"]["type"].as<std::string>(), "force_z");
  EXPECT_EQ(resolved["acquisition"]["receivers"]["components"].as<std::string>(), "vz");
}

}  // namespace
