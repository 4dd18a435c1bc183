// Bad gradient and fwi decks: each gives one InputError naming the full key and its line.

#include <gtest/gtest.h>

#include <cstdint>

#include "deck_fixtures.hpp"
#include "pwave/io/deck_observed.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::test {
namespace {

TEST(DeckTaskErrors, MissingObservedData) {
  std::string gradient = base_deck;
  gradient.replace(0, 13, "task: gradient");
  EXPECT_DECK_ERROR(deck_error(gradient), "observed", "deck.yaml:1",
                    "'observed': required for task gradient");
  std::string fwi = edit(fwi_deck(), "true_model:\n", "true_modelx:\n");
  fwi = edit(fwi,
             "true_modelx:\n  vp: {constant: 2000.0, anomalies: [{x: 300, z: 250, radius: "
             "50, vp: 2200}]}\n",
             "");
  EXPECT_DECK_ERROR(deck_error(fwi), "observed", "deck.yaml:1",
                    "task fwi needs observed data: give observed: {file: data.npy}, or "
                    "true_model");
  EXPECT_DECK_ERROR(deck_error(fwi_deck() + "observed: {file: obs.npy}\n"), "true_model",
                    "deck.yaml:15", "give either observed");
}

TEST(DeckTaskErrors, SectionsOfOtherTasks) {
  EXPECT_DECK_ERROR(deck_error(std::string(base_deck) + "inversion: {bounds: [1, 2]}\n"),
                    "inversion", "deck.yaml:15",
                    "applies to task fwi only (this deck has task: forward)");
  EXPECT_DECK_ERROR(deck_error(std::string(base_deck) + "observed: {file: x.npy}\n"), "observed",
                    "deck.yaml:15", "applies to tasks gradient and fwi only");
  EXPECT_DECK_ERROR(deck_error(std::string(base_deck) + "gradient: {storage: full}\n"), "gradient",
                    "deck.yaml:15", "applies to tasks gradient and fwi only");
  EXPECT_DECK_ERROR(deck_error(gradient_deck() + "true_model: {vp: 2000}\n"), "true_model",
                    "deck.yaml:16", "applies to task fwi only (this deck has task: gradient)");
  EXPECT_DECK_ERROR(deck_error(gradient_deck() + "inversion:\n  iterations: 3\n"), "inversion",
                    "deck.yaml:16", "applies to task fwi only");
}

// An .npy file written byte by byte (header dict as given, values in native order), so that
// headers our writer never produces can be tested.
template <class V>
void write_npy_bytes(const std::filesystem::path& path, std::string dict, const std::vector<V>& v) {
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(dict.size() & 0xFF);
  out += char((dict.size() >> 8) & 0xFF);
  out += dict;
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(V));
  write_file(path, out);
}

TEST(DeckTaskErrors, ObservedFiles) {
  const auto dir = scratch_dir("bad_observed");
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
  EXPECT_DECK_ERROR(error_for(gradient_deck()), "observed.file", deck + ":15",
                    "file 'obs.npy' not found");
  // Shape: both the file's and the one needed are named.
  std::vector<float> v(2 * 3 * 200, 0.0f);
  io::write_npy((dir / "obs.npy").string(), v.data(), {2, 3, 200});
  const auto shape = error_for(gradient_deck());
  EXPECT_DECK_ERROR(shape, "observed.file", deck + ":15",
                    "'obs.npy' holds data of shape [2, 3, 200] but the acquisition and time.nt "
                    "need [2, 3, 300] ([shot, receiver, time])");
  io::write_npy((dir / "obs.npy").string(), v.data(), {600, 2});
  EXPECT_DECK_ERROR(error_for(gradient_deck()), "observed.file", deck + ":15",
                    "shape [600, 2] but the acquisition and time.nt need [2, 3, 300]");
  // Values are checked apart from the deck (by slices of shots, one per rank), still naming
  // the key and its line.
  std::vector<float> bad(2 * 3 * 300, 0.0f);
  bad[900 + 17] = std::numeric_limits<float>::quiet_NaN();
  io::write_npy((dir / "obs.npy").string(), bad.data(), {2, 3, 300});
  const io::Deck with_nan = io::load_deck(deck);
  EXPECT_NO_THROW(io::check_observed_values(with_nan.observed, 0, 1));  // shot 0 is fine
  CaughtError nan;
  try {
    io::check_observed_values(with_nan.observed, 1, 2);
  } catch (const InputError& e) {
    nan = {true, e.key(), e.where(), e.what()};
  }
  EXPECT_TRUE(nan.thrown);
  EXPECT_DECK_ERROR(nan, "observed.file", deck + ":15", "value 917 (C order) is not finite");
  // Arrays that cannot be read in place are refused with the numpy line that fixes them.
  const std::vector<float> good(2 * 3 * 300, 0.0f);
  write_npy_bytes(dir / "obs.npy",
                  "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3, 300), }", good);
  EXPECT_DECK_ERROR(error_for(gradient_deck()), "observed.file", deck + ":15",
                    "is stored in Fortran order (fortran_order: True), not C order; observed data "
                    "are read in place from the file: re-save it with "
                    "np.save(name, np.ascontiguousarray(a, dtype='<f4'))");
  write_npy_bytes(dir / "obs.npy",
                  "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3, 300), }",
                  std::vector<std::int32_t>(2 * 3 * 300, 0));
  EXPECT_DECK_ERROR(error_for(gradient_deck()), "observed.file", deck + ":15",
                    "holds <i4 integers, not float32 or float64");
  write_npy_bytes(dir / "obs.npy",
                  "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3, 300), }", good);
  EXPECT_DECK_ERROR(error_for(gradient_deck()), "observed.file", deck + ":15",
                    "holds >f4 values in the other byte order");
  // A file cut short (a copy that did not finish) is found before anything maps past its end.
  write_npy_bytes(dir / "obs.npy",
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 300), }",
                  std::vector<float>(2 * 3 * 300 - 1, 0.0f));
  EXPECT_DECK_ERROR(error_for(gradient_deck()), "observed.file", deck + ":15",
                    "truncated data: expected 7200 bytes for shape [2, 3, 300] of <f4, found 7196");
  write_file(dir / "obs.txt", "hello");
  EXPECT_DECK_ERROR(error_for(edit(gradient_deck(), "obs.npy", "obs.txt")), "observed.file",
                    deck + ":15", "set observed.format: npy or segy");
  EXPECT_DECK_ERROR(
      error_for(edit(gradient_deck(), "{file: obs.npy}", "{file: obs.txt, format: segy}")),
      "observed.file", deck + ":15", "obs.txt");
  EXPECT_DECK_ERROR(
      error_for(edit(gradient_deck(), "{file: obs.npy}", "{file: obs.npy, format: sgy}")),
      "observed.format", deck + ":15", "expected npy or segy, got 'sgy'");
  EXPECT_DECK_ERROR(error_for(edit(gradient_deck(), "{file: obs.npy}", "{path: obs.npy}")),
                    "observed.path", deck + ":15", "unknown key 'path'");
}

TEST(DeckTaskErrors, GradientStorage) {
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "{storage: full}", "{storage: ful}")),
                    "gradient.storage", "deck.yaml:23",
                    "expected boundary, checkpoint or full, got 'ful' (did you mean 'full'?)");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "{storage: full}", "{storage: checkpoints}")),
                    "gradient.storage", "deck.yaml:23",
                    "got 'checkpoints' (did you mean 'checkpoint'?)");
  // Settings of one strategy with another, and bad values.
  EXPECT_DECK_ERROR(
      deck_error(edit(fwi_deck(), "{storage: full}", "{storage: boundary, stride: 2}")),
      "gradient.stride", "deck.yaml:23", "applies to storage: full only");
  EXPECT_DECK_ERROR(
      deck_error(edit(fwi_deck(), "{storage: full}", "{storage: full, checkpoint_interval: 9}")),
      "gradient.checkpoint_interval", "deck.yaml:23", "applies to storage: checkpoint only");
  EXPECT_DECK_ERROR(
      deck_error(edit(fwi_deck(), "{storage: full}", "{storage: full, compression: fp8}")),
      "gradient.compression", "deck.yaml:23", "expected none, bf16 or int8");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "{storage: full}", "{storage: full, stride: 0}")),
                    "gradient.stride", "deck.yaml:23", "");
}

// An unknown gradient.misfit names the key, its line (or --set) and the choices.
TEST(DeckTaskErrors, GradientMisfit) {
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "{storage: full}", "{storage: full, misfit: l1}")),
                    "gradient.misfit", "deck.yaml:23",
                    "expected l2, trace_normalized_l2, normalized_correlation or envelope, got "
                    "'l1'");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "gradient: {storage: full}\n",
                                    "gradient:\n  storage: full\n  misfit: envelop\n")),  // 23-25
                    "gradient.misfit", "deck.yaml:25", "got 'envelop' (did you mean 'envelope'?)");
  EXPECT_DECK_ERROR(deck_error(fwi_deck(), {"gradient.misfit=correlation"}), "gradient.misfit",
                    "--set",
                    "expected l2, trace_normalized_l2, normalized_correlation or envelope");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "{storage: full}", "{misfit: [l2]}")),
                    "gradient.misfit", "deck.yaml:23", "got a list");
}

TEST(DeckTaskErrors, GradientStorageSettingsAreRead) {
  const io::Deck c = io::load_deck_text(
      edit(fwi_deck(), "{storage: full}", "{storage: checkpoint, checkpoint_interval: 12}"),
      "deck.yaml");
  EXPECT_EQ(c.storage_options.strategy, Storage::checkpoint);
  EXPECT_EQ(c.storage_options.interval, 12);
  const io::Deck f = io::load_deck_text(
      edit(fwi_deck(), "{storage: full}", "{storage: full, stride: 4, compression: bf16}"),
      "deck.yaml");
  EXPECT_EQ(f.storage_options.strategy, Storage::full);
  EXPECT_EQ(f.storage_options.stride, 4);
  EXPECT_EQ(f.storage_options.compression, Compression::bf16);
  EXPECT_EQ(f.resolved["gradient"]["compression"].as<std::string>(), "bf16");
}

TEST(DeckTaskErrors, Bounds) {
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "[1500.0, 3000.0]", "[-1500.0, 3000.0]")),
                    "inversion.bounds", "deck.yaml:21",
                    "expected 0 < vmin < vmax (m/s), got [-1500, 3000]");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "[1500.0, 3000.0]", "[3000.0, 1500.0]")),
                    "inversion.bounds", "deck.yaml:21", "got [3000, 1500]");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "[1500.0, 3000.0]", "[1500.0]")),
                    "inversion.bounds", "deck.yaml:21", "expected [vmin, vmax]");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "[1500.0, 3000.0]", "[1500.0, fast]")),
                    "inversion.bounds[1]", "deck.yaml:21", "expected a number, got 'fast'");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "  bounds: [1500.0, 3000.0]\n", "")),
                    "inversion.bounds", "deck.yaml:18", "missing required key ([vmin, vmax]");
  // The inversion may reach vmax: dt must be stable there.
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "[1500.0, 3000.0]", "[1500.0, 9000.0]")),
                    "inversion.bounds", "deck.yaml:21",
                    "vmax = 9000 m/s, where time.dt = 0.001 s is unstable for order 8");
}

TEST(DeckTaskErrors, Optimizer) {
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "type: adam", "type: adma")),
                    "inversion.optimizer.type", "deck.yaml:20",
                    "expected adam, lbfgs or sgd, got 'adma' (did you mean 'adam'?)");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "type: adam", "type: bfgs")),
                    "inversion.optimizer.type", "deck.yaml:20", "(did you mean 'lbfgs'?)");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "learning_rate: 10.0", "learning_rate: 0")),
                    "inversion.optimizer.learning_rate", "deck.yaml:20",
                    "expected a positive number, got '0'");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "learning_rate: 10.0", "learning_rate: -5")),
                    "inversion.optimizer.learning_rate", "deck.yaml:20", "positive");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "type: adam", "type: sgd, beta1: 0.5")),
                    "inversion.optimizer.beta1", "deck.yaml:20",
                    "applies to optimizer.type adam only (the type here is sgd)");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "type: adam", "type: adam, memory: 3")),
                    "inversion.optimizer.memory", "deck.yaml:20", "lbfgs only");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "type: adam", "type: adam, beta1: 1.0")),
                    "inversion.optimizer.beta1", "deck.yaml:20", "expected a number in [0, 1)");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "type: adam", "typ: adam")),
                    "inversion.optimizer.typ", "deck.yaml:20", "did you mean 'type'?");
}

TEST(DeckTaskErrors, IterationsBatchAndStages) {
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "iterations: 5", "iterations: 0")),
                    "inversion.iterations", "deck.yaml:18", "expected a positive integer, got '0'");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "batch_size: 1", "batch_size: 3")),
                    "inversion.batch_size", "deck.yaml:19",
                    "batch_size = 3 is more than the 2 shot(s) of the acquisition");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "batch_size: 1", "batch_size: -1")),
                    "inversion.batch_size", "deck.yaml:19", "expected an integer >= 0, got '-1'");
  const std::string staged = edit(fwi_deck(), "  iterations: 5\n",
                                  "  stages: [{iterations: 2, max_frequency: 5}, "
                                  "{max_frequency: 8}]\n");
  EXPECT_DECK_ERROR(deck_error(staged), "inversion.stages[1].iterations", "deck.yaml:18",
                    "missing required key");
  EXPECT_DECK_ERROR(
      deck_error(edit(staged, "{max_frequency: 8}", "{iterations: 0, max_frequency: 8}")),
      "inversion.stages[1].iterations", "deck.yaml:18", "expected a positive integer");
  EXPECT_DECK_ERROR(deck_error(edit(staged, "{max_frequency: 8}", "{iterations: 1, fmax: 8}")),
                    "inversion.stages[1].fmax", "deck.yaml:18",
                    "unknown key 'fmax' (valid keys: iterations, max_frequency, min_frequency)");
  EXPECT_DECK_ERROR(
      deck_error(edit(staged, "{max_frequency: 8}", "{iterations: 1, max_frequency: -8}")),
      "inversion.stages[1].max_frequency", "deck.yaml:18", "expected a number >= 0");
  EXPECT_DECK_ERROR(
      deck_error(edit(staged, "{max_frequency: 8}", "{iterations: 1, min_frequency: -2}")),
      "inversion.stages[1].min_frequency", "deck.yaml:18", "expected a number >= 0");
  EXPECT_DECK_ERROR(deck_error(edit(staged, "{max_frequency: 8}",
                                    "{iterations: 1, min_frequency: 8, max_frequency: 8}")),
                    "inversion.stages[1].min_frequency", "deck.yaml:18",
                    "is 8 Hz, not below max_frequency 8 Hz");
  EXPECT_DECK_ERROR(deck_error(edit(staged, "{max_frequency: 8}",
                                    "{iterations: 1, min_frequency: 9, max_frequency: 8}")),
                    "inversion.stages[1].min_frequency", "deck.yaml:18",
                    "is 9 Hz, not below max_frequency 8 Hz");
  EXPECT_DECK_ERROR(
      deck_error(edit(staged, "{max_frequency: 8}", "{iterations: 1, max_frequency: 500}")),
      "inversion.stages[1].max_frequency", "deck.yaml:18",
      "is 500 Hz, at or above the Nyquist frequency 500 Hz of time.dt = 0.001 s");
  EXPECT_DECK_ERROR(
      deck_error(edit(staged, "{max_frequency: 8}", "{iterations: 1, min_frequency: 700}")),
      "inversion.stages[1].min_frequency", "deck.yaml:18",
      "is 700 Hz, at or above the Nyquist frequency 500 Hz of time.dt = 0.001 s");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "  iterations: 5\n", "  stages: []\n")),
                    "inversion.stages", "deck.yaml:18", "expected a non-empty list");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "  iterations: 5\n",
                                    "  iterations: 5\n  stages: [{iterations: 1}]\n")),
                    "inversion.iterations", "deck.yaml:18",
                    "give either iterations or stages, not both");
}

TEST(DeckTaskErrors, InversionSettings) {
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "smoothing: 20.0", "smoothing: -1")),
                    "inversion.smoothing", "deck.yaml:22", "expected a number >= 0, got '-1'");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "smoothing: 20.0", "water_depth: 500")),
                    "inversion.water_depth", "deck.yaml:22",
                    "is not above the model's bottom (z = 500 m)");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "smoothing: 20.0", "output_every: -2")),
                    "inversion.output_every", "deck.yaml:22", "expected an integer >= 0");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "smoothing: 20.0", "checkpoint_every: 0")),
                    "inversion.checkpoint_every", "deck.yaml:22", "expected a positive integer");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "smoothing: 20.0", "smoothng: 20.0")),
                    "inversion.smoothng", "deck.yaml:22", "did you mean 'smoothing'?");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(),
                                    "inversion:\n  iterations: 5\n  batch_size: 1\n"
                                    "  optimizer: {type: adam, learning_rate: 10.0}\n"
                                    "  bounds: [1500.0, 3000.0]\n  smoothing: 20.0\n",
                                    "")),
                    "inversion", "deck.yaml:1", "required for task fwi");
}

TEST(DeckTaskErrors, TrueModel) {
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "vp: 2200}", "vp: 9000}")), "true_model.vp",
                    "deck.yaml:16", "vmax = 9000 m/s makes time.dt = 0.001 s unstable");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "  vp: {constant", "  vq: {constant")),
                    "true_model.vq", "deck.yaml:16", "did you mean 'vp'?");
  EXPECT_DECK_ERROR(deck_error(edit(fwi_deck(), "radius: 50", "radius: 0")),
                    "true_model.vp.anomalies[0].radius", "deck.yaml:16",
                    "expected a positive number");
}

TEST(DeckTaskErrors, ModelValueForms) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "vp: 2000.0", "vp: {layers: [{z: 100, vp: 2500}]}")),
                    "model.vp.constant", "deck.yaml:6",
                    "missing required key (m/s: the background velocity");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "vp: 2000.0",
                      "vp: {constant: 2000, layers: [{z: 300, vp: 2500}, {z: 100, vp: 3000}]}")),
      "model.vp.layers[1].z", "deck.yaml:6", "layers must be listed from the shallowest down");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "vp: 2000.0", "vp: {constant: 2000, layers: {z: 100}}")),
      "model.vp.layers", "deck.yaml:6", "expected a list of maps");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "vp: 2000.0",
                      "vp: {constant: 2000, anomalies: [{x: 5000, z: 100, radius: 10, vp: 1}]}")),
      "model.vp.anomalies[0]", "deck.yaml:6", "contains no cell of the model");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "vp: 2000.0", "vp: {constant: 2000, anomalies: [{x: 100}]}")),
      "model.vp.anomalies[0].z", "deck.yaml:6", "missing required key");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "vp: 2000.0", "vp: {constant: 2000, layers: [{z: 1, v: 2}]}")),
      "model.vp.layers[0].v", "deck.yaml:6", "unknown key 'v'");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "vp: 2000.0", "vp: {constant: 2000, stride: 2}")),
                    "model.vp.stride", "deck.yaml:6", "applies to the {file: ...} form only");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "vp: 2000.0", "vp: {file: vp.bin, constant: 2000}")),
                    "model.vp.constant", "deck.yaml:6", "applies to the {constant: ...} form only");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "vp: 2000.0", "vp: {constant: 2000, smooth: -1}")),
                    "model.vp.smooth", "deck.yaml:6", "expected a number >= 0");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "vp: 2000.0", "vp: {constant: -2000}")),
                    "model.vp.constant", "deck.yaml:6", "expected a positive number");
}

TEST(DeckTaskErrors, PmlVelocityAndPlots) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "width: 20}", "width: 20, pml_velocity: -1}")),
                    "boundary.pml_velocity", "deck.yaml:13", "expected a number >= 0");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "{directory: out}", "{directory: out, plots: 2}")),
                    "output.plots", "deck.yaml:14", "expected true or false");
}

}  // namespace
}  // namespace pwave::test
