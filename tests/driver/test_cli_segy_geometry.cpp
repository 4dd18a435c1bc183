// acquisition.from: observed through `pwave run`: a forward run writes a streamer geometry with
// positions between grid points to SEG-Y; a gradient deck that takes its acquisition from that
// file's headers gets the geometry of the deck that lists it, and the same misfit.

#include <gtest/gtest.h>
#include <segyio/segy.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "cli_fixtures.hpp"
#include "pwave/io/deck.hpp"
#include "pwave/io/npy.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cli_test;
using cli_test::pwave;  // the function, not the namespace

// Sources at 100.25, 300.5, 500.75 m (z 100.25 m) on a 600 m wide model; receivers every 50 m
// from 300 m behind the source to 100 m ahead, at z 20.5 m, cut at the model's edge. The
// positions are whole centimetres, as SEG-Y stores them, and exact in binary.
std::string deck(const std::string& task, const fs::path& out_dir, const std::string& acquisition,
                 const std::string& extra) {
  return survey_deck(task, out_dir, acquisition, extra);
}

const char* listed =
    "  sources: {x: [100.25, 300.5, 500.75], z: 100.25}\n"
    "  receivers: {x: {start: -300, step: 50, count: 9}, z: 20.5, relative_to_source: true, "
    "outside: drop}\n";

TEST(CliSegyGeometry, AcquisitionFromTheHeadersMatchesTheListedOne) {
  const auto dir = scratch_dir("segy_geometry_round_trip");
  write_file(dir / "forward.yaml", deck("forward", dir / "fwd", listed, ""));
  const Result f = pwave("run --no-plots '" + (dir / "forward.yaml").string() + "'", dir);
  ASSERT_EQ(f.code, 0) << f.err;
  const std::string segy = (dir / "fwd" / "receivers.segy").string();
  const std::string observed = "observed: {file: '" + segy + "'}\n";

  write_file(dir / "listed.yaml", deck("gradient", dir / "listed", listed, observed));
  write_file(dir / "headers.yaml",
             deck("gradient", dir / "headers", "  from: observed\n  receivers: {outside: drop}\n",
                  observed));
  const pwave::io::Deck a = pwave::io::load_deck((dir / "listed.yaml").string());
  const pwave::io::Deck b = pwave::io::load_deck((dir / "headers.yaml").string());
  ASSERT_EQ(a.problem.shots.size(), 3u);
  ASSERT_EQ(b.problem.shots.size(), 3u);
  for (std::size_t s = 0; s < 3; ++s) {
    const auto& sa = a.problem.shots[s];
    const auto& sb = b.problem.shots[s];
    // SEG-Y holds centimetres: positions agree to its rounding, and these exactly.
    EXPECT_NEAR(sa.source.x, sb.source.x, 0.005);
    EXPECT_EQ(sa.source.x, sb.source.x) << s;
    EXPECT_EQ(sa.source.z, sb.source.z) << s;
    ASSERT_EQ(sa.receivers.size(), sb.receivers.size()) << s;
    for (std::size_t r = 0; r < sa.receivers.size(); ++r) {
      EXPECT_NEAR(sa.receivers[r].x, sb.receivers[r].x, 0.005);
      EXPECT_EQ(sa.receivers[r].x, sb.receivers[r].x) << s << " " << r;
      EXPECT_EQ(sa.receivers[r].z, sb.receivers[r].z) << s << " " << r;
      EXPECT_EQ(sb.receivers[r].y, 0.0);
    }
  }

  for (const char* name : {"listed", "headers"}) {
    const Result g =
        pwave("run --no-plots '" + (dir / (std::string(name) + ".yaml")).string() + "'", dir);
    ASSERT_EQ(g.code, 0) << g.err;
    if (std::string(name) == "headers") {
      EXPECT_TRUE(contains(g.err + g.out,
                           "geometry from the SEG-Y headers: 3 shots, 5 to 9 traces per shot"))
          << g.err;
      EXPECT_TRUE(contains(g.err + g.out, "geometry: receivers x")) << g.err;
    }
  }
  const auto misfit = [&](const char* name) {
    return YAML::LoadFile((dir / name / "summary.json").string())["misfit"].as<double>();
  };
  EXPECT_GT(misfit("listed"), 0.0);
  EXPECT_EQ(misfit("listed"), misfit("headers"));

  // output.segy: synthetic.segy holds the observed file's traces with their headers byte for
  // byte, on its axis (the same as the simulation's here: the samples are synthetic.npy's).
  segy_file* in = segy_open(segy.c_str(), "rb");
  ASSERT_NE(in, nullptr);
  for (const char* name : {"listed", "headers"}) {
    const std::string file = (dir / name / "synthetic.segy").string();
    segy_file* fp = segy_open(file.c_str(), "rb");
    ASSERT_NE(fp, nullptr) << file;
    char bin[SEGY_BINARY_HEADER_SIZE];
    ASSERT_EQ(segy_binheader(fp, bin), SEGY_OK);
    ASSERT_EQ(segy_samples(bin), 150);
    const long trace0 = segy_trace0(bin);
    const int bsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, 150);
    int count = 0, observed_count = 0;
    ASSERT_EQ(segy_traces(fp, &count, trace0, bsize), SEGY_OK);
    ASSERT_EQ(segy_traces(in, &observed_count, trace0, bsize), SEGY_OK);
    EXPECT_EQ(count, observed_count);
    const pwave::io::NpyArray syn = pwave::io::read_npy((dir / name / "synthetic.npy").string());
    const pwave::io::NpyArray counts =
        pwave::io::read_npy((dir / name / "receiver_counts.npy").string());
    ASSERT_EQ(syn.shape.size(), 3u);
    int t = 0;
    std::vector<float> samples(150);
    for (std::size_t s = 0; s < syn.shape[0]; ++s) {
      for (std::size_t r = 0; r < std::size_t(counts.data[s]); ++r, ++t) {
        char a[SEGY_TRACE_HEADER_SIZE], b[SEGY_TRACE_HEADER_SIZE];
        ASSERT_EQ(segy_traceheader(in, t, a, trace0, bsize), SEGY_OK);
        ASSERT_EQ(segy_traceheader(fp, t, b, trace0, bsize), SEGY_OK);
        ASSERT_EQ(std::string(a, sizeof a), std::string(b, sizeof b)) << name << " trace " << t;
        ASSERT_EQ(segy_readtrace(fp, t, samples.data(), trace0, bsize), SEGY_OK);
        segy_to_native(SEGY_IEEE_FLOAT_4_BYTE, 150, samples.data());
        for (std::size_t n = 0; n < 150; ++n) {
          ASSERT_EQ(samples[n], float(syn.data[(s * syn.shape[1] + r) * 150 + n]))
              << name << " trace " << t << " sample " << n;
        }
      }
    }
    EXPECT_EQ(t, count);
    segy_close(fp);
  }
  segy_close(in);

  // A forward deck cannot take its positions from data.
  write_file(dir / "bad.yaml", deck("forward", dir / "bad", "  from: observed\n", ""));
  const Result bad = pwave("run --no-plots '" + (dir / "bad.yaml").string() + "'", dir);
  expect_one_error_line(bad, 2, "applies to tasks gradient and fwi");
  EXPECT_TRUE(contains(bad.err, "acquisition.from")) << bad.err;
}

}  // namespace
