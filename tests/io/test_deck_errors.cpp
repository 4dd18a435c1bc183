// Bad decks: each gives one InputError naming the full key and "deck.yaml:<line>".

#include <gtest/gtest.h>

#include "deck_fixtures.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::test {
namespace {

TEST(DeckErrors, YamlSyntaxErrorGivesTheLine) {
  const auto c = deck_error(edit(base_deck, "shape: [51, 61]", "shape: [51, 61"));
  EXPECT_EQ(c.where.rfind("deck.yaml:", 0), 0u) << c.what;
  EXPECT_NE(c.what.find("YAML syntax error"), std::string::npos) << c.what;
  const auto tab =
      deck_error(edit(base_deck, "  spacing: 10.0\n", "  spacing: 10.0\n   vp: : :\n"));
  EXPECT_NE(tab.what.find("YAML syntax error"), std::string::npos) << tab.what;
}

TEST(DeckErrors, EmptyDeck) {
  EXPECT_DECK_ERROR(deck_error(""), "", "deck.yaml", "the deck is empty");
  EXPECT_DECK_ERROR(deck_error("just text"), "", "deck.yaml:1", "expected a map");
}

TEST(DeckErrors, UnknownKeysSuggestTheNearest) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "spacing:", "spacng:")), "model.spacng",
                    "deck.yaml:5", "unknown key 'spacng' (did you mean 'spacing'?)");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "physics:", "physcs:")), "physcs", "deck.yaml:12",
                    "did you mean 'physics'?");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "receivers:", "recievers:")),
                    "acquisition.recievers", "deck.yaml:11", "did you mean 'receivers'?");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "width: 20}", "width: 20, colour: red}")),
                    "boundary.colour", "deck.yaml:13", "valid keys: type, width");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "x: [100.0, 300.0]", "x: {start: 0, stepp: 1, count: 2}")),
      "acquisition.sources.x.stepp", "deck.yaml:10", "did you mean 'step'?");
}

TEST(DeckErrors, DuplicateKeys) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "  vp: 2000.0\n", "  vp: 2000.0\n  vp: 3000.0\n")),
                    "model.vp", "deck.yaml:7", "duplicate key 'vp'");
}

TEST(DeckErrors, WrongTypes) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "vp: 2000.0", "vp: abc")), "model.vp", "deck.yaml:6",
                    "expected a number, got 'abc'");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "nt: 300", "nt: 10.5")), "time.nt", "deck.yaml:7",
                    "expected a positive integer, got '10.5'");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "shape: [51, 61]", "shape: [51]")), "model.shape",
                    "deck.yaml:4", "expected [nz, nx]");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "shape: [51, 61]", "shape: [51, x]")),
                    "model.shape[1]", "deck.yaml:4", "expected a positive integer, got 'x'");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "time: {dt: 0.001, nt: 300}", "time: 5")), "time",
                    "deck.yaml:7", "expected a map, got '5'");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "{directory: out}", "{directory: out, segy: maybe}")),
      "output.segy", "deck.yaml:14", "expected true or false, got 'maybe'");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "z: 20.0}", "z: [1, [2]]}")),
                    "acquisition.sources.z", "deck.yaml:10", "receivers only");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "precision: float32", "precision: double")),
                    "precision", "deck.yaml:2", "expected float32 or float64, got 'double'");
}

TEST(DeckErrors, MissingRequiredKeys) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "time: {dt: 0.001, nt: 300}\n", "")), "time",
                    "deck.yaml:1", "missing required key");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "time: {dt: 0.001, nt: 300}", "time: {dt: 0.001}")),
                    "time.nt", "deck.yaml:7", "missing required key");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "  vp: 2000.0", "  vp:")), "model.vp", "deck.yaml:6",
                    "has no value");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "{type: ricker, peak_frequency: 10.0}", "{type: ricker}")),
      "wavelet.peak_frequency", "deck.yaml:8", "missing required key");
}

TEST(DeckErrors, NonPositiveAndNonFiniteNumbers) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "spacing: 10.0", "spacing: -10")), "model.spacing",
                    "deck.yaml:5", "expected a positive number, got '-10'");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "vp: 2000.0", "vp: .nan")), "model.vp",
                    "deck.yaml:6", "expected a finite number, got '.nan'");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "dt: 0.001", "dt: .inf")), "time.dt", "deck.yaml:7",
                    "expected a finite number");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "dt: 0.001", "dt: 0")), "time.dt", "deck.yaml:7",
                    "expected a positive number, got '0'");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "peak_frequency: 10.0", "peak_frequency: -1")),
                    "wavelet.peak_frequency", "deck.yaml:8", "positive");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "width: 20}", "width: -3}")), "boundary.width",
                    "deck.yaml:13", "expected an integer >= 0, got '-3'");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "width: 20}", "width: 20, reflection: 2}")),
                    "boundary.reflection", "deck.yaml:13", "between 0 and 1");
}

TEST(DeckErrors, UnsupportedOrderAndTask) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "order: 8", "order: 3")), "physics.order",
                    "deck.yaml:12", "order must be 2, 4, 6 or 8, got 3");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "task: forward", "task: fwi")), "observed",
                    "deck.yaml:1", "task fwi needs observed data");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "task: forward", "task: gradient")), "observed",
                    "deck.yaml:1", "required for task gradient");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "task: forward", "task: migrate")), "task",
                    "deck.yaml:1", "expected forward, gradient or fwi");
}

TEST(DeckErrors, PositionsOutsideTheModel) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "x: [100.0, 300.0]", "x: [100.0, 9000.0]")),
                    "acquisition.sources.x[1]", "deck.yaml:10",
                    "is outside the model (x in [0, 600] m, z in [0, 500] m) by 8400 m in x");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "x: [0.0, 50.0, 600.0]", "x: [0.0, -2.5, 600.0]")),
                    "acquisition.receivers.x[1]", "deck.yaml:11", "by 2.5 m in x");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "z: [10.0, 10.0, 10.0]", "z: [10.0, 10.0, 5000.0]")),
                    "acquisition.receivers.z[2]", "deck.yaml:11", "outside the model");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]",
                                    "x: {start: 0, step: 100, count: 8}, z: 10")),
                    "acquisition.receivers.x[7]", "deck.yaml:11", "outside the model");
}

TEST(DeckErrors, HicksHalfWidth) {
  // Positions between grid points are interpolated (no error); the window is 1-10 cells.
  const io::Deck d = io::load_deck_text(
      edit(base_deck, "x: [0.0, 50.0, 600.0]", "x: [0.0, 55.0, 600.0]"), "deck.yaml", {});
  EXPECT_EQ(d.problem.shots[0].receivers[1].x, 55.0);
  EXPECT_EQ(d.problem.hicks_half_width, 4);
  EXPECT_DECK_ERROR(deck_error(base_deck, {"acquisition.hicks_half_width=11"}),
                    "acquisition.hicks_half_width", "--set", "must be at most 10");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"acquisition.hicks_half_width=0"}),
                    "acquisition.hicks_half_width", "--set",
                    "expected a positive integer, got '0'");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"acquisition.hicks_half_width=2.5"}),
                    "acquisition.hicks_half_width", "--set",
                    "expected a positive integer, got '2.5'");
}

TEST(DeckErrors, CoordinateListLengthsMustMatch) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "z: [10.0, 10.0, 10.0]", "z: [10.0, 10.0]")),
                    "acquisition.receivers.x", "deck.yaml:11",
                    "has 3 values but acquisition.receivers.z has 2");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}",
                      "receivers: {x: [[0, 10], [0, 10], [0, 10]], z: 10}")),
      "acquisition.receivers.x", "deck.yaml:11", "has 3 per-shot lists but there are 2 shots");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "receivers: {x: [0.0, 50.0, 600.0], z: [10.0, 10.0, 10.0]}",
                      "receivers: {x: [[0, 10], [0, 10, 20]], z: [[5, 5], [5, 5]]}")),
      "acquisition.receivers.x[1]", "deck.yaml:11",
      "has 3 values but acquisition.receivers.z[1] has 2");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "x: [0.0, 50.0, 600.0]", "x: []")),
                    "acquisition.receivers.x", "deck.yaml:11", "the list is empty");
}

TEST(DeckErrors, CflViolationNamesTheLargestStableDt) {
  std::string text = edit(base_deck, "vp: 2000.0", "vp: 5500");
  text = edit(text, "dt: 0.001", "dt: 0.002");
  EXPECT_DECK_ERROR(deck_error(text), "time.dt", "deck.yaml:7",
                    "time.dt = 0.002 s is unstable for order 8 with vmax = 5500 m/s and spacing "
                    "10 m; the largest stable dt is 0.001 s");
  EXPECT_DECK_ERROR(deck_error(edit(text, "order: 8", "order: 2")), "time.dt", "deck.yaml:7",
                    "the largest stable dt is 0.00128 s");
}

TEST(DeckErrors, BoundaryRules) {
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "width: 20}", "width: {top: 5}, free_surface: true}")),
      "boundary.width.top", "deck.yaml:13", "must be 0 when boundary.free_surface is true");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "type: cpml, width: 20", "type: none, width: 10")),
                    "boundary.width", "deck.yaml:13", "must be 0 (or left out)");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "type: cpml", "type: pml")), "boundary.type",
                    "deck.yaml:13", "expected cpml or none, got 'pml' (did you mean 'cpml'?)");
}

TEST(DeckErrors, MissingAndMismatchedFiles) {
  const auto dir = scratch_dir("bad_files");
  const std::string deck = (dir / "deck.yaml").string();
  auto error_for = [&](const std::string& text) {
    write_file(deck, text);
    CaughtError c;
    try {
      io::load_deck(deck);
    } catch (const InputError& e) {
      c = {true, e.key(), e.where(), e.what()};
    }
    EXPECT_TRUE(c.thrown);
    return c;
  };
  EXPECT_DECK_ERROR(error_for(edit(base_deck, "vp: 2000.0", "vp: {file: missing.bin}")),
                    "model.vp.file", deck + ":6", "file 'missing.bin' not found");
  // 10 values for a 51 x 61 grid: load_grid_file's message, with the deck's key and line.
  write_raw_f32(dir / "short.bin", std::vector<float>(10, 2000.0f));
  const auto short_file = error_for(edit(base_deck, "vp: 2000.0", "vp: {file: short.bin}"));
  EXPECT_DECK_ERROR(short_file, "model.vp", deck + ":6", "short.bin");
  EXPECT_NE(short_file.what.find("61"), std::string::npos) << short_file.what;
  write_raw_f32(dir / "negative.bin", std::vector<float>(51 * 61, -1.0f));
  EXPECT_DECK_ERROR(error_for(edit(base_deck, "vp: 2000.0", "vp: {file: negative.bin}")),
                    "model.vp", deck + ":6", "must be positive and finite");
  EXPECT_DECK_ERROR(error_for(edit(base_deck, "vp: 2000.0", "vp: {file: short.bin, format: npy}")),
                    "model.vp", deck + ":6", "short.bin");
  EXPECT_DECK_ERROR(error_for(edit(base_deck, "vp: 2000.0",
                                   "vp: {file: short.bin, format: npy, dtype: float64}")),
                    "model.vp.dtype", deck + ":6", "applies to raw files only");
  std::vector<double> w(50, 0.0);
  io::write_npy((dir / "w.npy").string(), w.data(), {50});
  EXPECT_DECK_ERROR(error_for(edit(base_deck, "{type: ricker, peak_frequency: 10.0}",
                                   "{type: file, file: w.npy, peak_frequency: 10.0}")),
                    "wavelet.file", deck + ":8", "has shape (50) but time.nt = 300");
  EXPECT_DECK_ERROR(error_for(edit(base_deck, "{type: ricker, peak_frequency: 10.0}",
                                   "{file: nowhere.npy, peak_frequency: 10.0}")),
                    "wavelet.file", deck + ":8", "not found");
}

TEST(DeckErrors, MissingDeckFile) {
  try {
    io::load_deck("/nonexistent/deck.yaml");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "/nonexistent/deck.yaml");
    EXPECT_NE(std::string(e.what()).find("deck file not found"), std::string::npos);
  }
}

}  // namespace
}  // namespace pwave::test
