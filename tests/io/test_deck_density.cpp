// Decks of the variable-density equation: physics.equation, model.rho in every form model.vp
// takes, true_model.rho, inversion.parameters and per-parameter bounds; every mistake is one
// InputError naming the key and its line.

#include <gtest/gtest.h>

#include "deck_fixtures.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::test {
namespace {

// base_deck with the variable-density equation: model.rho on line 7, so time is on line 8 and
// physics (with the equation) on line 13.
std::string vd_deck(const std::string& rho = "2000.0") {
  const std::string text = edit(base_deck, "  vp: 2000.0\n", "  vp: 2000.0\n  rho: " + rho + "\n");
  return edit(text, "physics: {order: 8}",
              "physics: {equation: acoustic_variable_density, order: 8}");
}

// fwi_deck with the variable-density equation: model.rho on line 7 (every later line one down).
std::string vd_fwi_deck(const std::string& inversion_extra, const std::string& bounds) {
  std::string text = edit(fwi_deck(), "  vp: 2000.0\n", "  vp: 2000.0\n  rho: 2000.0\n");
  text = edit(text, "physics: {order: 8}", "physics: {equation: acoustic_variable_density}");
  text = edit(text, "  bounds: [1500.0, 3000.0]\n", "  bounds: " + bounds + "\n" + inversion_extra);
  return text;
}

TEST(DeckDensity, EquationAndDensityForms) {
  const io::Deck d = io::load_deck_text(vd_deck(), "deck.yaml");
  EXPECT_EQ(d.problem.equation, physics::Equation::acoustic_variable_density);
  ASSERT_EQ(d.problem.model.rho.size(), std::size_t(51 * 61));
  EXPECT_EQ(d.problem.model.rho[0], 2000.0);
  EXPECT_EQ(d.resolved["physics"]["equation"].as<std::string>(), "acoustic_variable_density");
  EXPECT_EQ(d.resolved["model"]["rho"].as<double>(), 2000.0);

  // The constant-density default: resolved says so, and there is no density.
  const io::Deck c = io::load_deck_text(base_deck, "deck.yaml");
  EXPECT_EQ(c.problem.equation, physics::Equation::acoustic);
  EXPECT_TRUE(c.problem.model.rho.empty());
  EXPECT_EQ(c.resolved["physics"]["equation"].as<std::string>(), "acoustic");

  // Layers and anomalies carry the density under its own name.
  const io::Deck l = io::load_deck_text(
      vd_deck("{constant: 1000.0, layers: [{z: 200, rho: 2200}], anomalies: [{x: 300, z: 400, "
              "radius: 40, rho: 2600}], smooth: 0}"),
      "deck.yaml");
  EXPECT_EQ(l.problem.model.rho[0], 1000.0);                     // z = 0: water
  EXPECT_EQ(l.problem.model.rho[std::size_t(30) * 61], 2200.0);  // z = 300 m, x = 0
  EXPECT_EQ(l.problem.model.rho[std::size_t(40) * 61 + 30], 2600.0);
  EXPECT_EQ(l.resolved["model"]["rho"]["layers"][0]["rho"].as<double>(), 2200.0);

  // A file, like model.vp.
  const auto dir = scratch_dir("density_file");
  std::vector<float> rho(std::size_t(51 * 61), 1800.0f);
  io::write_npy((dir / "rho.npy").string(), rho.data(), {51, 61});
  const io::Deck f = io::load_deck_text(vd_deck("{file: rho.npy}"), (dir / "deck.yaml").string());
  EXPECT_EQ(f.problem.model.rho[123], 1800.0);
}

TEST(DeckDensity, DensityMistakes) {
  // A density the constant-density equation would ignore is refused, not dropped.
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "  vp: 2000.0\n", "  vp: 2000.0\n  rho: 2000\n")),
                    "model.rho", "deck.yaml:7",
                    "applies to physics.equation: acoustic_variable_density or elastic only; the "
                    "equation acoustic has no density");
  // The variable-density equation needs one.
  EXPECT_DECK_ERROR(deck_error(edit(vd_deck(), "  rho: 2000.0\n", "")), "model.rho", "deck.yaml:4",
                    "required for physics.equation: acoustic_variable_density");
  EXPECT_DECK_ERROR(deck_error(vd_deck("-5")), "model.rho", "deck.yaml:7",
                    "expected a positive number");
  EXPECT_DECK_ERROR(deck_error(vd_deck("{constant: 2000, layers: [{z: 100, vp: 2500}]}")),
                    "model.rho.layers[0].vp", "deck.yaml:7", "unknown key 'vp'");
  EXPECT_DECK_ERROR(deck_error(vd_deck("{constant: 2000, layers: [{z: 100}]}")),
                    "model.rho.layers[0].rho", "deck.yaml:7", "kg/m^3 below z");
  EXPECT_DECK_ERROR(deck_error(edit(vd_deck(), "acoustic_variable_density", "viscoelastic")),
                    "physics.equation", "deck.yaml:13",
                    "expected acoustic, acoustic_variable_density or elastic");
  // A file of the wrong shape, or with a bad value, names model.rho.
  const auto dir = scratch_dir("density_bad_file");
  std::vector<float> rho(std::size_t(51 * 60), 1800.0f);
  io::write_npy((dir / "small.npy").string(), rho.data(), {51, 60});
  rho.resize(std::size_t(51 * 61), 1800.0f);
  rho[70] = 0.0f;
  io::write_npy((dir / "zero.npy").string(), rho.data(), {51, 61});
  const std::string path = (dir / "deck.yaml").string();
  const CaughtError shape = deck_error(vd_deck("{file: small.npy}"), {}, path);
  EXPECT_EQ(shape.key, "model.rho");
  EXPECT_NE(shape.what.find("[51, 60]"), std::string::npos) << shape.what;
  EXPECT_DECK_ERROR(deck_error(vd_deck("{file: zero.npy}"), {}, path), "model.rho", path + ":7",
                    "density at cell (iz=1, ix=9) is 0 kg/m^3");
}

TEST(DeckDensity, DensityContrastsLimitTheTimeStep) {
  // A water layer over a dense rock: the staggered operator's stable velocity is raised by
  // sqrt(rho_i / rho_neighbour); dt = 1 ms is stable at 2000 m/s but not at 2000 sqrt(20).
  EXPECT_DECK_ERROR(deck_error(vd_deck("{constant: 100.0, layers: [{z: 200, rho: 2000}]}")),
                    "time.dt", "deck.yaml:8", "raised by the density contrasts");
}

TEST(DeckDensity, InversionParametersAndBounds) {
  const io::Deck d = io::load_deck_text(
      vd_fwi_deck("  parameters: [vp, rho]\n", "{vp: [1500.0, 3000.0], rho: [1000, 3000]}"),
      "deck.yaml");
  ASSERT_EQ(d.inversion.parameters.size(), 2u);
  EXPECT_EQ(d.inversion.parameters[1], physics::Parameter::rho);
  EXPECT_EQ(d.inversion.rho_min, 1000.0);
  EXPECT_EQ(d.inversion.rho_max, 3000.0);
  EXPECT_EQ(d.resolved["inversion"]["bounds"]["rho"][1].as<double>(), 3000.0);
  EXPECT_EQ(d.resolved["inversion"]["parameters"][1].as<std::string>(), "rho");
  // true_model.rho defaults to the initial density.
  ASSERT_EQ(d.true_model.rho.size(), d.problem.model.rho.size());

  // Density only: vp needs no bounds and keeps the model's range.
  const io::Deck r =
      io::load_deck_text(vd_fwi_deck("  parameters: [rho]\n", "{rho: [1000, 3000]}"), "deck.yaml");
  EXPECT_EQ(r.inversion.vmin, 2000.0);
  EXPECT_EQ(r.inversion.parameters.front(), physics::Parameter::rho);

  // An initial model outside its bounds is advice, per parameter.
  const io::Deck w = io::load_deck_text(
      vd_fwi_deck("  parameters: [vp, rho]\n", "{vp: [2500, 3000], rho: [2100, 3000]}"),
      "deck.yaml");
  const auto warned = [&](const std::string& text) {
    for (const std::string& m : w.warnings) {
      if (m == text) return true;
    }
    return false;
  };
  EXPECT_TRUE(
      warned("inversion.bounds: the initial model (2000 to 2000 m/s) lies partly outside "
             "[2500, 3000] m/s; the first update clips it"));
  EXPECT_TRUE(
      warned("inversion.bounds.rho: the initial density (2000 to 2000 kg/m^3) lies partly "
             "outside [2100, 3000] kg/m^3; the first update clips it"));
  EXPECT_EQ(w.warnings.size(), 2u);

  // The default stays [vp] with [vmin, vmax].
  const io::Deck v = io::load_deck_text(fwi_deck(), "deck.yaml");
  ASSERT_EQ(v.inversion.parameters.size(), 1u);
  EXPECT_EQ(v.resolved["inversion"]["parameters"][0].as<std::string>(), "vp");
  EXPECT_EQ(v.resolved["inversion"]["bounds"][1].as<double>(), 3000.0);
}

TEST(DeckDensity, InversionMistakes) {
  // The constant-density equation has no density to invert.
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "  bounds: [1500.0, 3000.0]\n",
                                    "  bounds: [1500.0, 3000.0]\n  parameters: [vp, rho]\n")),
                    "inversion.parameters[1]", "deck.yaml:22", "the equation acoustic has no rho");
  EXPECT_DECK_ERROR(deck_error(vd_fwi_deck("  parameters: [vp, vp]\n", "{vp: [1500.0, 3000.0]}")),
                    "inversion.parameters[1]", "deck.yaml:23", "'vp' is listed twice");
  EXPECT_DECK_ERROR(deck_error(vd_fwi_deck("  parameters: [eta]\n", "[1500.0, 3000.0]")),
                    "inversion.parameters[0]", "deck.yaml:23", "expected vp, rho or vs");
  EXPECT_DECK_ERROR(deck_error(vd_fwi_deck("  parameters: [vs]\n", "[1500.0, 3000.0]")),
                    "inversion.parameters[0]", "deck.yaml:23",
                    "the equation acoustic_variable_density has no vs");
  EXPECT_DECK_ERROR(deck_error(vd_fwi_deck("  parameters: []\n", "[1500.0, 3000.0]")),
                    "inversion.parameters", "deck.yaml:23", "non-empty list");
  // Bounds per inverted parameter, and none for the others.
  EXPECT_DECK_ERROR(deck_error(vd_fwi_deck("  parameters: [vp, rho]\n", "[1500.0, 3000.0]")),
                    "inversion.bounds", "deck.yaml:22", "give the bounds per parameter");
  EXPECT_DECK_ERROR(deck_error(vd_fwi_deck("  parameters: [vp, rho]\n", "{vp: [1500.0, 3000.0]}")),
                    "inversion.bounds.rho", "deck.yaml:22", "required: [lower, upper] in kg/m^3");
  EXPECT_DECK_ERROR(deck_error(vd_fwi_deck("", "{vp: [1500.0, 3000.0], rho: [1000, 3000]}")),
                    "inversion.bounds.rho", "deck.yaml:22", "'rho' is not in inversion.parameters");
  EXPECT_DECK_ERROR(deck_error(vd_fwi_deck("  parameters: [rho]\n", "{rho: [3000, 1000]}")),
                    "inversion.bounds.rho", "deck.yaml:22",
                    "expected 0 < rho_min < rho_max (kg/m^3), got [3000, 1000]");
  EXPECT_DECK_ERROR(deck_error(vd_fwi_deck("  parameters: [rho]\n", "{rho: [1000, 3000], vs: 2}")),
                    "inversion.bounds.vs", "deck.yaml:22", "'vs' is not in inversion.parameters");
  EXPECT_DECK_ERROR(deck_error(vd_fwi_deck("  parameters: [rho]\n", "{rho: [1000, 3000], eta: 2}")),
                    "inversion.bounds.eta", "deck.yaml:22", "unknown key 'eta'");
  // true_model.rho belongs to the variable-density equation.
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "true_model:\n", "true_model:\n  rho: 2100\n")),
                    "true_model.rho", "deck.yaml:16",
                    "applies to physics.equation: "
                    "acoustic_variable_density or elastic only (the equation acoustic has no "
                    "density)");
}

}  // namespace
}  // namespace pwave::test
