// `pwave run` and `pwave check` for task gradient and task fwi: outputs and their shapes, the
// misfit against the files it came from, run.json, history.csv, --resume and --stop-after,
// stale results, plots.

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

// The acquisition, time axis and grid the gradient and fwi decks below share (~0.1 s a shot).
std::string common(const fs::path& out_dir) {
  return "precision: float32\n"
         "time: {dt: 0.001, nt: 150}\n"
         "wavelet: {type: ricker, peak_frequency: 10.0, delay: 0.07}\n"
         "acquisition:\n"
         "  sources: {x: [200.0, 400.0], z: 100.0}\n"
         "  receivers: {x: {start: 100, step: 100, count: 5}, z: 50.0}\n"
         "physics: {order: 4}\n"
         "boundary: {type: cpml, width: 10}\n"
         "output: {directory: '" +
         out_dir.string() + "'}\n";
}

std::string forward_deck(const fs::path& out_dir) {
  return "task: forward\nmodel: {shape: [41, 61], spacing: 10.0, vp: 2000.0}\n" + common(out_dir);
}

std::string gradient_deck(const fs::path& out_dir, const fs::path& observed) {
  return "task: gradient\n"
         "model:\n"
         "  shape: [41, 61]\n"
         "  spacing: 10.0\n"
         "  vp: {constant: 2000.0, anomalies: [{x: 300, z: 200, radius: 60, vp: 2200}]}\n"
         "observed: {file: '" +
         observed.string() + "'}\n" + common(out_dir);
}

std::string fwi_deck(const fs::path& out_dir, int iterations) {
  return "task: fwi\n"
         "model: {shape: [41, 61], spacing: 10.0, vp: 2000.0}\n"
         "true_model:\n"
         "  vp: {constant: 2000.0, anomalies: [{x: 300, z: 200, radius: 60, vp: 2200}]}\n"
         "inversion:\n"
         "  iterations: " +
         std::to_string(iterations) +
         "\n"
         "  optimizer: {type: adam, learning_rate: 10.0}\n"
         "  bounds: [1500.0, 3000.0]\n"
         "  output_every: 2\n" +
         common(out_dir);
}

pwave::io::NpyArray npy(const fs::path& p) {
  return pwave::io::read_npy(p.string());
}

// history.csv: the header line and one line per iteration.
std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  for (char c : text) {
    if (c == '\n') {
      out.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

const char* const history_header = "iteration,stage,misfit,gradient_norm,step,seconds,dead_traces";

TEST(CliTasks, GradientRunWritesGradientSyntheticAndSummary) {
  const auto dir = scratch_dir("gradient");
  write_file(dir / "forward.yaml", forward_deck(dir / "observed"));
  ASSERT_EQ(pwave("run --no-plots '" + (dir / "forward.yaml").string() + "'", dir).code, 0);
  const fs::path observed = dir / "observed" / "receivers.npy";
  const fs::path out = dir / "out";
  write_file(dir / "gradient.yaml", gradient_deck(out, observed));
  const Result r = pwave("run --no-plots '" + (dir / "gradient.yaml").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;

  const auto gradient = npy(out / "gradient.npy");
  EXPECT_EQ(gradient.shape, (std::vector<std::size_t>{41, 61}));
  EXPECT_EQ(gradient.dtype, "<f4");
  double gmax = 0.0;
  for (double v : gradient.data) {
    ASSERT_TRUE(std::isfinite(v));
    gmax = std::max(gmax, std::abs(v));
  }
  EXPECT_GT(gmax, 0.0);
  const auto synthetic = npy(out / "synthetic.npy");
  EXPECT_EQ(synthetic.shape, (std::vector<std::size_t>{2, 5, 150}));
  const auto obs = npy(observed);
  ASSERT_EQ(obs.data.size(), synthetic.data.size());
  double misfit = 0.0;
  for (std::size_t i = 0; i < obs.data.size(); ++i) {
    const double d = synthetic.data[i] - obs.data[i];
    misfit += 0.5 * d * d;
  }
  EXPECT_GT(misfit, 0.0);

  const YAML::Node summary = YAML::LoadFile((out / "summary.json").string());  // JSON is YAML
  EXPECT_EQ(summary["task"].as<std::string>(), "gradient");
  EXPECT_EQ(summary["storage"].as<std::string>(), "boundary");
  EXPECT_EQ(summary["shots"].as<int>(), 2);
  EXPECT_GE(summary["seconds"].as<double>(), 0.0);
  const double reported = summary["misfit"].as<double>();
  EXPECT_TRUE(std::isfinite(reported));
  EXPECT_NEAR(reported, misfit, 1e-5 * misfit);

  const YAML::Node run = YAML::LoadFile((out / "run.json").string());
  EXPECT_EQ(run["task"].as<std::string>(), "gradient");
  EXPECT_EQ(run["nz"].as<int>(), 41);
  EXPECT_EQ(run["nx"].as<int>(), 61);
  EXPECT_EQ(run["nt"].as<int>(), 150);
  EXPECT_EQ(run["dt"].as<double>(), 0.001);
  EXPECT_EQ(run["sources"].size(), 2u);
  EXPECT_EQ(run["sources"][1][0].as<double>(), 400.0);
  EXPECT_EQ(run["receivers"].size(), 5u);
  EXPECT_EQ(run["receivers"][4][0].as<double>(), 500.0);
  EXPECT_EQ(run["receivers"][4][1].as<double>(), 50.0);
  EXPECT_EQ(fs::path(run["observed_file"].as<std::string>()), observed);
  EXPECT_FALSE(run["true_model"].as<bool>());
  EXPECT_TRUE(fs::exists(out / "wavelet.npy"));
  EXPECT_FALSE(fs::exists(out / "receivers.npy"));
  // The CPML velocity is fixed at the model's vmax and recorded.
  const YAML::Node resolved = YAML::LoadFile((out / "deck.resolved.yaml").string());
  EXPECT_EQ(resolved["boundary"]["pml_velocity"].as<double>(), 2200.0);
  const std::string log = read_text(out / "pwave.log");
  EXPECT_TRUE(contains(log, "gradient: done")) << log;
  EXPECT_TRUE(contains(log, "plots: disabled")) << log;
  EXPECT_FALSE(has_partial_files(dir));

  // Full storage gives the same gradient.
  const fs::path out_full = dir / "out_full";
  const Result full =
      pwave("run --no-plots '" + (dir / "gradient.yaml").string() +
                "' --set gradient.storage=full --set 'output.directory=" + out_full.string() + "'",
            dir);
  ASSERT_EQ(full.code, 0) << full.err;
  const auto g_full = npy(out_full / "gradient.npy");
  ASSERT_EQ(g_full.data.size(), gradient.data.size());
  for (std::size_t i = 0; i < g_full.data.size(); ++i) {
    ASSERT_NEAR(g_full.data[i], gradient.data[i], 1e-4 * gmax) << i;
  }
  EXPECT_EQ(YAML::LoadFile((out_full / "summary.json").string())["storage"].as<std::string>(),
            "full");
  EXPECT_EQ(summary["dead_traces"].as<long>(), 0);

  // Two dead observed traces (one all zero, one holding a NaN) are counted in summary.json.
  std::vector<float> values(obs.data.begin(), obs.data.end());
  for (std::size_t n = 0; n < 150; ++n) values[(0 * 5 + 1) * 150 + n] = 0.0f;  // shot 0, rec 1
  values[(1 * 5 + 3) * 150 + 40] = std::nanf("");                              // shot 1, rec 3
  pwave::io::write_npy((dir / "dead.npy").string(), values.data(), obs.shape);
  const fs::path out_dead = dir / "out_dead";
  const Result dead = pwave("run --no-plots '" + (dir / "gradient.yaml").string() +
                                "' --set 'observed.file=" + (dir / "dead.npy").string() +
                                "' --set 'output.directory=" + out_dead.string() + "'",
                            dir);
  ASSERT_EQ(dead.code, 0) << dead.err;
  EXPECT_TRUE(contains(dead.err, "warning: observed: 2 dead traces")) << dead.err;
  EXPECT_EQ(YAML::LoadFile((out_dead / "summary.json").string())["dead_traces"].as<long>(), 2);
}

TEST(CliTasks, GradientRejectsDataOfAnotherShape) {
  const auto dir = scratch_dir("gradient_bad_shape");
  write_file(dir / "forward.yaml", forward_deck(dir / "observed"));
  ASSERT_EQ(
      pwave("run --no-plots '" + (dir / "forward.yaml").string() + "' --set time.nt=120", dir).code,
      0);
  write_file(dir / "gradient.yaml", gradient_deck(dir / "out", dir / "observed" / "receivers.npy"));
  expect_one_error_line(
      pwave("run --no-plots '" + (dir / "gradient.yaml").string() + "'", dir), 2,
      (dir / "gradient.yaml").string() + ":6: 'observed.file': '" +
          (dir / "observed" / "receivers.npy").string() +
          "' holds data of shape [2, 5, 120] but the acquisition and time.nt need [2, 5, 150]");
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(CliTasks, FwiRunWritesModelsAndHistory) {
  const auto dir = scratch_dir("fwi");
  const fs::path out = dir / "out";
  write_file(dir / "fwi.yaml", fwi_deck(out, 3));
  const Result r = pwave("run --no-plots '" + (dir / "fwi.yaml").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"model_final.npy", "initial_model.npy", "true_model.npy"}) {
    const auto m = npy(out / name);
    EXPECT_EQ(m.shape, (std::vector<std::size_t>{41, 61})) << name;
    EXPECT_EQ(m.dtype, "<f4") << name;
  }
  EXPECT_EQ(npy(out / "observed.npy").shape, (std::vector<std::size_t>{2, 5, 150}));
  // The final model's synthetics: those a forward run of model_final.npy gives (the CPML
  // velocity fixed as the inversion fixed it: the initial model's 2000 m/s).
  const auto synthetic = npy(out / "synthetic.npy");
  EXPECT_EQ(synthetic.shape, (std::vector<std::size_t>{2, 5, 150}));
  write_file(dir / "forward.yaml", forward_deck(dir / "final_forward"));
  ASSERT_EQ(pwave("run --no-plots '" + (dir / "forward.yaml").string() +
                      "' --set 'model.vp={file: " + (out / "model_final.npy").string() +
                      "}' --set boundary.pml_velocity=2000",
                  dir)
                .code,
            0);
  EXPECT_EQ(npy(dir / "final_forward" / "receivers.npy").data, synthetic.data);
  EXPECT_DOUBLE_EQ(npy(out / "true_model.npy").data[20 * 61 + 30], 2200.0);
  EXPECT_DOUBLE_EQ(npy(out / "initial_model.npy").data[20 * 61 + 30], 2000.0);
  const auto final_model = npy(out / "model_final.npy");
  double change = 0.0;
  for (double v : final_model.data) {
    EXPECT_GE(v, 1500.0 - 1e-3);
    EXPECT_LE(v, 3000.0 + 1e-3);
    change = std::max(change, std::abs(v - 2000.0));
  }
  EXPECT_GT(change, 0.0) << "the inversion did not move the model";
  EXPECT_TRUE(fs::exists(out / "model_0002.npy"));
  EXPECT_TRUE(fs::exists(out / "gradient_0002.npy"));
  EXPECT_TRUE(fs::exists(out / "checkpoint.bin"));

  const std::vector<std::string> history = lines(read_text(out / "history.csv"));
  ASSERT_EQ(history.size(), 4u);
  EXPECT_EQ(history[0], history_header);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(history[i].rfind(std::to_string(i) + ",1,", 0), 0u);

  const YAML::Node run = YAML::LoadFile((out / "run.json").string());
  EXPECT_EQ(run["task"].as<std::string>(), "fwi");
  EXPECT_EQ(run["output_every"].as<int>(), 2);
  EXPECT_EQ(run["observed_file"].as<std::string>(), "");
  EXPECT_TRUE(run["true_model"].as<bool>());
  const YAML::Node summary = YAML::LoadFile((out / "summary.json").string());
  EXPECT_EQ(summary["iterations_done"].as<int>(), 3);
  EXPECT_TRUE(summary["completed"].as<bool>());
  EXPECT_EQ(summary["dead_traces"].as<long>(), 0);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(history[i].substr(history[i].rfind(',')), ",0");
  // The CPML stays at the initial model's vmax.
  EXPECT_EQ(YAML::LoadFile((out / "deck.resolved.yaml").string())["boundary"]["pml_velocity"]
                .as<double>(),
            2000.0);
  EXPECT_FALSE(has_partial_files(dir));

  // The same inversion from a data file (memory-mapped, read per batch) instead of a true model
  // gives the same misfits and the same final model, bit for bit; so does propagating one shot
  // at a time.
  std::string text = fwi_deck(dir / "out_file", 3);
  const std::string true_model =
      "true_model:\n"
      "  vp: {constant: 2000.0, anomalies: [{x: 300, z: 200, radius: 60, vp: 2200}]}\n";
  text.replace(text.find(true_model), true_model.size(),
               "observed: {file: '" + (out / "observed.npy").string() + "'}\n");
  write_file(dir / "fwi_file.yaml", text);
  const Result from_file = pwave("run --no-plots '" + (dir / "fwi_file.yaml").string() + "'", dir);
  ASSERT_EQ(from_file.code, 0) << from_file.err;
  EXPECT_FALSE(fs::exists(dir / "out_file" / "true_model.npy"));
  EXPECT_FALSE(fs::exists(dir / "out_file" / "observed.npy"));
  const YAML::Node run_file = YAML::LoadFile((dir / "out_file" / "run.json").string());
  EXPECT_EQ(fs::path(run_file["observed_file"].as<std::string>()), out / "observed.npy");
  EXPECT_FALSE(run_file["true_model"].as<bool>());
  const Result one_shot = pwave("run --no-plots '" + (dir / "fwi_file.yaml").string() +
                                    "' --set execution.shot_batch=1 --set output.directory='" +
                                    (dir / "out_one").string() + "'",
                                dir);
  ASSERT_EQ(one_shot.code, 0) << one_shot.err;
  for (const char* run_dir : {"out_file", "out_one"}) {
    const std::vector<std::string> h = lines(read_text(dir / run_dir / "history.csv"));
    ASSERT_EQ(h.size(), history.size()) << run_dir;
    for (std::size_t i = 1; i < h.size(); ++i) {
      // Same iteration, stage, misfit, gradient norm, step and dead traces; only the seconds
      // (the sixth column) differ.
      const auto without_seconds = [](const std::string& row) {
        std::size_t at = 0;
        for (int c = 0; c < 5; ++c) at = row.find(',', at) + 1;
        return row.substr(0, at) + row.substr(row.find(',', at));
      };
      EXPECT_EQ(without_seconds(h[i]), without_seconds(history[i])) << run_dir;
    }
    EXPECT_EQ(read_text(dir / run_dir / "model_final.npy"), read_text(out / "model_final.npy"))
        << run_dir;
  }

  // A value that is not finite: its trace is left out of the misfit and counted in a warning
  // (gradient.selection.dead_traces: exclude, the default), or, with dead_traces: keep, it is
  // bad input (exit 2) naming the key and the line.
  auto bad = npy(out / "observed.npy");
  std::vector<float> values(bad.data.begin(), bad.data.end());
  values[values.size() - 3] = std::nanf("");
  pwave::io::write_npy((dir / "bad.npy").string(), values.data(), bad.shape);
  text.replace(text.find(out.string() + "/observed.npy"), (out.string() + "/observed.npy").size(),
               (dir / "bad.npy").string());
  write_file(dir / "fwi_bad.yaml", text);
  const std::string keep = " --set gradient.selection.dead_traces=keep";
  expect_one_error_line(
      pwave("run --no-plots '" + (dir / "fwi_bad.yaml").string() + "'" + keep, dir), 2,
      "fwi_bad.yaml:3: 'observed.file': " + (dir / "bad.npy").string() +
          ": value 1497 (C order) is not finite");
  expect_one_error_line(pwave("check '" + (dir / "fwi_bad.yaml").string() + "'" + keep, dir), 2,
                        "value 1497 (C order) is not finite");
  const Result excluded =
      pwave("run --no-plots '" + (dir / "fwi_bad.yaml").string() +
                "' --set inversion.iterations=1 --set inversion.batch_size=2 --set "
                "output.directory='" +
                (dir / "out_bad").string() + "'",
            dir);
  ASSERT_EQ(excluded.code, 0) << excluded.err;
  EXPECT_TRUE(contains(excluded.err, "warning: observed: 1 dead traces")) << excluded.err;
  // The count is in history.csv (per iteration, of its shots) and summary.json.
  const std::vector<std::string> bad_history = lines(read_text(dir / "out_bad" / "history.csv"));
  ASSERT_EQ(bad_history.size(), 2u);
  EXPECT_EQ(bad_history[1].substr(bad_history[1].rfind(',')), ",1");
  EXPECT_EQ(YAML::LoadFile((dir / "out_bad" / "summary.json").string())["dead_traces"].as<long>(),
            1);
}

TEST(CliTasks, FwiStopsAndResumes) {
  const auto dir = scratch_dir("fwi_resume");
  const fs::path out = dir / "out";
  const std::string deck = "'" + (dir / "fwi.yaml").string() + "'";
  write_file(dir / "fwi.yaml", fwi_deck(out, 4));
  Result r = pwave("run --no-plots " + deck + " --stop-after 2", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(read_text(out / "history.csv")).size(), 3u);
  EXPECT_FALSE(fs::exists(out / "model_final.npy"));
  EXPECT_TRUE(fs::exists(out / "checkpoint.bin"));
  EXPECT_FALSE(YAML::LoadFile((out / "summary.json").string())["completed"].as<bool>());
  EXPECT_TRUE(contains(read_text(out / "pwave.log"), "--resume to continue"));

  r = pwave("run --no-plots " + deck + " --resume", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> history = lines(read_text(out / "history.csv"));
  ASSERT_EQ(history.size(), 5u);
  EXPECT_EQ(history[0], history_header);
  EXPECT_EQ(history[4].rfind("4,1,", 0), 0u);
  EXPECT_TRUE(fs::exists(out / "model_final.npy"));
  EXPECT_TRUE(contains(read_text(out / "pwave.log"), "resuming after iteration 2"));
  EXPECT_TRUE(fs::exists(out / "pwave.previous.log"));

  // Resuming a finished inversion runs nothing more and keeps the results.
  r = pwave("run --no-plots " + deck + " --resume", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(read_text(out / "history.csv")).size(), 5u);
  EXPECT_TRUE(fs::exists(out / "model_final.npy"));
  EXPECT_TRUE(YAML::LoadFile((out / "summary.json").string())["completed"].as<bool>());

  // A new run (no --resume) starts over: earlier results are removed first.
  write_file(out / "model_0099.npy", "stale");
  write_file(out / "old_figure.png", "stale");
  write_file(out / "notes.txt", "not a result");
  r = pwave("run --no-plots " + deck + " --set inversion.iterations=1", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(read_text(out / "history.csv")).size(), 2u);
  EXPECT_FALSE(fs::exists(out / "model_0099.npy"));
  EXPECT_FALSE(fs::exists(out / "old_figure.png"));
  EXPECT_FALSE(fs::exists(out / "model_0002.npy"));
  EXPECT_TRUE(fs::exists(out / "notes.txt"));

  // A checkpoint of another inversion is refused.
  expect_one_error_line(
      pwave("run --no-plots --quiet " + deck + " --resume --set inversion.iterations=7", dir), 2,
      "checkpoint belongs to another inversion");
}

TEST(CliTasks, ResumeAndStopAfterNeedAnFwiDeck) {
  const auto dir = scratch_dir("resume_forward");
  write_file(dir / "forward.yaml", forward_deck(dir / "out"));
  const std::string deck = "'" + (dir / "forward.yaml").string() + "'";
  expect_one_error_line(pwave("run --no-plots " + deck + " --resume", dir), 2,
                        "--resume applies to task fwi only (this deck has task: forward)");
  expect_one_error_line(pwave("run " + deck + " --stop-after 0", dir), 2,
                        "--stop-after needs a positive number of iterations, got '0'");
  expect_one_error_line(pwave("check " + deck + " --resume", dir), 2,
                        "--resume applies to pwave run only");
}

TEST(CliTasks, CheckPrintsStorageAndInversionPlan) {
  const auto dir = scratch_dir("check_fwi");
  write_file(dir / "fwi.yaml", fwi_deck(dir / "out", 5));
  Result r = pwave("check '" + (dir / "fwi.yaml").string() + "' --set inversion.batch_size=1", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "# gradient storage (boundary selected): full ")) << r.out;
  EXPECT_TRUE(contains(r.out, "MB per shot, boundary ")) << r.out;
  EXPECT_TRUE(contains(r.out, "of the padded grid), checkpoint ")) << r.out;
  EXPECT_TRUE(contains(r.out, "batch of 1 shots")) << r.out;
  EXPECT_TRUE(contains(r.out, "# backward run: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "a gradient of 1 shots with boundary storage: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "# misfit: l2\n")) << r.out;
  // The envelope's FFT scratch: nt 150 -> N = 512; 5 receivers: (2 N 5 + N) doubles.
  const Result envelope =
      pwave("check '" + (dir / "fwi.yaml").string() + "' --set gradient.misfit=envelope", dir);
  ASSERT_EQ(envelope.code, 0) << envelope.err;
  EXPECT_TRUE(contains(envelope.out, "# misfit: envelope (Hilbert transforms of length 512: "))
      << envelope.out;
  EXPECT_TRUE(contains(r.out,
                       "# fwi: 5 iterations in 1 stage(s): 5 unfiltered; batch size 1 "
                       "of 2 shots; adam"))
      << r.out;
  const YAML::Node resolved = YAML::Load(r.out);
  EXPECT_EQ(resolved["inversion"]["stages"][0]["iterations"].as<int>(), 5);
  EXPECT_FALSE(fs::exists(dir / "out"));

  // The storage figures follow the padded grid: 61 x 81 cells, 151 snapshots, float32.
  EXPECT_TRUE(contains(r.out, "full 2.8 MB per shot")) << r.out;

  // Band-pass stages: each stage's band.
  std::string staged = fwi_deck(dir / "out", 5);
  const std::string iterations = "  iterations: 5\n";
  ASSERT_NE(staged.find(iterations), std::string::npos);
  staged.replace(staged.find(iterations), iterations.size(),
                 "  stages: [{iterations: 2, min_frequency: 3, max_frequency: 8}, "
                 "{iterations: 1, min_frequency: 2}, {iterations: 1, max_frequency: 12}]\n");
  write_file(dir / "bands.yaml", staged);
  const Result bands = pwave("check '" + (dir / "bands.yaml").string() + "'", dir);
  ASSERT_EQ(bands.code, 0) << bands.err;
  EXPECT_TRUE(contains(
      bands.out, "# fwi: 4 iterations in 3 stage(s): 2 at 3-8 Hz, 1 at >= 2 Hz, 1 at <= 12 Hz;"))
      << bands.out;
  // They run: summary.json names each stage's band, the log says what was filtered.
  const Result run = pwave("run --no-plots '" + (dir / "bands.yaml").string() + "'", dir);
  ASSERT_EQ(run.code, 0) << run.err;
  const YAML::Node stages = YAML::LoadFile((dir / "out" / "summary.json").string())["stages"];
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0]["min_frequency"].as<double>(), 3.0);
  EXPECT_EQ(stages[0]["max_frequency"].as<double>(), 8.0);
  EXPECT_EQ(stages[1]["min_frequency"].as<double>(), 2.0);
  EXPECT_FALSE(stages[2]["min_frequency"]);
  EXPECT_EQ(stages[2]["iterations_done"].as<int>(), 1);
  const std::string log = read_text(dir / "out" / "pwave.log");
  EXPECT_TRUE(contains(log, "stage 1/3: data and wavelet band-passed between 3")) << log;
  EXPECT_TRUE(contains(log, "stage 2/3: data and wavelet high-passed above 2")) << log;
}

TEST(CliTasks, RunJsonOfAForwardRun) {
  const auto dir = scratch_dir("run_json_forward");
  write_file(dir / "forward.yaml", forward_deck(dir / "out"));
  ASSERT_EQ(pwave("run --no-plots '" + (dir / "forward.yaml").string() + "'", dir).code, 0);
  const YAML::Node run = YAML::LoadFile((dir / "out" / "run.json").string());
  EXPECT_EQ(run["task"].as<std::string>(), "forward");
  EXPECT_EQ(run["precision"].as<std::string>(), "float32");
  EXPECT_EQ(run["dz"].as<double>(), 10.0);
  EXPECT_EQ(run["output_every"].as<int>(), 0);
  EXPECT_FALSE(run["true_model"].as<bool>());
  // What the sources inject and the receivers record (the acoustic defaults).
  EXPECT_EQ(run["source_type"].as<std::string>(), "pressure");
  ASSERT_TRUE(run["components"].IsSequence());
  EXPECT_EQ(run["components"][0].as<std::string>(), "p");
}

TEST(CliTasks, PlotsCanBeDisabledInTheDeck) {
  const auto dir = scratch_dir("plots_off");
  std::string text = forward_deck(dir / "out");
  text.replace(text.find("'}\n"), 3, "', plots: false}\n");
  write_file(dir / "forward.yaml", text);
  ASSERT_EQ(pwave("run '" + (dir / "forward.yaml").string() + "'", dir).code, 0);
  EXPECT_TRUE(contains(read_text(dir / "out" / "pwave.log"), "plots: disabled (output.plots)"));
}

// The one run with plots on: it needs python3 with matplotlib, and the tool's failure would
// only be a warning.
TEST(CliTasks, RunMakesPlotsWhenMatplotlibExists) {
  // The driver tries the python3 on PATH, then /usr/bin/python3 (see make_plots).
  if (std::system("python3 -c 'import numpy, matplotlib' > /dev/null 2>&1") != 0 &&
      std::system("/usr/bin/python3 -c 'import numpy, matplotlib' > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no python3 with numpy and matplotlib";
  }
  const auto dir = scratch_dir("plots_on");
  write_file(dir / "forward.yaml", forward_deck(dir / "out"));
  const Result r = pwave("run '" + (dir / "forward.yaml").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string log = read_text(dir / "out" / "pwave.log");
  EXPECT_TRUE(contains(log, "plots: ")) << log;
  if (fs::exists(fs::path(PWAVE_SOURCE_DIR) / "tools" / "pwave-plot")) {
    EXPECT_TRUE(contains(log, "plots: done")) << log;
    EXPECT_TRUE(fs::exists(dir / "out" / "wavelet.png")) << log;
  }
}

}  // namespace

namespace {

// The plotting hook with a stand-in tool and a stand-in matplotlib module (so that it runs
// wherever python3 exists): the tool gets the output folder, its lines go to the log, and its
// failure is only a warning.
TEST(CliTasks, RunCallsThePlottingTool) {
  if (std::system("python3 -c 'pass' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const auto dir = scratch_dir("plot_hook");
  fs::create_directories(dir / "tools");
  fs::create_directories(dir / "py" / "matplotlib");
  write_file(dir / "py" / "matplotlib" / "__init__.py", "");
  write_file(dir / "tools" / "pwave-plot",
             "import json, sys, os\n"
             "run = json.load(open(os.path.join(sys.argv[1], 'run.json')))\n"
             "open(os.path.join(sys.argv[1], 'figure.png'), 'w').write('png')\n"
             "print('plotted task', run['task'])\n"
             "sys.exit(int(os.environ.get('FAKE_PLOT_EXIT', '0')))\n");
  const char* old_path = std::getenv("PYTHONPATH");
  const std::string saved = old_path ? old_path : "";
  setenv("PYTHONPATH", (dir / "py").c_str(), 1);
  setenv("PWAVE_TOOLS_DIR", (dir / "tools").c_str(), 1);
  write_file(dir / "forward.yaml", forward_deck(dir / "out"));
  const std::string deck = "'" + (dir / "forward.yaml").string() + "'";
  Result r = pwave("run " + deck, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  std::string log = read_text(dir / "out" / "pwave.log");
  EXPECT_TRUE(contains(log, "plots: plotted task forward")) << log;
  EXPECT_TRUE(contains(log, "plots: done")) << log;
  EXPECT_TRUE(fs::exists(dir / "out" / "figure.png"));

  setenv("FAKE_PLOT_EXIT", "3", 1);
  r = pwave("run " + deck, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "pwave: warning: plots: pwave-plot failed (exit status 3)")) << r.err;
  unsetenv("FAKE_PLOT_EXIT");

  // No tool: a log line, no warning.
  setenv("PWAVE_TOOLS_DIR", (dir / "nowhere").c_str(), 1);
  r = pwave("run " + deck, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(read_text(dir / "out" / "pwave.log"), "plots: skipped (no plotting tool"));
  EXPECT_FALSE(contains(r.err, "warning")) << r.err;
  unsetenv("PWAVE_TOOLS_DIR");
  if (old_path) {
    setenv("PYTHONPATH", saved.c_str(), 1);
  } else {
    unsetenv("PYTHONPATH");
  }
}

}  // namespace

namespace {

TEST(CliTasks, ShippedInversionDecksCheck) {
  const auto dir = scratch_dir("shipped_decks");
  Result r = pwave("check inputs/fwi_small.yaml", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "# fwi: 20 iterations")) << r.out;
  EXPECT_FALSE(contains(r.out, "warning")) << r.out;
  // gradient_small reads forward_small's traces: stand in a file of their shape.
  const std::vector<float> zeros(3 * 61 * 800, 0.0f);
  pwave::io::write_npy((dir / "receivers.npy").string(), zeros.data(), {3, 61, 800});
  r = pwave("check inputs/gradient_small.yaml --set 'observed.file=" +
                (dir / "receivers.npy").string() + "'",
            dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "gradient storage (boundary selected)")) << r.out;
  const fs::path marmousi =
      fs::path(PWAVE_SOURCE_DIR) / ".." / "shared" / "data" / "marmousi_vp.bin";
  if (!fs::exists(marmousi)) GTEST_SKIP() << "no shared data at " << marmousi;
  r = pwave("check inputs/fwi_marmousi.yaml", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "126 x 384 cells")) << r.out;
  EXPECT_TRUE(contains(r.out, "# fwi: 40 iterations in 3 stage(s)")) << r.out;
}

}  // namespace

namespace {

using namespace cli_test;
using cli_test::pwave;  // the function, not the namespace

// The variable-density equation through the driver: model.rho, a density anomaly in the true
// model, both parameters inverted.
std::string density_lines() {
  return "physics: {equation: acoustic_variable_density, order: 4}\n";
}

// `text` with the first `from` replaced by `to` (fails the test if `from` is absent).
std::string edit_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the deck";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(CliTasks, DensityGradientAndFwiWriteOneFilePerParameter) {
  const auto dir = scratch_dir("density");
  const std::string common_vd =
      edit_once(common(dir / "observed"), "physics: {order: 4}\n", density_lines());
  write_file(dir / "forward.yaml",
             "task: forward\nmodel:\n  shape: [41, 61]\n  spacing: 10.0\n  vp: 2000.0\n"
             "  rho: {constant: 2000.0, anomalies: [{x: 300, z: 200, radius: 60, rho: 2500}]}\n" +
                 common_vd);
  ASSERT_EQ(pwave("run --no-plots '" + (dir / "forward.yaml").string() + "'", dir).code, 0);
  const fs::path out = dir / "out";
  write_file(dir / "gradient.yaml",
             "task: gradient\nmodel: {shape: [41, 61], spacing: 10.0, vp: 2000.0, rho: 2000.0}\n"
             "observed: {file: '" +
                 (dir / "observed" / "receivers.npy").string() + "'}\n" +
                 edit_once(common(out), "physics: {order: 4}\n", density_lines()));
  Result r = pwave("run --no-plots '" + (dir / "gradient.yaml").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto grad_rho = npy(out / "gradient_rho.npy");
  EXPECT_EQ(grad_rho.shape, (std::vector<std::size_t>{41, 61}));
  // The anomaly is a density one: the density gradient is largest near it.
  std::size_t at = 0;
  for (std::size_t i = 0; i < grad_rho.data.size(); ++i) {
    if (std::abs(grad_rho.data[i]) > std::abs(grad_rho.data[at])) at = i;
  }
  EXPECT_LT(std::hypot(double(at / 61) * 10.0 - 200.0, double(at % 61) * 10.0 - 300.0), 150.0);
  const YAML::Node summary = YAML::LoadFile((out / "summary.json").string());
  EXPECT_GT(summary["gradient_rho_max_abs"].as<double>(), 0.0);

  const fs::path fwi_out = dir / "fwi";
  write_file(dir / "fwi.yaml",
             "task: fwi\nmodel: {shape: [41, 61], spacing: 10.0, vp: 2000.0, rho: 2000.0}\n"
             "true_model:\n  vp: 2000.0\n"
             "  rho: {constant: 2000.0, anomalies: [{x: 300, z: 200, radius: 60, rho: 2500}]}\n"
             "inversion:\n  iterations: 2\n  parameters: [vp, rho]\n"
             "  bounds: {vp: [1500, 3000], rho: [1000, 3000]}\n  output_every: 1\n" +
                 edit_once(common(fwi_out), "physics: {order: 4}\n", density_lines()));
  r = pwave("run --no-plots '" + (dir / "fwi.yaml").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"model_final.npy", "model_rho_final.npy", "initial_model_rho.npy",
                           "true_model_rho.npy", "model_rho_0002.npy", "gradient_rho_0002.npy"}) {
    EXPECT_EQ(npy(fwi_out / name).shape, (std::vector<std::size_t>{41, 61})) << name;
  }
  EXPECT_DOUBLE_EQ(npy(fwi_out / "true_model_rho.npy").data[20 * 61 + 30], 2500.0);
  const YAML::Node run = YAML::LoadFile((fwi_out / "run.json").string());
  EXPECT_EQ(run["equation"].as<std::string>(), "acoustic_variable_density");
  EXPECT_EQ(run["parameters"][1].as<std::string>(), "rho");
  // A second run's stale per-parameter files go: a vp-only run leaves no density model.
  write_file(dir / "fwi_vp.yaml",
             edit_once(edit_once(read_text(dir / "fwi.yaml"), "[vp, rho]", "[vp]"),
                       "{vp: [1500, 3000], rho: [1000, 3000]}", "[1500, 3000]"));
  r = pwave("run --no-plots '" + (dir / "fwi_vp.yaml").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(fwi_out / "model_rho_final.npy"));
  EXPECT_TRUE(fs::exists(fwi_out / "model_final.npy"));
}

}  // namespace
