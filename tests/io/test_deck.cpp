// Deck parsing: values, defaults, conveniences (broadcast, ranges, per-shot receivers), files,
// the resolved deck and --set overrides.

#include <gtest/gtest.h>

#include <cmath>

#include "deck_fixtures.hpp"
#include "pwave/acquisition/wavelet.hpp"
#include "pwave/io/deck_schema.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::test {
namespace {

TEST(Deck, ParsesTheBaseDeck) {
  const io::Deck d = io::load_deck_text(base_deck, "deck.yaml");
  EXPECT_EQ(d.task, "forward");
  EXPECT_EQ(d.precision, "float32");
  const ForwardProblem& p = d.problem;
  EXPECT_EQ(p.model.grid.nz, 51);
  EXPECT_EQ(p.model.grid.nx, 61);
  EXPECT_DOUBLE_EQ(p.model.grid.dz, 10.0);
  EXPECT_DOUBLE_EQ(p.model.grid.dx, 10.0);
  ASSERT_EQ(p.model.vp.size(), 51u * 61u);
  EXPECT_DOUBLE_EQ(p.model.vmin(), 2000.0);
  EXPECT_DOUBLE_EQ(p.dt, 0.001);
  EXPECT_EQ(p.nt, 300);
  EXPECT_EQ(p.order, 8);
  ASSERT_EQ(p.shots.size(), 2u);
  EXPECT_DOUBLE_EQ(p.shots[1].source.x, 300.0);
  EXPECT_DOUBLE_EQ(p.shots[1].source.z, 20.0);  // broadcast
  ASSERT_EQ(p.shots[0].receivers.size(), 3u);
  EXPECT_DOUBLE_EQ(p.shots[1].receivers[2].x, 600.0);
  EXPECT_DOUBLE_EQ(p.peak_frequency, 10.0);
  EXPECT_EQ(d.output.directory, "out");
  EXPECT_FALSE(d.output.segy);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(Deck, FillsDefaults) {
  const std::string minimal =
      "model: {shape: [51, 61], spacing: 10, vp: 2000}\n"
      "time: {dt: 0.001, nt: 300}\n"
      "wavelet: {peak_frequency: 10}\n"
      "acquisition: {sources: {x: 100, z: 20}, receivers: {x: 50, z: 10}}\n";
  const io::Deck d = io::load_deck_text(minimal, "deck.yaml");
  EXPECT_EQ(d.task, "forward");
  EXPECT_EQ(d.precision, "float32");
  EXPECT_EQ(d.problem.order, 8);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(d.problem.boundary.width[s], 20);
  EXPECT_FALSE(d.problem.boundary.free_surface);
  EXPECT_DOUBLE_EQ(d.problem.boundary.reflection, 1e-8);
  EXPECT_DOUBLE_EQ(d.problem.boundary.pml_frequency, 0.0);
  EXPECT_EQ(d.output.directory, "out");
  EXPECT_FALSE(d.output.segy);
  EXPECT_EQ(d.problem.shot_batch, 0);
  EXPECT_EQ(d.problem.check_interval, 10);
  ASSERT_EQ(d.problem.shots.size(), 1u);
  ASSERT_EQ(d.problem.shots[0].receivers.size(), 1u);
  // Ricker with delay 1.5 / f and amplitude 1, sampled at dt.
  const std::vector<double> expected = ricker(10.0, 0.15, 0.001, 300, 1.0);
  ASSERT_EQ(d.problem.wavelet.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_DOUBLE_EQ(d.problem.wavelet[i], expected[i]);
  EXPECT_EQ(d.resolved["wavelet"]["delay"].as<double>(), 0.15);
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_EQ(d.resolved["boundary"]["width"]["left"].as<int>(), 20);
  EXPECT_EQ(d.resolved["execution"]["check_interval"].as<int>(), 10);
  EXPECT_EQ(d.problem.interior_3d, Interior3D::cells);
  EXPECT_EQ(d.resolved["execution"]["interior_3d"].as<std::string>(), "cells");
  EXPECT_EQ(d.problem.wavefront_steps, 32);
  EXPECT_EQ(d.resolved["execution"]["wavefront_steps"].as<int>(), 32);
}

TEST(Deck, ReadsWaveletDelayAndAmplitude) {
  const io::Deck d = io::load_deck_text(
      edit(base_deck, "peak_frequency: 10.0}", "peak_frequency: 10.0, delay: 0.05, amplitude: -2}"),
      "deck.yaml");
  const std::vector<double> expected = ricker(10.0, 0.05, 0.001, 300, -2.0);
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_DOUBLE_EQ(d.problem.wavelet[i], expected[i]);
}

TEST(Deck, ReadsSpacingPairAndRanges) {
  std::string text = edit(base_deck, "spacing: 10.0", "spacing: [5.0, 10.0]");
  text = edit(text, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}",
              "receivers: {x: {start: 0, step: 20, count: 31}, z: 15}");
  const io::Deck d = io::load_deck_text(text, "deck.yaml");
  EXPECT_DOUBLE_EQ(d.problem.model.grid.dz, 5.0);
  EXPECT_DOUBLE_EQ(d.problem.model.grid.dx, 10.0);
  ASSERT_EQ(d.problem.shots[0].receivers.size(), 31u);
  EXPECT_DOUBLE_EQ(d.problem.shots[0].receivers[30].x, 600.0);
  EXPECT_DOUBLE_EQ(d.problem.shots[0].receivers[30].z, 15.0);
}

TEST(Deck, ReadsPerShotReceivers) {
  const std::string text =
      edit(base_deck, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}",
           "receivers: {x: [[0, 10], {start: 200, step: 100, count: 2}], z: 30}");
  const io::Deck d = io::load_deck_text(text, "deck.yaml");
  ASSERT_EQ(d.problem.shots.size(), 2u);
  ASSERT_EQ(d.problem.shots[0].receivers.size(), 2u);
  EXPECT_DOUBLE_EQ(d.problem.shots[0].receivers[1].x, 10.0);
  EXPECT_DOUBLE_EQ(d.problem.shots[1].receivers[0].x, 200.0);
  EXPECT_DOUBLE_EQ(d.problem.shots[1].receivers[1].x, 300.0);
  EXPECT_DOUBLE_EQ(d.problem.shots[1].receivers[1].z, 30.0);
  // Per-shot lists survive the resolved deck.
  EXPECT_TRUE(d.resolved["acquisition"]["receivers"]["x"][1].IsSequence());
}

TEST(Deck, ReadsPerShotReceiversOfDifferentCounts) {
  const std::string text =
      edit(base_deck, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}",
           "receivers: {x: [[0, 10, 20], [200]], z: 30}");
  const io::Deck d = io::load_deck_text(text, "deck.yaml");
  ASSERT_EQ(d.problem.shots[0].receivers.size(), 3u);
  ASSERT_EQ(d.problem.shots[1].receivers.size(), 1u);
  EXPECT_DOUBLE_EQ(d.problem.shots[1].receivers[0].x, 200.0);
  const io::Deck back = io::load_deck_text(io::resolved_yaml(d), "resolved.yaml");
  EXPECT_EQ(io::resolved_yaml(back), io::resolved_yaml(d));
}

// A spread that moves with the source: x offsets from each shot's source; the resolved deck
// spells out each shot's absolute positions.
TEST(Deck, ReadsReceiversRelativeToTheSource) {
  const std::string text =
      edit(base_deck, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}",
           "receivers: {x: {start: -100, step: 50, count: 5}, z: 10, relative_to_source: true}");
  const io::Deck d = io::load_deck_text(text, "deck.yaml");
  ASSERT_EQ(d.problem.shots.size(), 2u);
  for (std::size_t s = 0; s < 2; ++s) {
    ASSERT_EQ(d.problem.shots[s].receivers.size(), 5u);
    for (std::size_t r = 0; r < 5; ++r) {
      EXPECT_DOUBLE_EQ(d.problem.shots[s].receivers[r].x,
                       d.problem.shots[s].source.x - 100.0 + 50.0 * double(r));
    }
  }
  EXPECT_FALSE(d.resolved["acquisition"]["receivers"]["relative_to_source"]);
  EXPECT_TRUE(d.resolved["acquisition"]["receivers"]["x"][1].IsSequence());
  const io::Deck back = io::load_deck_text(io::resolved_yaml(d), "resolved.yaml");
  EXPECT_EQ(back.problem.shots[1].receivers[4].x, 400.0);
}

// outside: drop leaves out the receivers a moving spread puts beyond the model, and says how
// many; without it they are errors naming the coordinate.
TEST(Deck, DropsReceiversOutsideTheModelWhenAsked) {
  const std::string spread =
      "receivers: {x: {start: -200, step: 100, count: 6}, z: 10, relative_to_source: true";
  const std::string text =
      edit(base_deck, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}", spread + "}");
  EXPECT_DECK_ERROR(deck_error(text), "acquisition.receivers.x[0]", "deck.yaml:11",
                    "is outside the model (x in [0, 600] m, z in [0, 500] m) by 100 m in x");
  const io::Deck d = io::load_deck_text(
      edit(base_deck, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}",
           spread + ", outside: drop}"),
      "deck.yaml");
  ASSERT_EQ(d.problem.shots[0].receivers.size(), 5u);  // -100 m left out; 0 m is the edge
  EXPECT_DOUBLE_EQ(d.problem.shots[0].receivers[0].x, 0.0);
  ASSERT_EQ(d.problem.shots[1].receivers.size(), 6u);  // 100 .. 600 m
  bool warned = false;
  for (const std::string& w : d.warnings) {
    warned = warned || w.find(
                           "1 receiver positions outside the model left out (outside: drop), "
                           "in 1 of 2 shots") != std::string::npos;
  }
  EXPECT_TRUE(warned);
  const io::Deck back = io::load_deck_text(io::resolved_yaml(d), "resolved.yaml");
  EXPECT_EQ(back.problem.shots[0].receivers.size(), 5u);
  // A shot left with no receiver is refused, naming the shot.
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}",
                      "receivers: {x: [-150, -120], z: 10, relative_to_source: true, "
                      "outside: drop}")),
      "acquisition.sources.x[0]", "deck.yaml:10",
      "shot 0 (source at x = 100 m) has no receiver inside the model");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}",
                      "receivers: {x: [0, 50], z: 10, outside: skip}")),
      "acquisition.receivers.outside", "deck.yaml:11", "skip");
}

TEST(Deck, FreeSurfaceWithSingleWidthZeroesTopAndWarns) {
  const io::Deck d = io::load_deck_text(
      edit(base_deck, "width: 20}", "width: 15, free_surface: true}"), "deck.yaml");
  EXPECT_TRUE(d.problem.boundary.free_surface);
  EXPECT_EQ(d.problem.boundary.width[top], 0);
  EXPECT_EQ(d.problem.boundary.width[bottom], 15);
  EXPECT_EQ(d.problem.boundary.width[left], 15);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("top CPML width is set to 0"), std::string::npos);
}

TEST(Deck, FreeSurfaceWithWidthMapDefaultsTopToZero) {
  const io::Deck d = io::load_deck_text(
      edit(base_deck, "width: 20}", "width: {bottom: 10, left: 12}, free_surface: yes}"),
      "deck.yaml");
  EXPECT_EQ(d.problem.boundary.width[top], 0);
  EXPECT_EQ(d.problem.boundary.width[bottom], 10);
  EXPECT_EQ(d.problem.boundary.width[left], 12);
  EXPECT_EQ(d.problem.boundary.width[right], 20);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(Deck, BoundaryNoneHasNoLayers) {
  const io::Deck d =
      io::load_deck_text(edit(base_deck, "{type: cpml, width: 20}", "{type: none}"), "deck.yaml");
  for (int s = 0; s < 4; ++s) EXPECT_EQ(d.problem.boundary.width[s], 0);
}

TEST(Deck, WarnsAboutDispersion) {
  const io::Deck d = io::load_deck_text(
      edit(base_deck, "peak_frequency: 10.0", "peak_frequency: 25.0"), "deck.yaml");
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("points per wavelength"), std::string::npos) << d.warnings[0];
  EXPECT_NE(d.warnings[0].find("vmin = 2000 m/s"), std::string::npos) << d.warnings[0];
}

TEST(Deck, WarnsAboutSourcesOnTheFreeSurface) {
  std::string text = edit(base_deck, "width: 20}", "width: 20, free_surface: true}");
  text = edit(text, "z: 20.0}", "z: 0.0}");
  const io::Deck d = io::load_deck_text(text, "deck.yaml");
  bool found = false;
  for (const auto& w : d.warnings) found = found || w.find("inject nothing") != std::string::npos;
  EXPECT_TRUE(found);
}

TEST(Deck, ReadsVelocityFromRawFileRelativeToTheDeck) {
  const auto dir = scratch_dir("raw_vp");
  // Stored [nx=4][nz=3] (order xz), in km/s, with every other x sample to drop.
  std::vector<float> v;
  for (int ix = 0; ix < 4; ++ix) {
    for (int iz = 0; iz < 3; ++iz) v.push_back(float(1.5 + 0.1 * iz + 0.01 * ix));
  }
  write_raw_f32(dir / "vp.bin", v);
  std::string text = edit(base_deck, "shape: [51, 61]", "shape: [3, 2]");
  text = edit(text, "vp: 2000.0",
              "vp: {file: vp.bin, order: xz, shape: [4, 3], scale: 1000, stride: [1, 2]}");
  text = edit(text, "sources: {x: [100.0, 300.0], z: 20.0}", "sources: {x: 10, z: 0}");
  text = edit(text, "x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]", "x: 0, z: 20");
  write_file(dir / "deck.yaml", text);
  const io::Deck d = io::load_deck((dir / "deck.yaml").string());
  ASSERT_EQ(d.problem.model.vp.size(), 6u);
  EXPECT_NEAR(d.problem.model.at(0, 0), 1500.0, 1e-3);
  EXPECT_NEAR(d.problem.model.at(2, 1), 1720.0, 1e-3);  // iz = 2, stored ix = 2
  EXPECT_EQ(d.resolved["model"]["vp"]["format"].as<std::string>(), "raw");
  EXPECT_TRUE(
      std::filesystem::path(d.resolved["model"]["vp"]["file"].as<std::string>()).is_absolute());
}

TEST(Deck, WarnsWhenVelocitiesLookLikeKilometresPerSecond) {
  const auto dir = scratch_dir("kms_vp");
  write_raw_f32(dir / "vp.bin", std::vector<float>(6, 2.5f));
  std::string text = edit(base_deck, "shape: [51, 61]", "shape: [2, 3]");
  text = edit(text, "vp: 2000.0", "vp: {file: vp.bin}");
  text = edit(text, "time: {dt: 0.001, nt: 300}", "time: {dt: 1, nt: 300}");
  text = edit(text, "sources: {x: [100.0, 300.0], z: 20.0}", "sources: {x: 10, z: 0}");
  text = edit(text, "x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]", "x: 0, z: 10");
  write_file(dir / "deck.yaml", text);
  const io::Deck d = io::load_deck((dir / "deck.yaml").string());
  bool found = false;
  for (const auto& w : d.warnings) found = found || w.find("scale: 1000") != std::string::npos;
  EXPECT_TRUE(found);
}

TEST(Deck, ReadsWaveletFromFile) {
  const auto dir = scratch_dir("wavelet_file");
  std::vector<double> w(300);
  for (int i = 0; i < 300; ++i) w[i] = std::sin(0.1 * i);
  io::write_npy((dir / "w.npy").string(), w.data(), {300});
  write_file(dir / "deck.yaml",
             edit(base_deck, "{type: ricker, peak_frequency: 10.0}",
                  "{type: file, file: w.npy, peak_frequency: 10.0, amplitude: 2}"));
  const io::Deck d = io::load_deck((dir / "deck.yaml").string());
  ASSERT_EQ(d.problem.wavelet.size(), 300u);
  EXPECT_DOUBLE_EQ(d.problem.wavelet[7], 2.0 * std::sin(0.7));
}

TEST(Deck, ResolvedDeckLoadsBackToTheSameProblem) {
  std::string text = edit(base_deck, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}",
                          "receivers: {x: [[0, 10], [20, 30]], z: [[10, 20], [30, 40]]}");
  const io::Deck a = io::load_deck_text(text, "deck.yaml");
  const io::Deck b = io::load_deck_text(io::resolved_yaml(a), "resolved.yaml");
  EXPECT_EQ(io::resolved_yaml(a), io::resolved_yaml(b));
  EXPECT_EQ(b.problem.shots[1].receivers[1].z, 40.0);
  EXPECT_EQ(a.problem.wavelet, b.problem.wavelet);
}

TEST(DeckOverrides, ReplaceValuesBeforeValidation) {
  const io::Deck d = io::load_deck_text(
      base_deck, "deck.yaml",
      {"model.vp=2500", "time.nt=200", "boundary.width=10", "acquisition.sources.x=[100, 200]",
       "precision=float64", "output.segy=true"});
  EXPECT_DOUBLE_EQ(d.problem.model.vmax(), 2500.0);
  EXPECT_EQ(d.problem.nt, 200);
  EXPECT_EQ(d.problem.wavelet.size(), 200u);
  EXPECT_EQ(d.problem.boundary.width[right], 10);
  EXPECT_DOUBLE_EQ(d.problem.shots[1].source.x, 200.0);
  EXPECT_EQ(d.precision, "float64");
  EXPECT_TRUE(d.output.segy);
}

TEST(DeckOverrides, CreateValidKeysOnly) {
  const io::Deck d = io::load_deck_text(base_deck, "deck.yaml",
                                        {"execution.shot_batch=1", "boundary.width={top: 0}"});
  EXPECT_EQ(d.problem.shot_batch, 1);
  EXPECT_EQ(d.problem.boundary.width[top], 0);
  EXPECT_EQ(io::load_deck_text(base_deck, "deck.yaml", {"execution.interior_3d=z_march"})
                .problem.interior_3d,
            Interior3D::z_march);
  EXPECT_DECK_ERROR(deck_error(base_deck, {"execution.interior_3d=zmarch"}),
                    "execution.interior_3d", "--set", "expected cells or z_march");
  EXPECT_EQ(io::load_deck_text(base_deck, "deck.yaml", {"execution.wavefront_steps=1"})
                .problem.wavefront_steps,
            1);
  EXPECT_DECK_ERROR(deck_error(base_deck, {"execution.wavefront_steps=0"}),
                    "execution.wavefront_steps", "--set", "expected a positive integer, got '0'");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"execution.shot_bach=1"}), "execution.shot_bach",
                    "--set", "unknown key 'shot_bach' (did you mean 'shot_batch'?)");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"time.dt.x=1"}), "time.dt.x", "--set",
                    "'time.dt' takes a value");
}

TEST(DeckOverrides, ReportBadAssignments) {
  EXPECT_DECK_ERROR(deck_error(base_deck, {"time.nt"}), "", "--set", "expected key=value");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"time.nt="}), "time.nt", "--set", "needs a value");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"acquisition.sources.x[0]=5"}),
                    "acquisition.sources.x[0]", "--set", "set the whole list");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"model.vp.file=a.bin"}), "model.vp.file", "--set",
                    "'model.vp' is '2000.0' in the deck, not a map");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"time.nt=[1, 2"}), "time.nt", "--set",
                    "cannot parse value");
}

TEST(DeckOverrides, ErrorsInOverriddenValuesSayDashDashSet) {
  EXPECT_DECK_ERROR(deck_error(base_deck, {"time.nt=abc"}), "time.nt", "--set",
                    "expected a positive integer, got 'abc'");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"acquisition.sources.x=[100, 9000]"}),
                    "acquisition.sources.x[1]", "--set", "outside the model");
  // A value left as in the deck keeps its line.
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "nt: 300", "nt: -1"), {"time.dt=0.002"}), "time.nt",
                    "deck.yaml:7", "expected a positive integer");
}

TEST(DeckSchema, SuggestsNearestKeys) {
  EXPECT_EQ(io::nearest_key("spacng", {"shape", "spacing", "vp"}), "spacing");
  EXPECT_EQ(io::nearest_key("recievers", {"sources", "receivers"}), "receivers");
  EXPECT_EQ(io::nearest_key("banana", {"shape", "spacing", "vp"}), "");
  EXPECT_EQ(io::edit_distance("abc", "acb"), 1u);
  EXPECT_NE(io::find_deck_key("acquisition.receivers.x[2].start"), nullptr);
  EXPECT_EQ(io::find_deck_key("model.spacng"), nullptr);
}

TEST(Deck, RoundsTheLargestStableDtDown) {
  EXPECT_DOUBLE_EQ(io::round_down_3(0.0012399), 0.00123);
  EXPECT_LE(io::round_down_3(0.0027734), 0.0027734);
}

}  // namespace
}  // namespace pwave::test
