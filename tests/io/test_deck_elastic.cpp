// Decks of the elastic equation: model.vs in every form model.vp takes (0 allowed: a fluid cell;
// below sqrt(3)/2 vp in every cell), model.rho required, acquisition.sources.type and
// acquisition.receivers.components (the acoustic equations refuse forces and velocities; y ones
// need a 3D model), their echo in the resolved deck, true_model.vs, inversion.parameters and
// inversion.bounds.vs, the stability limit with vp and the dispersion check with vs. Every
// mistake is one InputError naming the key and its line.

#include <gtest/gtest.h>

#include <cmath>

#include "deck_fixtures.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::test {
namespace {

// base_deck with the elastic equation: model.vs on line 7 and model.rho on line 8, so time is
// on line 9, the sources on line 12, the receivers on line 13 and physics on line 14.
std::string elastic_deck(const std::string& vs = "1000.0", const std::string& rho = "2000.0") {
  const std::string text =
      edit(base_deck, "  vp: 2000.0\n", "  vp: 2000.0\n  vs: " + vs + "\n  rho: " + rho + "\n");
  return edit(text, "physics: {order: 8}", "physics: {equation: elastic, order: 8}");
}

// elastic_deck with sources.type and receivers.components (lines 12 and 13).
std::string kinds_deck(const std::string& type, const std::string& component) {
  std::string text = edit(elastic_deck(), "z: 20.0}", "z: 20.0, type: " + type + "}");
  return edit(text, "z: [10.0, 10.0, 10.0]}",
              "z: [10.0, 10.0, 10.0], components: " + component + "}");
}

// fwi_deck with the elastic equation: vs on line 7 and rho on line 8 (every later line two down:
// true_model on line 17, inversion on line 19, bounds on line 23, then `inversion_extra`).
// vs = 1500 m/s: 5 points per wavelength at 30 Hz and 10 m (no dispersion advice).
std::string elastic_fwi_deck(const std::string& inversion_extra, const std::string& bounds,
                             const std::string& vs = "1500.0") {
  std::string text =
      edit(fwi_deck(), "  vp: 2000.0\n", "  vp: 2000.0\n  vs: " + vs + "\n  rho: 2000.0\n");
  text = edit(text, "physics: {order: 8}", "physics: {equation: elastic}");
  text = edit(text, "gradient: {storage: full}", "gradient: {storage: checkpoint}");
  return edit(text, "  bounds: [1500.0, 3000.0]\n", "  bounds: " + bounds + "\n" + inversion_extra);
}

bool has_warning(const io::Deck& d, const std::string& part) {
  for (const std::string& w : d.warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(DeckElastic, EquationAndShearVelocityForms) {
  const io::Deck d = io::load_deck_text(elastic_deck(), "deck.yaml");
  EXPECT_EQ(d.problem.equation, physics::Equation::elastic);
  ASSERT_EQ(d.problem.model.vs.size(), std::size_t(51 * 61));
  ASSERT_EQ(d.problem.model.rho.size(), std::size_t(51 * 61));
  EXPECT_EQ(d.problem.model.vs[0], 1000.0);
  EXPECT_EQ(d.problem.model.values(physics::Parameter::vs)[77], 1000.0);
  EXPECT_EQ(d.resolved["physics"]["equation"].as<std::string>(), "elastic");
  EXPECT_EQ(d.resolved["model"]["vs"].as<double>(), 1000.0);
  EXPECT_EQ(d.resolved["model"]["rho"].as<double>(), 2000.0);
  // The acoustic decks hold no vs.
  EXPECT_TRUE(io::load_deck_text(base_deck, "deck.yaml").problem.model.vs.empty());

  // A fluid layer (vs = 0) over a solid one, with an anomaly: layers and anomalies carry the
  // value under the name vs.
  const io::Deck l = io::load_deck_text(
      elastic_deck("{constant: 0, layers: [{z: 200, vs: 1200}], anomalies: [{x: 300, z: 400, "
                   "radius: 40, vs: 900}], smooth: 0}"),
      "deck.yaml");
  EXPECT_EQ(l.problem.model.vs[0], 0.0);                            // z = 0: water
  EXPECT_EQ(l.problem.model.vs[std::size_t(30) * 61], 1200.0);      // z = 300 m, x = 0
  EXPECT_EQ(l.problem.model.vs[std::size_t(40) * 61 + 30], 900.0);  // the anomaly's centre
  EXPECT_EQ(l.resolved["model"]["vs"]["constant"].as<double>(), 0.0);
  EXPECT_EQ(l.resolved["model"]["vs"]["layers"][0]["vs"].as<double>(), 1200.0);
  EXPECT_EQ(l.resolved["model"]["vs"]["anomalies"][0]["vs"].as<double>(), 900.0);
  // All fluid: 0 is no sign of km/s (no scale advice).
  const io::Deck f0 = io::load_deck_text(elastic_deck("0"), "deck.yaml");
  EXPECT_FALSE(has_warning(f0, "model.vs")) << (f0.warnings.empty() ? "" : f0.warnings[0]);
  // km/s is.
  EXPECT_TRUE(has_warning(io::load_deck_text(elastic_deck("1.0"), "deck.yaml"),
                          "model.vs: values are between 1 and 1 m/s; if the file is in km/s"));

  // A file, like model.vp, zeros included; smoothing.
  const auto dir = scratch_dir("elastic_vs_file");
  std::vector<float> vs(std::size_t(51 * 61), 1100.0f);
  vs[5] = 0.0f;
  io::write_npy((dir / "vs.npy").string(), vs.data(), {51, 61});
  const io::Deck f =
      io::load_deck_text(elastic_deck("{file: vs.npy}"), (dir / "deck.yaml").string());
  EXPECT_EQ(f.problem.model.vs[5], 0.0);
  EXPECT_EQ(f.problem.model.vs[123], 1100.0);
  EXPECT_EQ(f.resolved["model"]["vs"]["format"].as<std::string>(), "npy");
  const io::Deck s = io::load_deck_text(
      elastic_deck("{constant: 0, layers: [{z: 250, vs: 1200}], smooth: 30}"), "deck.yaml");
  const double mid = s.problem.model.vs[std::size_t(25) * 61];
  EXPECT_GT(mid, 0.0);
  EXPECT_LT(mid, 1200.0);
}

// vs and rho derived from vp cell by cell ({from_vp: rule}): the mudrock line, a Poisson solid
// and Gardner's density, fluid cells below fluid_vp, the vs floor, the echo in the resolved deck,
// true_model's from true_model.vp, and each mistake.
TEST(DeckElastic, ShearVelocityAndDensityDerivedFromVp) {
  // vp: 1500 m/s water above z = 100 m, 3000 m/s below, a 2000 m/s anomaly.
  const std::string vp =
      "  vp: {constant: 1500.0, layers: [{z: 100, vp: 3000}], anomalies: [{x: 300, z: 300, "
      "radius: 40, vp: 2000}]}\n";
  const auto derived = [&](const std::string& vs, const std::string& rho) {
    return edit(elastic_deck(vs, rho), "  vp: 2000.0\n", vp);
  };
  const std::size_t water = 0, rock = std::size_t(20) * 61, anomaly = std::size_t(30) * 61 + 30;
  const io::Deck m = io::load_deck_text(
      derived("{from_vp: mudrock, fluid_vp: 1500}", "{from_vp: gardner, fluid_vp: 1500}"),
      "deck.yaml");
  const std::vector<double>& vs = m.problem.model.vs;
  const std::vector<double>& rho = m.problem.model.rho;
  EXPECT_EQ(vs[water], 0.0);
  EXPECT_EQ(rho[water], 1000.0);
  EXPECT_DOUBLE_EQ(vs[rock], 0.8621 * 3000 - 1172.4);  // 1413.9 m/s
  EXPECT_DOUBLE_EQ(vs[anomaly], 0.8621 * 2000 - 1172.4);
  EXPECT_DOUBLE_EQ(rho[rock], 310 * std::pow(3000.0, 0.25));  // 2295.0 kg/m^3
  EXPECT_DOUBLE_EQ(rho[anomaly], 310 * std::pow(2000.0, 0.25));
  EXPECT_EQ(m.resolved["model"]["vs"]["from_vp"].as<std::string>(), "mudrock");
  EXPECT_EQ(m.resolved["model"]["vs"]["fluid_vp"].as<double>(), 1500.0);
  EXPECT_EQ(m.resolved["model"]["rho"]["fluid_rho"].as<double>(), 1000.0);
  // The resolved deck reads back to the same model.
  const io::Deck again = io::load_deck_text(io::resolved_yaml(m), "deck.yaml");
  EXPECT_EQ(again.problem.model.vs, vs);
  EXPECT_EQ(again.problem.model.rho, rho);

  // The mudrock line gives 120.8 m/s at 1500 m/s: a floor of 500 m/s; without fluid_vp the
  // water is a (slow) solid. Poisson: vs = vp / sqrt(3). Gardner in the water without fluid_vp.
  const io::Deck f =
      io::load_deck_text(derived("{from_vp: mudrock, min: 500}",
                                 "{from_vp: gardner, fluid_vp: 1500, fluid_rho: 1030}"),
                         "deck.yaml");
  EXPECT_EQ(f.problem.model.vs[water], 500.0);
  EXPECT_DOUBLE_EQ(f.problem.model.vs[rock], 0.8621 * 3000 - 1172.4);
  EXPECT_EQ(f.problem.model.rho[water], 1030.0);
  const io::Deck p =
      io::load_deck_text(derived("{from_vp: poisson}", "{from_vp: gardner}"), "deck.yaml");
  EXPECT_DOUBLE_EQ(p.problem.model.vs[rock], 3000 / std::sqrt(3.0));
  EXPECT_DOUBLE_EQ(p.problem.model.rho[water], 310 * std::pow(1500.0, 0.25));
  // From the smoothed vp, and smoothed after.
  const io::Deck s = io::load_deck_text(edit(derived("{from_vp: poisson, smooth: 20}", "2000.0"),
                                             "vp: 2000}]}", "vp: 2000}], smooth: 30}"),
                                        "deck.yaml");
  EXPECT_GT(s.problem.model.vs[std::size_t(10) * 61], 1500 / std::sqrt(3.0));
  EXPECT_LT(s.problem.model.vs[std::size_t(10) * 61], 3000 / std::sqrt(3.0));

  // true_model.vs and .rho derive from true_model.vp.
  std::string fwi =
      elastic_fwi_deck("  parameters: [vp, vs]\n", "{vp: [1500.0, 3000.0], vs: [0.0, 2000.0]}");
  fwi = edit(fwi, "true_model:\n",
             "true_model:\n  vs: {from_vp: poisson}\n  rho: {from_vp: gardner}\n");
  const io::Deck tm = io::load_deck_text(fwi, "deck.yaml");
  const std::size_t centre = std::size_t(25) * 61 + 30;  // the true model's 2200 m/s anomaly
  EXPECT_DOUBLE_EQ(tm.true_model.vs[centre], 2200 / std::sqrt(3.0));
  EXPECT_DOUBLE_EQ(tm.true_model.rho[centre], 310 * std::pow(2200.0, 0.25));
  EXPECT_EQ(tm.true_model.vs[0], 2000 / std::sqrt(3.0));

  // Mistakes.
  EXPECT_DECK_ERROR(deck_error(derived("{from_vp: castagna}", "2000.0")), "model.vs.from_vp",
                    "deck.yaml:7", "mudrock");
  EXPECT_DECK_ERROR(deck_error(derived("{from_vp: mudrock}", "{from_vp: mudrock}")),
                    "model.rho.from_vp", "deck.yaml:8", "gardner");
  EXPECT_DECK_ERROR(deck_error(derived("{from_vp: mudrock, constant: 1000}", "2000.0")),
                    "model.vs.constant", "deck.yaml:7", "does not go with from_vp");
  EXPECT_DECK_ERROR(deck_error(derived("{constant: 1000, fluid_vp: 1500}", "2000.0")),
                    "model.vs.fluid_vp", "deck.yaml:7", "applies to the {from_vp: ...} form only");
  EXPECT_DECK_ERROR(deck_error(derived("{from_vp: poisson}", "{from_vp: gardner, min: 3}")),
                    "model.rho.min", "deck.yaml:8", "applies to model.vs only");
  EXPECT_DECK_ERROR(deck_error(edit(derived("1000.0", "2000.0"), vp, "  vp: {from_vp: gardner}\n")),
                    "model.vp.from_vp", "deck.yaml:6", "only vs and rho can be derived from vp");
  // A floor above sqrt(3)/2 vp in the water is the usual vs-against-vp error.
  EXPECT_DECK_ERROR(deck_error(derived("{from_vp: mudrock, min: 1400}", "2000.0")), "model.vs",
                    "deck.yaml:7", "S velocity at cell (iz=0, ix=0) is 1400 m/s");
}

TEST(DeckElastic, ShearVelocityMistakes) {
  // Required, with the density, for the elastic equation.
  EXPECT_DECK_ERROR(deck_error(edit(elastic_deck(), "  vs: 1000.0\n", "")), "model.vs",
                    "deck.yaml:4", "required for physics.equation: elastic");
  EXPECT_DECK_ERROR(deck_error(edit(elastic_deck(), "  rho: 2000.0\n", "")), "model.rho",
                    "deck.yaml:4", "required for physics.equation: elastic");
  // Refused by the acoustic equations.
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "  vp: 2000.0\n", "  vp: 2000.0\n  vs: 1000\n")),
                    "model.vs", "deck.yaml:7",
                    "applies to physics.equation: elastic only; the equation acoustic has no "
                    "S-wave velocity");
  EXPECT_DECK_ERROR(
      deck_error(edit(elastic_deck(), "equation: elastic", "equation: acoustic_variable_density")),
      "model.vs", "deck.yaml:7", "the equation acoustic_variable_density has no S-wave velocity");
  // Negative, in every form.
  EXPECT_DECK_ERROR(deck_error(elastic_deck("-5")), "model.vs", "deck.yaml:7",
                    "expected a number >= 0, got '-5'");
  EXPECT_DECK_ERROR(deck_error(elastic_deck("{constant: 1000, layers: [{z: 100, vs: -1}]}")),
                    "model.vs.layers[0].vs", "deck.yaml:7", "expected a number >= 0");
  EXPECT_DECK_ERROR(deck_error(elastic_deck("{constant: 1000, layers: [{z: 100, vp: 2500}]}")),
                    "model.vs.layers[0].vp", "deck.yaml:7", "unknown key 'vp'");
  EXPECT_DECK_ERROR(deck_error(elastic_deck("{constant: 1000, layers: [{z: 100}]}")),
                    "model.vs.layers[0].vs", "deck.yaml:7", "m/s below z");
  // Not below sqrt(3)/2 vp = 1732.05 m/s: the first bad cell is named.
  EXPECT_DECK_ERROR(deck_error(elastic_deck("1800")), "model.vs", "deck.yaml:7",
                    "S velocity at cell (iz=0, ix=0) is 1800 m/s, not below sqrt(3)/2 vp = "
                    "1732.05 m/s (vp = 2000 m/s there)");
  EXPECT_DECK_ERROR(deck_error(elastic_deck("{constant: 1000, layers: [{z: 200, vs: 1750}]}")),
                    "model.vs", "deck.yaml:7", "S velocity at cell (iz=20, ix=0) is 1750 m/s");
  // 1732 is just below the limit, and accepted.
  EXPECT_NO_THROW(io::load_deck_text(elastic_deck("1732"), "deck.yaml"));
  // A file with a negative value names its first bad cell (a NaN is the file reader's error).
  const auto dir = scratch_dir("elastic_vs_bad_file");
  std::vector<float> vs(std::size_t(51 * 61), 1000.0f);
  vs[70] = -1.0f;
  io::write_npy((dir / "negative.npy").string(), vs.data(), {51, 61});
  const std::string path = (dir / "deck.yaml").string();
  EXPECT_DECK_ERROR(deck_error(elastic_deck("{file: negative.npy}"), {}, path), "model.vs",
                    path + ":7",
                    "S velocity at cell (iz=1, ix=9) is -1 m/s; every S velocity must be finite "
                    "and >= 0 (0 is a fluid cell)");
}

TEST(DeckElastic, SourceTypeAndReceiverComponent) {
  // The defaults, echoed in the resolved deck for every equation.
  const io::Deck a = io::load_deck_text(base_deck, "deck.yaml");
  EXPECT_EQ(a.problem.source_type, SourceType::pressure);
  EXPECT_EQ(a.problem.shots[0].component(0), Component::pressure);
  EXPECT_EQ(a.resolved["acquisition"]["sources"]["type"].as<std::string>(), "pressure");
  EXPECT_EQ(a.resolved["acquisition"]["receivers"]["components"].as<std::string>(), "p");

  const io::Deck e = io::load_deck_text(kinds_deck("force_z", "vz"), "deck.yaml");
  EXPECT_EQ(e.problem.source_type, SourceType::force_z);
  EXPECT_EQ(e.problem.shots[0].component(0), Component::vz);
  EXPECT_EQ(e.resolved["acquisition"]["sources"]["type"].as<std::string>(), "force_z");
  EXPECT_EQ(e.resolved["acquisition"]["receivers"]["components"].as<std::string>(), "vz");
  const io::Deck x = io::load_deck_text(kinds_deck("force_x", "vx"), "deck.yaml");
  EXPECT_EQ(x.problem.source_type, SourceType::force_x);
  EXPECT_EQ(x.problem.shots[0].component(0), Component::vx);
  const io::Deck p = io::load_deck_text(kinds_deck("pressure", "p"), "deck.yaml");
  EXPECT_EQ(p.problem.source_type, SourceType::pressure);
  EXPECT_EQ(p.problem.shots[0].component(0), Component::pressure);
  // An acoustic deck may spell out the defaults.
  std::string acoustic = edit(base_deck, "z: 20.0}", "z: 20.0, type: pressure}");
  acoustic = edit(acoustic, "z: [10.0, 10.0, 10.0]}", "z: [10.0, 10.0, 10.0], components: p}");
  EXPECT_EQ(io::load_deck_text(acoustic, "deck.yaml").problem.source_type, SourceType::pressure);

  // The resolved deck loads again to the same run.
  const io::Deck again = io::load_deck_text(io::resolved_yaml(e), "deck.yaml");
  EXPECT_EQ(again.problem.equation, physics::Equation::elastic);
  EXPECT_EQ(again.problem.source_type, SourceType::force_z);
  EXPECT_EQ(again.problem.shots[0].component(0), Component::vz);
  EXPECT_EQ(again.problem.model.vs, e.problem.model.vs);
  EXPECT_EQ(again.problem.model.rho, e.problem.model.rho);

  // 3D: force_y and vy.
  const std::string three_d =
      "model: {shape: [21, 11, 31], spacing: 10.0, vp: 2000.0, vs: 1000.0, rho: 2000.0}\n"
      "time: {dt: 0.001, nt: 200}\n"
      "wavelet: {peak_frequency: 10.0}\n"
      "acquisition:\n"
      "  sources: {x: [100.0, 200.0], y: 50.0, z: 20.0, type: force_y}\n"
      "  receivers: {x: [0.0, 50.0, 300.0], z: 10.0, components: vy}\n"
      "physics: {equation: elastic}\n"
      "boundary: {width: 10}\n";
  const io::Deck y = io::load_deck_text(three_d, "deck.yaml");
  EXPECT_EQ(y.problem.source_type, SourceType::force_y);
  EXPECT_EQ(y.problem.shots[0].component(0), Component::vy);
}

// Several components: each shot's receivers once per component, component after component
// (the traces' rows), echoed as a list; mistakes in the list name the item.
TEST(DeckElastic, SeveralComponents) {
  const io::Deck d = io::load_deck_text(kinds_deck("force_z", "[vx, vz]"), "deck.yaml");
  for (const ShotGeometry& shot : d.problem.shots) {
    ASSERT_EQ(shot.receivers.size(), 6u);
    ASSERT_EQ(shot.components.size(), 6u);
    for (std::size_t r = 0; r < 3; ++r) {
      EXPECT_EQ(shot.components[r], Component::vx);
      EXPECT_EQ(shot.components[r + 3], Component::vz);
      EXPECT_EQ(shot.receivers[r].x, shot.receivers[r + 3].x);
      EXPECT_EQ(shot.receivers[r].z, shot.receivers[r + 3].z);
    }
  }
  const YAML::Node list = d.resolved["acquisition"]["receivers"]["components"];
  ASSERT_TRUE(list.IsSequence());
  EXPECT_EQ(list[1].as<std::string>(), "vz");
  const io::Deck again = io::load_deck_text(io::resolved_yaml(d), "deck.yaml");
  EXPECT_EQ(again.problem.shots[0].components, d.problem.shots[0].components);
  EXPECT_EQ(again.problem.shots[0].receivers.size(), 6u);

  EXPECT_DECK_ERROR(deck_error(kinds_deck("force_z", "[vz, p, vz]")),
                    "acquisition.receivers.components[2]", "deck.yaml:13", "'vz' is listed twice");
  EXPECT_DECK_ERROR(deck_error(kinds_deck("force_z", "[]")), "acquisition.receivers.components",
                    "deck.yaml:13", "non-empty list");
  EXPECT_DECK_ERROR(deck_error(kinds_deck("force_z", "[p, vy]")),
                    "acquisition.receivers.components[1]", "deck.yaml:13",
                    "vy (along y) needs a 3D model");
  std::string acoustic =
      edit(base_deck, "z: [10.0, 10.0, 10.0]}", "z: [10.0, 10.0, 10.0], components: [p, vx]}");
  EXPECT_DECK_ERROR(deck_error(acoustic), "acquisition.receivers.components[1]", "deck.yaml:11",
                    "vx is a particle velocity, which the elastic equation records");
}

// The elastic gradient keeps checkpoints (the default), every step's state (`full`; with a
// stride or compression every stride-th step's states, 2D and 3D) or the strips of every step
// (`boundary`).
TEST(DeckElastic, GradientStorageIsCheckpointFullOrBoundary) {
  std::string d = elastic_fwi_deck("", "{vp: [1500.0, 3000.0]}");
  EXPECT_EQ(io::load_deck_text(d, "deck.yaml").storage, Storage::checkpoint);
  EXPECT_EQ(
      io::load_deck_text(edit(d, "gradient: {storage: checkpoint}\n", ""), "deck.yaml").storage,
      Storage::checkpoint);
  const io::Deck full =
      io::load_deck_text(edit(d, "storage: checkpoint", "storage: full"), "deck.yaml");
  EXPECT_EQ(full.storage, Storage::full);
  EXPECT_TRUE(full.storage_options.exact_full());
  EXPECT_EQ(
      io::load_deck_text(edit(d, "storage: checkpoint", "storage: boundary"), "deck.yaml").storage,
      Storage::boundary);
  const io::Deck sampled = io::load_deck_text(
      edit(d, "storage: checkpoint", "storage: full, stride: 3, compression: int8"), "deck.yaml");
  EXPECT_EQ(sampled.storage_options.stride, 3);
  EXPECT_EQ(sampled.storage_options.compression, Compression::int8);
  EXPECT_DECK_ERROR(deck_error(edit(d, "storage: checkpoint", "storage: boundary, stride: 2")),
                    "gradient.stride", "deck.yaml:25", "applies to storage: full only");
  EXPECT_DECK_ERROR(deck_error(edit(d, "storage: checkpoint", "storage: full, stride: 0")),
                    "gradient.stride", "deck.yaml:25", "expected a positive integer");
}

TEST(DeckElastic, SourceTypeAndComponentMistakes) {
  // Forces and velocities belong to the elastic equation.
  std::string force = edit(base_deck, "z: 20.0}", "z: 20.0, type: force_x}");
  EXPECT_DECK_ERROR(deck_error(force), "acquisition.sources.type", "deck.yaml:10",
                    "force_x is a point force, which the elastic equation has (physics.equation: "
                    "elastic); the equation acoustic injects pressure only");
  std::string velocity = edit(base_deck, "z: [10.0, 10.0, 10.0]}",
                              "z: [10.0, 10.0, 10.0], "
                              "components: vz}");
  EXPECT_DECK_ERROR(deck_error(velocity), "acquisition.receivers.components", "deck.yaml:11",
                    "vz is a particle velocity, which the elastic equation records");
  // The variable-density equation too (without vs the sources are on line 11).
  std::string vd = edit(kinds_deck("force_z", "p"), "  vs: 1000.0\n", "");
  vd = edit(vd, "equation: elastic", "equation: acoustic_variable_density");
  EXPECT_DECK_ERROR(deck_error(vd), "acquisition.sources.type", "deck.yaml:11",
                    "the equation acoustic_variable_density injects pressure only");
  // y needs a 3D model.
  EXPECT_DECK_ERROR(deck_error(kinds_deck("force_y", "vz")), "acquisition.sources.type",
                    "deck.yaml:12", "force_y (along y) needs a 3D model");
  EXPECT_DECK_ERROR(deck_error(kinds_deck("force_z", "vy")), "acquisition.receivers.components",
                    "deck.yaml:13", "vy (along y) needs a 3D model");
  // Unknown names.
  EXPECT_DECK_ERROR(deck_error(kinds_deck("force", "vz")), "acquisition.sources.type",
                    "deck.yaml:12", "expected pressure, force_x, force_y or force_z");
  EXPECT_DECK_ERROR(deck_error(kinds_deck("force_z", "pressure")),
                    "acquisition.receivers.components", "deck.yaml:13", "expected p, vx, vy or vz");
}

TEST(DeckElastic, StabilityWithVpAndDispersionWithVs) {
  // The limit is the staggered one with vp (2000 m/s), not vs: dt = 2 ms is unstable at 10 m.
  EXPECT_DECK_ERROR(deck_error(edit(elastic_deck(), "dt: 0.001", "dt: 0.003")), "time.dt",
                    "deck.yaml:9", "unstable for order 8 (elastic) with vp max = 2000 m/s");
  // Dispersion: the slowest wave is vs. 1000 m/s at 30 Hz and 10 m: 3.3 points per wavelength.
  EXPECT_TRUE(has_warning(io::load_deck_text(elastic_deck(), "deck.yaml"),
                          "numerical dispersion: 3.3 points per wavelength (slowest wave speed "
                          "(vs, vp where vs = 0) = 1000 m/s"));
  // vs = 0 everywhere: a fluid, whose slowest wave is vp (6.7 points: no warning).
  EXPECT_FALSE(has_warning(io::load_deck_text(elastic_deck("0"), "deck.yaml"), "dispersion"));
  // Fluid over solid: the smallest vs > 0 (1200 m/s: 4 points), not the fluid's 0.
  EXPECT_TRUE(has_warning(
      io::load_deck_text(elastic_deck("{constant: 0, layers: [{z: 200, vs: 1200}]}"), "deck.yaml"),
      "numerical dispersion: 4 points per wavelength (slowest wave speed (vs, vp where vs = 0) = "
      "1200 m/s"));
}

// The elastic free surface: no CPML at the top unless asked, and no warning for sources or
// receivers on it (the surface holds szz at 0, not the pressure).
TEST(DeckElastic, FreeSurfaceIsAccepted) {
  std::string text = edit(elastic_deck(), "width: 20}", "width: 20, free_surface: true}");
  const io::Deck d = io::load_deck_text(text, "deck.yaml");
  EXPECT_TRUE(d.problem.boundary.free_surface);
  EXPECT_EQ(d.problem.boundary.width[top], 0);
  EXPECT_EQ(d.problem.boundary.width[bottom], 20);
  for (const std::string& w : d.warnings) EXPECT_EQ(w.find("free surface"), std::string::npos) << w;
  // A CPML asked for at the top with it is still an error.
  EXPECT_DECK_ERROR(
      deck_error(edit(elastic_deck(), "width: 20}", "width: {top: 5}, free_surface: true}")),
      "boundary.width.top", "deck.yaml:15", "must be 0 when boundary.free_surface is true");
}

TEST(DeckElastic, TrueModelAndInversion) {
  const io::Deck d = io::load_deck_text(
      elastic_fwi_deck("  parameters: [vp, vs, rho]\n",
                       "{vp: [1900.0, 3000.0], vs: [0, 1600], rho: [1500, 3000]}"),
      "deck.yaml");
  ASSERT_EQ(d.inversion.parameters.size(), 3u);
  EXPECT_EQ(d.inversion.parameters[1], physics::Parameter::vs);
  EXPECT_EQ(d.inversion.vs_min, 0.0);
  EXPECT_EQ(d.inversion.vs_max, 1600.0);
  EXPECT_EQ(d.inversion.lower_bound(physics::Parameter::vs), 0.0);
  EXPECT_EQ(d.inversion.upper_bound(physics::Parameter::vs), 1600.0);
  EXPECT_EQ(d.inversion.upper_bound(physics::Parameter::rho), 3000.0);
  EXPECT_EQ(d.resolved["inversion"]["bounds"]["vs"][1].as<double>(), 1600.0);
  EXPECT_EQ(d.resolved["inversion"]["parameters"][1].as<std::string>(), "vs");
  // true_model.vs and .rho default to the initial ones.
  EXPECT_EQ(d.true_model.vs, d.problem.model.vs);
  EXPECT_EQ(d.true_model.rho, d.problem.model.rho);
  EXPECT_FALSE(d.resolved["true_model"]["vs"]);
  EXPECT_TRUE(d.warnings.empty()) << d.warnings.front();

  // vs alone; a true vs given; an initial vs outside the bounds and a vs_max that may pass
  // sqrt(3)/2 of the lowest vp are advice.
  std::string text = elastic_fwi_deck("  parameters: [vs]\n", "{vs: [1600, 1800]}");
  text = edit(text, "true_model:\n",
              "true_model:\n  vs: {constant: 1000, layers: [{z: 300, vs: "
              "1300}]}\n");
  const io::Deck v = io::load_deck_text(text, "deck.yaml");
  EXPECT_EQ(v.true_model.vs[0], 1000.0);
  EXPECT_EQ(v.true_model.vs[std::size_t(40) * 61], 1300.0);
  EXPECT_EQ(v.resolved["true_model"]["vs"]["layers"][0]["vs"].as<double>(), 1300.0);
  EXPECT_TRUE(has_warning(v,
                          "inversion.bounds.vs: the initial S velocity (1500 to 1500 m/s) lies "
                          "partly outside [1600, 1800] m/s; the first update clips it"));
  EXPECT_TRUE(has_warning(v,
                          "inversion.bounds.vs: vs_max = 1800 m/s is not below sqrt(3)/2 of "
                          "the lowest vp (2000 m/s)"));
  EXPECT_EQ(v.warnings.size(), 2u);
  // Fluid cells (vs = 0) stay fluid whatever vs_min (the optimiser keeps them at 0): only the
  // solid cells' range is compared with the bounds.
  const io::Deck w =
      io::load_deck_text(elastic_fwi_deck("  parameters: [vs]\n", "{vs: [1400, 1700]}",
                                          "{constant: 0, layers: [{z: 100, vs: 1500}]}"),
                         "deck.yaml");
  EXPECT_FALSE(has_warning(w, "the initial S velocity")) << w.warnings.front();
  const io::Deck ws =
      io::load_deck_text(elastic_fwi_deck("  parameters: [vs]\n", "{vs: [1600, 1700]}",
                                          "{constant: 0, layers: [{z: 100, vs: 1500}]}"),
                         "deck.yaml");
  EXPECT_TRUE(has_warning(ws,
                          "inversion.bounds.vs: the initial S velocity (1500 to 1500 m/s) "
                          "lies partly outside [1600, 1700] m/s"));

  // vs fixed and vp inverted down to a vmin of 1500 m/s, below 1500 / 0.866 = 1732 m/s.
  const io::Deck p = io::load_deck_text(elastic_fwi_deck("", "[1500.0, 3000.0]"), "deck.yaml");
  EXPECT_TRUE(has_warning(p,
                          "inversion.bounds: vmin = 1500 m/s is not above the model's largest "
                          "vs (1500 m/s) / 0.866"));
  EXPECT_EQ(p.warnings.size(), 1u);
}

TEST(DeckElastic, InversionMistakes) {
  // vs is the elastic equation's.
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "  bounds: [1500.0, 3000.0]\n",
                                    "  bounds: [1500.0, 3000.0]\n  parameters: [vp, vs]\n")),
                    "inversion.parameters[1]", "deck.yaml:22",
                    "the equation acoustic has no vs (set physics.equation: elastic to invert it)");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "true_model:\n", "true_model:\n  vs: 1000\n")),
                    "true_model.vs", "deck.yaml:16",
                    "applies to physics.equation: elastic only (the equation acoustic has no "
                    "S-wave velocity)");
  // Bounds per inverted parameter: required, ordered, >= 0 for vs, none for the others.
  EXPECT_DECK_ERROR(
      deck_error(elastic_fwi_deck("  parameters: [vp, vs]\n", "{vp: [1500.0, 3000.0]}")),
      "inversion.bounds.vs", "deck.yaml:23", "required: [lower, upper] in m/s");
  EXPECT_DECK_ERROR(deck_error(elastic_fwi_deck("  parameters: [vs]\n", "{vs: [-1, 1200]}")),
                    "inversion.bounds.vs", "deck.yaml:23",
                    "expected 0 <= vs_min < vs_max (m/s), got [-1, 1200]");
  EXPECT_DECK_ERROR(deck_error(elastic_fwi_deck("  parameters: [vs]\n", "{vs: [1200, 1200]}")),
                    "inversion.bounds.vs", "deck.yaml:23", "expected 0 <= vs_min < vs_max");
  EXPECT_DECK_ERROR(deck_error(elastic_fwi_deck("  parameters: [vs]\n", "{vs: 1200}")),
                    "inversion.bounds.vs", "deck.yaml:23", "expected [vs_min, vs_max] (m/s)");
  EXPECT_DECK_ERROR(deck_error(elastic_fwi_deck("", "{vp: [1500.0, 3000.0], vs: [0, 1200]}")),
                    "inversion.bounds.vs", "deck.yaml:23", "'vs' is not in inversion.parameters");
  EXPECT_DECK_ERROR(deck_error(elastic_fwi_deck("  parameters: [vp, vs]\n", "[1500.0, 3000.0]")),
                    "inversion.bounds", "deck.yaml:23",
                    "vs: [vs_min, vs_max] (m/s)}, one pair for each inverted parameter");
  // The true model's vs below sqrt(3)/2 of its vp too.
  std::string text = elastic_fwi_deck("", "[1500.0, 3000.0]");
  text = edit(text, "true_model:\n", "true_model:\n  vs: 1800\n");
  EXPECT_DECK_ERROR(deck_error(text), "true_model.vs", "deck.yaml:18",
                    "S velocity at cell (iz=0, ix=0) is 1800 m/s, not below sqrt(3)/2 vp");
}

}  // namespace
}  // namespace pwave::test
