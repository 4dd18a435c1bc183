// Gradient and fwi decks: observed data (npy, SEG-Y), gradient storage, true model, inversion
// settings and their defaults, the fixed CPML velocity, model value forms and smoothing.

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "deck_fixtures.hpp"
#include "pwave/io/deck_model.hpp"
#include "pwave/io/npy.hpp"
#include "pwave/io/segy.hpp"

namespace pwave::test {
namespace {

// Observed data of base_deck's acquisition: 2 shots x 3 receivers x 300 samples.
std::vector<double> observed_values(std::size_t nshots = 2, std::size_t nrec = 3,
                                    std::size_t nt = 300) {
  std::vector<double> v(nshots * nrec * nt);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.01 * double(i));
  return v;
}

// Every value of the observed data, read shot by shot as the propagation reads them.
std::vector<double> all_values(const io::DeckObserved& o) {
  if (!o.traces) return {};
  std::vector<double> v(o.traces->shots() * o.traces->shot_size());
  for (std::size_t s = 0; s < o.traces->shots(); ++s) {
    o.traces->read_shot(s, v.data() + s * o.traces->shot_size());
  }
  return v;
}

TEST(DeckTasks, FwiDeckReadsEveryInversionKey) {
  const io::Deck d = io::load_deck_text(fwi_deck(), "deck.yaml");
  EXPECT_EQ(d.task, "fwi");
  EXPECT_EQ(d.storage, Storage::full);
  ASSERT_TRUE(d.has_true_model);
  EXPECT_TRUE(d.observed.file.empty());
  // The anomaly is in the true model only; cell (25, 30) is its centre (z = 250, x = 300).
  EXPECT_DOUBLE_EQ(d.true_model.at(25, 30), 2200.0);
  EXPECT_DOUBLE_EQ(d.true_model.at(25, 36), 2000.0);
  EXPECT_DOUBLE_EQ(d.problem.model.at(25, 30), 2000.0);
  const io::DeckInversion& inv = d.inversion;
  ASSERT_EQ(inv.stages.size(), 1u);
  EXPECT_EQ(inv.stages[0].iterations, 5);
  EXPECT_DOUBLE_EQ(inv.stages[0].max_frequency, 0.0);
  EXPECT_FALSE(inv.stages_given);
  EXPECT_EQ(inv.total_iterations(), 5);
  EXPECT_EQ(inv.batch_size, 1);
  EXPECT_EQ(inv.seed, 1u);
  EXPECT_EQ(inv.optimizer.type, "adam");
  EXPECT_DOUBLE_EQ(inv.optimizer.learning_rate, 10.0);
  EXPECT_DOUBLE_EQ(inv.vmin, 1500.0);
  EXPECT_DOUBLE_EQ(inv.vmax, 3000.0);
  EXPECT_DOUBLE_EQ(inv.smoothing, 20.0);
  EXPECT_DOUBLE_EQ(inv.water_depth, 0.0);
  EXPECT_EQ(inv.output_every, 0);
  EXPECT_EQ(inv.checkpoint_every, 1);
  // An automatic CPML velocity becomes the initial model's vmax, in the resolved deck too.
  EXPECT_DOUBLE_EQ(d.problem.boundary.pml_velocity, 2000.0);
  EXPECT_EQ(d.resolved["boundary"]["pml_velocity"].as<double>(), 2000.0);
  EXPECT_EQ(d.resolved["inversion"]["stages"][0]["iterations"].as<int>(), 5);
  EXPECT_EQ(d.resolved["inversion"]["optimizer"]["beta2"].as<double>(), 0.999);
  EXPECT_FALSE(d.resolved["inversion"]["optimizer"]["momentum"].IsDefined());
  EXPECT_EQ(d.resolved["gradient"]["storage"].as<std::string>(), "full");
  EXPECT_EQ(d.resolved["true_model"]["vp"]["anomalies"][0]["vp"].as<double>(), 2200.0);
}

TEST(DeckTasks, ResolvedFwiDeckLoadsBackToTheSameDeck) {
  const io::Deck a = io::load_deck_text(fwi_deck(), "deck.yaml");
  const io::Deck b = io::load_deck_text(io::resolved_yaml(a), "resolved.yaml");
  EXPECT_EQ(io::resolved_yaml(a), io::resolved_yaml(b));
  EXPECT_EQ(a.true_model.vp, b.true_model.vp);
  EXPECT_EQ(b.problem.boundary.pml_velocity, 2000.0);
  EXPECT_TRUE(b.inversion.stages_given);  // spelled out as stages
}

TEST(DeckTasks, InversionDefaults) {
  std::string text = fwi_deck();
  text = edit(text,
              "  iterations: 5\n  batch_size: 1\n  optimizer: {type: adam, learning_rate: 10.0}\n",
              "");
  text = edit(text, "  smoothing: 20.0\ngradient: {storage: full}\n", "");
  const io::Deck d = io::load_deck_text(text, "deck.yaml");
  EXPECT_EQ(d.storage, Storage::boundary);
  ASSERT_EQ(d.inversion.stages.size(), 1u);
  EXPECT_EQ(d.inversion.stages[0].iterations, 10);
  EXPECT_EQ(d.inversion.batch_size, 0);
  const OptimizerConfig defaults;
  EXPECT_EQ(d.inversion.optimizer.type, "adam");
  EXPECT_EQ(d.inversion.optimizer.learning_rate, defaults.learning_rate);
  EXPECT_EQ(d.inversion.optimizer.beta1, defaults.beta1);
  EXPECT_EQ(d.inversion.optimizer.epsilon, defaults.epsilon);
  EXPECT_EQ(d.inversion.smoothing, 0.0);
  EXPECT_EQ(d.inversion.source_taper, 0.0);
  EXPECT_EQ(d.resolved["gradient"]["storage"].as<std::string>(), "boundary");
}

TEST(DeckTasks, StagesOptimizersAndConditioning) {
  std::string text = edit(fwi_deck(), "  iterations: 5\n",
                          "  stages: [{iterations: 3, max_frequency: 4.0}, {iterations: 2}]\n");
  text = edit(text, "{type: adam, learning_rate: 10.0}",
              "{type: lbfgs, learning_rate: 50, memory: 7}");
  text = edit(text, "  smoothing: 20.0\n",
              "  smoothing: 20.0\n  water_depth: 30\n  source_taper: 40\n  seed: 42\n"
              "  output_every: 2\n  checkpoint_every: 3\n");
  const io::Deck d = io::load_deck_text(text, "deck.yaml");
  const io::DeckInversion& inv = d.inversion;
  ASSERT_EQ(inv.stages.size(), 2u);
  EXPECT_TRUE(inv.stages_given);
  EXPECT_EQ(inv.stages[0].iterations, 3);
  EXPECT_DOUBLE_EQ(inv.stages[0].max_frequency, 4.0);
  EXPECT_EQ(inv.stages[1].iterations, 2);
  EXPECT_DOUBLE_EQ(inv.stages[1].max_frequency, 0.0);
  EXPECT_DOUBLE_EQ(inv.stages[0].min_frequency, 0.0);
  EXPECT_DOUBLE_EQ(inv.stages[1].min_frequency, 0.0);
  EXPECT_FALSE(d.resolved["inversion"]["stages"][0]["min_frequency"]);  // as before: not echoed
  EXPECT_EQ(inv.total_iterations(), 5);
  EXPECT_EQ(inv.optimizer.type, "lbfgs");
  EXPECT_EQ(inv.optimizer.memory, 7);
  EXPECT_DOUBLE_EQ(inv.water_depth, 30.0);
  EXPECT_DOUBLE_EQ(inv.source_taper, 40.0);
  EXPECT_EQ(inv.seed, 42u);
  EXPECT_EQ(inv.output_every, 2);
  EXPECT_EQ(inv.checkpoint_every, 3);
  EXPECT_EQ(d.resolved["inversion"]["optimizer"]["memory"].as<int>(), 7);
  EXPECT_FALSE(d.resolved["inversion"]["optimizer"]["beta1"].IsDefined());

  const io::Deck sgd = io::load_deck_text(
      edit(fwi_deck(), "{type: adam, learning_rate: 10.0}", "{type: sgd, momentum: 0.9}"),
      "deck.yaml");
  EXPECT_EQ(sgd.inversion.optimizer.type, "sgd");
  EXPECT_DOUBLE_EQ(sgd.inversion.optimizer.momentum, 0.9);
  const io::Deck adam = io::load_deck_text(edit(fwi_deck(), "{type: adam, learning_rate: 10.0}",
                                                "{beta1: 0.8, beta2: 0.99, epsilon: 1e-6}"),
                                           "deck.yaml");
  EXPECT_DOUBLE_EQ(adam.inversion.optimizer.beta1, 0.8);
  EXPECT_DOUBLE_EQ(adam.inversion.optimizer.beta2, 0.99);
  EXPECT_DOUBLE_EQ(adam.inversion.optimizer.epsilon, 1e-6);
}

TEST(DeckTasks, PmlVelocity) {
  // Forward decks keep 0 (= the model's vmax, decided by the propagator).
  const io::Deck fwd = io::load_deck_text(base_deck, "deck.yaml");
  EXPECT_EQ(fwd.problem.boundary.pml_velocity, 0.0);
  EXPECT_EQ(fwd.resolved["boundary"]["pml_velocity"].as<double>(), 0.0);
  const io::Deck set = io::load_deck_text(base_deck, "deck.yaml", {"boundary.pml_velocity=3100"});
  EXPECT_EQ(set.problem.boundary.pml_velocity, 3100.0);
  // A given value is kept for an inversion too.
  const io::Deck fwi = io::load_deck_text(fwi_deck(), "deck.yaml", {"boundary.pml_velocity=2500"});
  EXPECT_EQ(fwi.problem.boundary.pml_velocity, 2500.0);
  EXPECT_EQ(fwi.resolved["boundary"]["pml_velocity"].as<double>(), 2500.0);
}

// gradient.misfit: l2 unless given, each value read (fwi and gradient decks, in the deck or by
// --set) and written to the resolved deck, which loads back to the same choice.
TEST(DeckTasks, GradientMisfitIsRead) {
  const io::Deck plain = io::load_deck_text(fwi_deck(), "deck.yaml");
  EXPECT_EQ(plain.misfit.function, misfit::Misfit::l2);
  EXPECT_EQ(plain.resolved["gradient"]["misfit"].as<std::string>(), "l2");
  for (misfit::Misfit kind : misfit::all()) {
    const std::string name = misfit::name(kind);
    const io::Deck d = io::load_deck_text(
        edit(fwi_deck(), "{storage: full}", "{storage: full, misfit: " + name + "}"), "deck.yaml");
    EXPECT_EQ(d.misfit.function, kind) << name;
    EXPECT_EQ(d.storage, Storage::full) << name;
    EXPECT_EQ(d.resolved["gradient"]["misfit"].as<std::string>(), name);
    const io::Deck back = io::load_deck_text(io::resolved_yaml(d), "resolved.yaml");
    EXPECT_EQ(back.misfit.function, kind) << name;
    const io::Deck set = io::load_deck_text(fwi_deck(), "deck.yaml", {"gradient.misfit=" + name});
    EXPECT_EQ(set.misfit.function, kind) << name;
  }
  // A gradient deck without a gradient section takes it by itself.
  const auto dir = scratch_dir("gradient_misfit");
  const std::vector<float> obs(2 * 3 * 300, 0.5f);
  io::write_npy((dir / "obs.npy").string(), obs.data(), {2, 3, 300});
  write_file(dir / "deck.yaml",
             gradient_deck() + "gradient:\n  misfit: normalized_correlation\n");  // 16-17
  const io::Deck g = io::load_deck((dir / "deck.yaml").string());
  EXPECT_EQ(g.misfit.function, misfit::Misfit::normalized_correlation);
  EXPECT_EQ(g.storage, Storage::boundary);
  write_file(dir / "deck.yaml", gradient_deck());
  EXPECT_EQ(io::load_deck((dir / "deck.yaml").string()).misfit.function, misfit::Misfit::l2);
}

// gradient.selection: every key read, written to the resolved deck, which loads back the same;
// mistakes named with key and line.
TEST(DeckTasks, GradientSelectionIsRead) {
  const auto dir = scratch_dir("gradient_selection");
  const std::vector<float> weights = {1, 0.5f, 0, 1, 2, 1};
  io::write_npy((dir / "w.npy").string(), weights.data(), {2, 3});
  const std::string deck = edit(fwi_deck(), "{storage: full}",
                                "{storage: full, selection: {offsets: [10, 400], window: "
                                "{velocity: 1500, t0: 0.05, before: 0.02, after: 0.4}, taper: "
                                "0.01, trace_weights: w.npy, dead_traces: keep}}");
  write_file(dir / "deck.yaml", deck);
  const io::Deck d = io::load_deck((dir / "deck.yaml").string());
  const misfit::Selection& s = d.misfit.selection;
  EXPECT_EQ(s.offset_min, 10.0);
  EXPECT_EQ(s.offset_max, 400.0);
  EXPECT_EQ(s.velocity, 1500.0);
  EXPECT_EQ(s.t0, 0.05);
  EXPECT_EQ(s.before, 0.02);
  EXPECT_EQ(s.after, 0.4);
  EXPECT_EQ(s.taper, 0.01);
  EXPECT_FALSE(s.exclude_dead_traces);
  ASSERT_EQ(s.trace_weights.size(), 6u);
  EXPECT_EQ(s.trace_weights[1], 0.5);
  write_file(dir / "resolved.yaml", io::resolved_yaml(d));
  const io::Deck back = io::load_deck((dir / "resolved.yaml").string());
  EXPECT_EQ(back.misfit.selection.after, 0.4);
  EXPECT_EQ(back.misfit.selection.trace_weights, s.trace_weights);
  EXPECT_TRUE(io::load_deck_text(fwi_deck(), "deck.yaml").misfit.selection.exclude_dead_traces);

  const auto with = [&](const std::string& selection) {
    return edit(fwi_deck(), "{storage: full}", "{storage: full, selection: " + selection + "}");
  };
  EXPECT_DECK_ERROR(deck_error(with("{taper: 0.1}")), "gradient.selection.taper", "deck.yaml:23",
                    "needs gradient.selection.window");
  EXPECT_DECK_ERROR(deck_error(with("{offsets: [400, 10]}")), "gradient.selection.offsets",
                    "deck.yaml:23", "max is below min");
  EXPECT_DECK_ERROR(deck_error(with("{offsets: 10}")), "gradient.selection.offsets", "deck.yaml:23",
                    "expected [min, max]");
  EXPECT_DECK_ERROR(deck_error(with("{window: {before: 0.1}}")), "gradient.selection.window",
                    "deck.yaml:23", "one of them");
  EXPECT_DECK_ERROR(deck_error(with("{window: {velocity: 1500, picks: p.npy}}")),
                    "gradient.selection.window", "deck.yaml:23", "one of them");
  EXPECT_DECK_ERROR(deck_error(with("{window: {velocity: 1500, speed: 2}}")),
                    "gradient.selection.window.speed", "deck.yaml:23",
                    "unknown key 'speed' (valid keys: velocity, picks, t0, before, after)");
  EXPECT_DECK_ERROR(deck_error(with("{dead_traces: drop}")), "gradient.selection.dead_traces",
                    "deck.yaml:23", "exclude");
  const std::vector<float> wrong = {1, 1, 1};
  io::write_npy((dir / "wrong.npy").string(), wrong.data(), {1, 3});
  // Picked first arrivals instead of a moveout velocity: [shot, receiver] times, -1 = no pick.
  const std::vector<float> picks = {0.1f, 0.2f, -1, 0.15f, 0.25f, 0.3f};
  io::write_npy((dir / "picks.npy").string(), picks.data(), {2, 3});
  write_file(dir / "deck.yaml", with("{window: {picks: picks.npy, after: 0.3}}"));
  const io::Deck p = io::load_deck((dir / "deck.yaml").string());
  ASSERT_EQ(p.misfit.selection.picks.size(), 6u);
  EXPECT_EQ(p.misfit.selection.picks[2], -1.0);
  EXPECT_TRUE(p.misfit.selection.windowed());
  EXPECT_EQ(p.resolved["gradient"]["selection"]["window"]["picks"].as<std::string>(), "picks.npy");
  const std::string at = (dir / "deck.yaml").string();
  EXPECT_DECK_ERROR(deck_error(with("{window: {picks: picks.npy, t0: 0.1}}"), {}, at),
                    "gradient.selection.window.t0", at + ":23", "not to picks");
  write_file(dir / "deck.yaml", with("{trace_weights: wrong.npy}"));
  try {
    io::load_deck((dir / "deck.yaml").string());
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "gradient.selection.trace_weights");
    EXPECT_NE(std::string(e.what()).find("needs (2, 3) [shot, receiver]"), std::string::npos)
        << e.what();
  }
}

TEST(DeckTasks, GradientDeckReadsObservedNpyRelativeToTheDeck) {
  const auto dir = scratch_dir("observed_npy");
  const std::vector<double> values = observed_values();
  const std::vector<float> f32(values.begin(), values.end());
  io::write_npy((dir / "obs.npy").string(), f32.data(), {2, 3, 300});
  write_file(dir / "deck.yaml", gradient_deck());
  const io::Deck d = io::load_deck((dir / "deck.yaml").string());
  EXPECT_EQ(d.task, "gradient");
  EXPECT_EQ(d.storage, Storage::boundary);
  EXPECT_EQ(d.observed.format, "npy");
  EXPECT_EQ(d.observed.shape, (std::vector<std::size_t>{2, 3, 300}));
  const std::vector<double> read = all_values(d.observed);
  ASSERT_EQ(read.size(), values.size());
  EXPECT_DOUBLE_EQ(read[123], double(f32[123]));
  EXPECT_TRUE(std::filesystem::path(d.observed.file).is_absolute());
  EXPECT_EQ(d.resolved["observed"]["file"].as<std::string>(), d.observed.file);
  EXPECT_EQ(d.resolved["observed"]["format"].as<std::string>(), "npy");
  EXPECT_DOUBLE_EQ(d.problem.boundary.pml_velocity, 2000.0);
  EXPECT_FALSE(d.resolved["inversion"].IsDefined());

  // float64 data convert the same way.
  io::write_npy((dir / "obs.npy").string(), values.data(), {2, 3, 300});
  EXPECT_EQ(all_values(io::load_deck((dir / "deck.yaml").string()).observed), values);
}

TEST(DeckTasks, ObservedSegyWrittenByPwaveReadsBack) {
  const auto dir = scratch_dir("observed_segy");
  const io::Deck fwd = io::load_deck_text(base_deck, "deck.yaml");
  const std::vector<double> values = observed_values();
  const std::vector<float> f32(values.begin(), values.end());
  io::write_shot_gathers_segy((dir / "obs.segy").string(), f32.data(), 2, 3, 300, 0.001,
                              fwd.problem.shots);
  write_file(dir / "deck.yaml", edit(gradient_deck(), "obs.npy", "obs.segy"));
  const io::Deck d = io::load_deck((dir / "deck.yaml").string());
  EXPECT_EQ(d.observed.format, "segy");
  EXPECT_EQ(d.observed.shape, (std::vector<std::size_t>{2, 3, 300}));
  const std::vector<double> read = all_values(d.observed);
  ASSERT_EQ(read.size(), f32.size());
  for (std::size_t i = 0; i < f32.size(); ++i) ASSERT_EQ(read[i], double(f32[i])) << i;

  // Another extension needs the format spelled out.
  std::filesystem::copy_file(dir / "obs.segy", dir / "obs.data");
  write_file(dir / "deck.yaml",
             edit(gradient_deck(), "{file: obs.npy}", "{file: obs.data, format: segy}"));
  EXPECT_EQ(all_values(io::load_deck((dir / "deck.yaml").string()).observed), read);
}

TEST(DeckTasks, OutputPlots) {
  EXPECT_TRUE(io::load_deck_text(base_deck, "deck.yaml").output.plots);
  const io::Deck d = io::load_deck_text(
      edit(base_deck, "{directory: out}", "{directory: out, plots: false}"), "deck.yaml");
  EXPECT_FALSE(d.output.plots);
  EXPECT_FALSE(d.resolved["output"]["plots"].as<bool>());
}

TEST(DeckModelForms, ConstantLayersAndAnomalies) {
  const io::Deck d = io::load_deck_text(
      edit(base_deck, "vp: 2000.0",
           "vp: {constant: 1800, layers: [{z: 100, vp: 2500}, {z: 305, vp: 3000}], "
           "anomalies: [{x: 300, z: 200, radius: 20, vp: 1500}]}"),
      "deck.yaml");
  const Model& m = d.problem.model;
  EXPECT_DOUBLE_EQ(m.at(9, 0), 1800.0);    // z = 90 m
  EXPECT_DOUBLE_EQ(m.at(10, 0), 2500.0);   // z = 100 m: the layer starts at its z
  EXPECT_DOUBLE_EQ(m.at(30, 0), 2500.0);   // z = 300 m
  EXPECT_DOUBLE_EQ(m.at(31, 0), 3000.0);   // z = 310 m
  EXPECT_DOUBLE_EQ(m.at(20, 30), 1500.0);  // the centre
  EXPECT_DOUBLE_EQ(m.at(22, 30), 1500.0);  // 20 m below it: on the circle
  EXPECT_DOUBLE_EQ(m.at(20, 33), 2500.0);  // 30 m away: outside
  EXPECT_EQ(d.resolved["model"]["vp"]["constant"].as<double>(), 1800.0);
  EXPECT_EQ(d.resolved["model"]["vp"]["layers"][1]["z"].as<double>(), 305.0);
  EXPECT_EQ(d.resolved["model"]["vp"]["smooth"].as<double>(), 0.0);
}

TEST(DeckModelForms, SmoothingSpreadsAnImpulseAsAGaussian) {
  Grid g{41, 61, 10.0, 5.0};
  std::vector<double> v(std::size_t(g.cells()), 0.0);
  v[std::size_t(20) * 61 + 30] = 1.0;
  io::smooth_gaussian(v, g, 20.0);  // sigma = 2 cells in z, 4 cells in x
  EXPECT_NEAR(std::accumulate(v.begin(), v.end(), 0.0), 1.0, 1e-12);
  const double centre = v[std::size_t(20) * 61 + 30];
  EXPECT_NEAR(v[std::size_t(22) * 61 + 30] / centre, std::exp(-0.5), 1e-3);  // 1 sigma in z
  EXPECT_NEAR(v[std::size_t(20) * 61 + 34] / centre, std::exp(-0.5), 1e-3);  // 1 sigma in x
  EXPECT_DOUBLE_EQ(v[std::size_t(18) * 61 + 30], v[std::size_t(22) * 61 + 30]);
  // A constant stays constant (edges extended, weights normalised).
  std::vector<double> c(std::size_t(g.cells()), 2500.0);
  io::smooth_gaussian(c, g, 100.0);
  for (double x : c) EXPECT_NEAR(x, 2500.0, 1e-9);
}

TEST(DeckModelForms, SmoothAppliesToFilesAndBuiltModels) {
  const auto dir = scratch_dir("smooth_vp");
  std::vector<float> v(51 * 61, 2000.0f);
  for (int iz = 25; iz < 51; ++iz)
    for (int ix = 0; ix < 61; ++ix) v[std::size_t(iz) * 61 + ix] = 3000.0f;
  write_raw_f32(dir / "vp.bin", v);
  std::string text = edit(base_deck, "vp: 2000.0", "vp: {file: vp.bin, smooth: 30}");
  text = edit(text, "dt: 0.001", "dt: 0.0005");
  write_file(dir / "deck.yaml", text);
  const io::Deck d = io::load_deck((dir / "deck.yaml").string());
  const Model& m = d.problem.model;
  EXPECT_GT(m.at(24, 30), 2000.0);
  EXPECT_LT(m.at(25, 30), 3000.0);
  EXPECT_NEAR(m.at(0, 30), 2000.0, 1e-6);
  EXPECT_NEAR(m.at(50, 30), 3000.0, 1e-6);
  EXPECT_EQ(d.resolved["model"]["vp"]["smooth"].as<double>(), 30.0);

  const io::Deck built =
      io::load_deck_text(edit(text, "vp: {file: vp.bin, smooth: 30}",
                              "vp: {constant: 2000, layers: [{z: 250, vp: 3000}], smooth: 30}"),
                         "deck.yaml");
  for (std::size_t i = 0; i < m.vp.size(); ++i) {
    ASSERT_NEAR(built.problem.model.vp[i], m.vp[i], 1e-3) << i;
  }
}

}  // namespace
}  // namespace pwave::test

namespace pwave::test {
namespace {

TEST(DeckTasks, BandPassStages) {
  const std::string text = edit(fwi_deck(), "  iterations: 5\n",
                                "  stages: [{iterations: 2, min_frequency: 3, max_frequency: 8}, "
                                "{iterations: 1, min_frequency: 2.5}, {iterations: 1}]\n");
  const io::Deck d = io::load_deck_text(text, "deck.yaml");
  const io::DeckInversion& inv = d.inversion;
  ASSERT_EQ(inv.stages.size(), 3u);
  EXPECT_DOUBLE_EQ(inv.stages[0].min_frequency, 3.0);
  EXPECT_DOUBLE_EQ(inv.stages[0].max_frequency, 8.0);
  EXPECT_DOUBLE_EQ(inv.stages[1].min_frequency, 2.5);  // a high-pass alone
  EXPECT_DOUBLE_EQ(inv.stages[1].max_frequency, 0.0);
  EXPECT_DOUBLE_EQ(inv.stages[2].min_frequency, 0.0);
  const YAML::Node stages = d.resolved["inversion"]["stages"];
  EXPECT_EQ(stages[0]["min_frequency"].as<double>(), 3.0);
  EXPECT_EQ(stages[1]["min_frequency"].as<double>(), 2.5);
  EXPECT_FALSE(stages[2]["min_frequency"]);
  // The resolved deck loads again to the same stages.
  const io::Deck again = io::load_deck_text(io::resolved_yaml(d), "deck.yaml");
  EXPECT_DOUBLE_EQ(again.inversion.stages[0].min_frequency, 3.0);
  EXPECT_DOUBLE_EQ(again.inversion.stages[1].min_frequency, 2.5);
}

}  // namespace
}  // namespace pwave::test
