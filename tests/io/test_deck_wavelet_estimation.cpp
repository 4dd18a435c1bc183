// wavelet.estimate: read for task fwi (map, true/false, --set), echoed in the resolved deck
// (which loads back the same), and refused with key and line when misplaced or malformed;
// wavelet.estimate.per_shot and wavelet.file of one row per shot ([shots, nt]).

#include <gtest/gtest.h>

#include <cmath>

#include "deck_fixtures.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::test {
namespace {

const char* const ricker_line = "wavelet: {type: ricker, peak_frequency: 10.0}\n";  // line 8

// fwi_deck() with `estimate` added to its wavelet (line 8).
std::string fwi_estimating(const std::string& estimate) {
  return edit(fwi_deck(), ricker_line,
              "wavelet: {type: ricker, peak_frequency: 10.0, estimate: " + estimate + "}\n");
}

TEST(DeckWaveletEstimation, KeysAreReadAndEchoed) {
  const io::Deck d =
      io::load_deck_text(fwi_estimating("{every: stage, water_level: 0.01}"), "deck.yaml");
  const WaveletEstimation& e = d.inversion.wavelet_estimation;
  EXPECT_TRUE(e.enabled);
  EXPECT_EQ(e.every, WaveletEstimation::Every::stage);
  EXPECT_EQ(e.water_level, 0.01);
  EXPECT_EQ(d.problem.wavelet.size(), 300u);  // the initial wavelet, as without estimation
  EXPECT_EQ(d.resolved["wavelet"]["estimate"]["every"].as<std::string>(), "stage");
  EXPECT_EQ(d.resolved["wavelet"]["estimate"]["water_level"].as<double>(), 0.01);
  // The data of true_model are modelled with the deck's (initial) wavelet: a warning says so.
  bool warned = false;
  for (const std::string& w : d.warnings) warned = warned || w.rfind("wavelet.estimate:", 0) == 0;
  EXPECT_TRUE(warned);

  const io::Deck back = io::load_deck_text(io::resolved_yaml(d), "resolved.yaml");
  EXPECT_EQ(io::resolved_yaml(back), io::resolved_yaml(d));
  EXPECT_EQ(back.inversion.wavelet_estimation.every, WaveletEstimation::Every::stage);
  EXPECT_EQ(back.inversion.wavelet_estimation.water_level, 0.01);
}

TEST(DeckWaveletEstimation, DefaultsAndShortForms) {
  const WaveletEstimation defaults;
  for (const char* form : {"{}", "true", "{every: iteration}"}) {
    const io::Deck d = io::load_deck_text(fwi_estimating(form), "deck.yaml");
    const WaveletEstimation& e = d.inversion.wavelet_estimation;
    EXPECT_TRUE(e.enabled) << form;
    EXPECT_EQ(e.every, WaveletEstimation::Every::iteration) << form;
    EXPECT_EQ(e.water_level, defaults.water_level) << form;
    EXPECT_EQ(e.water_level, 1e-3) << form;
    EXPECT_EQ(d.resolved["wavelet"]["estimate"]["water_level"].as<double>(), 1e-3) << form;
  }
  // Not given, or false: no estimation, echoed as false for fwi decks only.
  for (const std::string& text : {fwi_deck(), fwi_estimating("false")}) {
    const io::Deck d = io::load_deck_text(text, "deck.yaml");
    EXPECT_FALSE(d.inversion.wavelet_estimation.enabled);
    EXPECT_FALSE(d.resolved["wavelet"]["estimate"].as<bool>());
    EXPECT_EQ(io::resolved_yaml(io::load_deck_text(io::resolved_yaml(d), "r.yaml")),
              io::resolved_yaml(d));
  }
  EXPECT_FALSE(
      io::load_deck_text(base_deck, "deck.yaml").resolved["wavelet"]["estimate"].IsDefined());
  // --set creates the keys.
  const io::Deck set = io::load_deck_text(
      fwi_deck(), "deck.yaml", {"wavelet.estimate.every=stage", "wavelet.estimate.water_level=0"});
  EXPECT_TRUE(set.inversion.wavelet_estimation.enabled);
  EXPECT_EQ(set.inversion.wavelet_estimation.every, WaveletEstimation::Every::stage);
  EXPECT_EQ(set.inversion.wavelet_estimation.water_level, 0.0);
}

TEST(DeckWaveletEstimation, OnlyForTaskFwi) {
  const std::string estimate = "wavelet: {type: ricker, peak_frequency: 10.0, estimate: true}\n";
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, ricker_line, estimate)), "wavelet.estimate",
                    "deck.yaml:8",
                    "applies to task fwi only (this deck has task: forward): the wavelet is "
                    "estimated from the observed data during an inversion");
  EXPECT_DECK_ERROR(deck_error(edit(gradient_deck(), ricker_line, estimate)), "wavelet.estimate",
                    "deck.yaml:8", "applies to task fwi only (this deck has task: gradient)");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"wavelet.estimate.every=stage"}), "wavelet.estimate",
                    "--set", "applies to task fwi only");
}

TEST(DeckWaveletEstimation, BadValuesNameTheKey) {
  EXPECT_DECK_ERROR(deck_error(fwi_estimating("{every: epoch}")), "wavelet.estimate.every",
                    "deck.yaml:8", "expected iteration or stage, got 'epoch'");
  EXPECT_DECK_ERROR(deck_error(fwi_estimating("{water_level: -0.1}")),
                    "wavelet.estimate.water_level", "deck.yaml:8",
                    "expected a number >= 0, got '-0.1'");
  EXPECT_DECK_ERROR(deck_error(fwi_estimating("{water_level: abc}")),
                    "wavelet.estimate.water_level", "deck.yaml:8", "expected a number, got 'abc'");
  EXPECT_DECK_ERROR(deck_error(fwi_estimating("{water_levle: 0.1}")),
                    "wavelet.estimate.water_levle", "deck.yaml:8", "did you mean 'water_level'?");
  EXPECT_DECK_ERROR(deck_error(fwi_estimating("stage")), "wavelet.estimate", "deck.yaml:8",
                    "expected true, false or {every: iteration | stage, water_level: number >= "
                    "0}, got 'stage'");
  EXPECT_DECK_ERROR(deck_error(fwi_deck(), {"wavelet.estimate.every=2"}), "wavelet.estimate.every",
                    "--set", "expected iteration or stage");
  // The brief's `type: estimate` points to the key that does it.
  EXPECT_DECK_ERROR(
      deck_error(edit(fwi_deck(), ricker_line, "wavelet: {type: estimate, peak_frequency: 10}\n")),
      "wavelet.type", "deck.yaml:8", "add wavelet.estimate: {every: iteration | stage");
}

TEST(DeckWaveletEstimation, PerShotIsReadAndEchoed) {
  const io::Deck d = io::load_deck_text(fwi_estimating("{per_shot: true}"), "deck.yaml");
  EXPECT_TRUE(d.inversion.wavelet_estimation.per_shot);
  EXPECT_TRUE(d.resolved["wavelet"]["estimate"]["per_shot"].as<bool>());
  const io::Deck back = io::load_deck_text(io::resolved_yaml(d), "resolved.yaml");
  EXPECT_TRUE(back.inversion.wavelet_estimation.per_shot);
  EXPECT_EQ(io::resolved_yaml(back), io::resolved_yaml(d));
  // Default false, echoed; --set creates it.
  const io::Deck plain = io::load_deck_text(fwi_estimating("{}"), "deck.yaml");
  EXPECT_FALSE(plain.inversion.wavelet_estimation.per_shot);
  EXPECT_FALSE(plain.resolved["wavelet"]["estimate"]["per_shot"].as<bool>());
  const io::Deck set =
      io::load_deck_text(fwi_deck(), "deck.yaml", {"wavelet.estimate.per_shot=true"});
  EXPECT_TRUE(set.inversion.wavelet_estimation.enabled);
  EXPECT_TRUE(set.inversion.wavelet_estimation.per_shot);
  EXPECT_DECK_ERROR(deck_error(fwi_estimating("{per_shot: maybe}")), "wavelet.estimate.per_shot",
                    "deck.yaml:8", "maybe");
  EXPECT_DECK_ERROR(deck_error(fwi_estimating("{per_shots: true}")), "wavelet.estimate.per_shots",
                    "deck.yaml:8", "did you mean 'per_shot'?");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"wavelet.estimate.per_shot=true"}), "wavelet.estimate",
                    "--set", "applies to task fwi only");
}

// wavelet.file: [nt] is shared (problem.wavelet), [shots, nt] one row per shot
// (problem.shot_wavelets, amplitude applied to each); wrong shapes and counts name the key, the
// file and the line.
TEST(DeckWaveletEstimation, FileOfOneRowPerShot) {
  const auto dir = scratch_dir("shot_wavelets");
  std::vector<double> table(2 * 300);
  for (int s = 0; s < 2; ++s)
    for (int n = 0; n < 300; ++n) table[std::size_t(s) * 300 + n] = std::sin(0.1 * n * (s + 1));
  io::write_npy((dir / "rows.npy").string(), table.data(), {2, 300});
  io::write_npy((dir / "three.npy").string(), table.data(), {3, 200});
  io::write_npy((dir / "one.npy").string(), table.data(), {1, 300});
  io::write_npy((dir / "cube.npy").string(), table.data(), {2, 1, 300});
  const auto deck_with = [&](const std::string& file) {
    write_file(
        dir / "deck.yaml",
        edit(fwi_estimating("{per_shot: true}"), "{type: ricker, peak_frequency: 10.0, estimate:",
             "{type: file, file: " + file + ", peak_frequency: 10.0, amplitude: 2, estimate:"));
    return (dir / "deck.yaml").string();
  };
  const io::Deck d = io::load_deck(deck_with("rows.npy"));
  EXPECT_TRUE(d.problem.wavelet.empty());
  ASSERT_EQ(d.problem.shot_wavelets.size(), 2u);
  for (int s = 0; s < 2; ++s) {
    ASSERT_EQ(d.problem.shot_wavelets[s].size(), 300u);
    EXPECT_DOUBLE_EQ(d.problem.shot_wavelets[s][7], 2.0 * std::sin(0.7 * (s + 1)));
  }
  // Forward and gradient decks take it as well.
  write_file(dir / "forward.yaml", edit(base_deck, "{type: ricker, peak_frequency: 10.0}",
                                        "{type: file, file: rows.npy, peak_frequency: 10.0}"));
  EXPECT_EQ(io::load_deck((dir / "forward.yaml").string()).problem.shot_wavelets.size(), 2u);

  const std::string where = (dir / "deck.yaml").string() + ":8";
  const auto error_for = [&](const std::string& file) {
    CaughtError c;
    try {
      io::load_deck(deck_with(file));
    } catch (const InputError& e) {
      c.thrown = true, c.key = e.key(), c.where = e.where(), c.what = e.what();
    }
    EXPECT_TRUE(c.thrown) << file;
    return c;
  };
  EXPECT_DECK_ERROR(error_for("one.npy"), "wavelet.file", where,
                    "'one.npy' holds 1 wavelets ([shots, nt] rows) but the acquisition has 2 "
                    "shots");
  EXPECT_DECK_ERROR(error_for("three.npy"), "wavelet.file", where,
                    "has shape (3, 200) but time.nt = 300 needs a 1D array of 300 samples (one "
                    "wavelet for every shot) or a 2D array [shots, 300] (one row per shot)");
  EXPECT_DECK_ERROR(error_for("cube.npy"), "wavelet.file", where, "has shape (2, 1, 300)");
  table[300 + 5] = std::nan("");
  io::write_npy((dir / "nan.npy").string(), table.data(), {2, 300});
  EXPECT_DECK_ERROR(error_for("nan.npy"), "wavelet.file", where,
                    "sample 5 of row 1 of 'nan.npy' is not finite");
}

}  // namespace
}  // namespace pwave::test
