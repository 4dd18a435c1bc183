// wavelet.estimate: read for task fwi (map, true/false, --set), echoed in the resolved deck
// (which loads back the same), and refused with key and line when misplaced or malformed.

#include <gtest/gtest.h>

#include "deck_fixtures.hpp"

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

}  // namespace
}  // namespace pwave::test
