// `pwave check` on elastic decks (physics.equation: elastic): the memory estimate from the
// elastic descriptor (5 wavefields, 5 model arrays and 4 CPML memory variables per strip cell
// in 2D) against a hand count, the stability and dispersion lines, the resolved deck's
// sources.type and receivers.component, the shipped example deck, and bad elastic input as
// exit 2 with one line. Runs of an elastic deck need the elastic propagator: see
// tests/driver/pending/ (not built).

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>

#include "cli_fixtures.hpp"
#include "pwave/io/deck.hpp"
#include "pwave/propagation/backward_memory.hpp"
#include "pwave/propagation/propagator.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cli_test;
using cli_test::pwave;  // the function, not the namespace

// 401 x 601 cells of 10 m, CPML 40, order 8: 2 shots (sources on line 7), 3 receivers, 500
// steps, float32. `elastic`: vs 1000 m/s, rho 2000 kg/m^3, vertical forces and vz receivers;
// otherwise the acoustic deck of the same grid and geometry with `sources_extra` after the
// sources' z.
std::string deck_text(const fs::path& out_dir, bool elastic,
                      const std::string& sources_extra = "") {
  return std::string(
             "task: forward\n"
             "precision: float32\n"
             "model: {shape: [401, 601], spacing: 10.0, vp: 2000.0") +
         (elastic ? ", vs: 1000.0, rho: 2000.0" : "") +
         "}\n"
         "time: {dt: 0.001, nt: 500}\n"
         "wavelet: {type: ricker, peak_frequency: 10.0}\n"
         "acquisition:\n"
         "  sources: {x: [2000.0, 4000.0], z: 20.0" +
         (elastic ? ", type: force_z" : sources_extra) +
         "}\n"
         "  receivers: {x: [1000.0, 3000.0, 5000.0], z: 20.0" +
         (elastic ? ", components: vz" : "") +
         "}\n"
         "physics: {" +
         (elastic ? "equation: elastic, " : "") +
         "order: 8}\n"
         "boundary: {type: cpml, width: 40}\n"
         "output: {directory: '" +
         out_dir.string() + "'}\n";
}

TEST(CliElastic, CheckEstimatesTheElasticArrays) {
  const auto dir = scratch_dir("elastic_check");
  const fs::path deck = dir / "deck.yaml";
  write_file(deck, deck_text(dir / "out", true));
  const Result r = pwave("check '" + deck.string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // Hand count (float32, 4 bytes; MB = 2^20 bytes). Padded grid 481 x 681 (40 CPML cells a
  // side), stencil halo 4:
  //   wavefields: vx, vz, sxx, szz, sxz on 481 + 8 rows of 681 + 8 values, padded (host
  //               backends: to 720, an odd number of cache lines; backend::padded_row_length):
  //               5 x 489 x 720 x 4 = 7041600 B = 6.72 MB (the acoustic equation: 2 arrays);
  //   CPML:       strips of 40 + 4 = 44 cells: 481 x 88 + 88 x 681 = 102256 strip cells, 4
  //               memory variables each (d/dx of vx, vz, sxx, sxz on the x strips; d/dz of
  //               vx, vz, sxz, szz on the z strips): 4 x 102256 x 4 = 1636096 B = 1.56 MB
  //               (the acoustic 3 variables: 1.17 MB);
  //   receivers:  3 x 500 x 4 = 6000 B;
  //   per shot:   7041600 + 1636096 + 6000 = 8683696 B = 8.28 MB;
  //   model:      5 arrays (dt lambda, dt mu, dt b_x, dt b_z, dt mu at the shear points) x
  //               481 x 681 x 4 = 6551220 B, 4 CPML profiles per axis x (481 + 681) x 4 =
  //               18592 B, the wavelet 500 x 4 = 2000 B, cell indices 2 axes x 2 shots x (3 + 1)
  //               x 4 = 64 B: 6571876 B = 6.27 MB;
  //   device:     2 x 8683696 + 6571876 = 23939268 B = 22.83 MB.
  const double wavefields = 5.0 * 489 * padded_row(689) * 4, per_shot = wavefields + 1636096 + 6000;
  EXPECT_TRUE(
      contains(r.out, "# memory: " + mb(per_shot) + " MB per shot (wavefields " + mb(wavefields) +
                          " MB, CPML 1.6 MB, receivers 0.0 MB) x 2 shots + model 6.3 MB = " +
                          mb(2 * per_shot + 6571876) + " MB on the device"))
      << r.out;
  // The P velocity sets the limit, the S velocity the dispersion.
  EXPECT_TRUE(contains(r.out, "(order 8, elastic, vmax = 2000 m/s with the density contrasts)"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "# dispersion: 3.33 points per wavelength (slowest wave vs (vp where vs = "
                       "0) = 1000 m/s"))
      << r.out;
  // The resolved deck echoes the source type and the component, and checks again.
  const std::string resolved = r.out.substr(0, r.out.find("#\n# stability"));
  const YAML::Node y = YAML::Load(resolved);
  EXPECT_EQ(y["acquisition"]["sources"]["type"].as<std::string>(), "force_z");
  EXPECT_EQ(y["acquisition"]["receivers"]["components"].as<std::string>(), "vz");
  EXPECT_EQ(y["model"]["vs"].as<double>(), 1000.0);
  const fs::path again = dir / "resolved.yaml";
  write_file(again, resolved);
  const Result r2 = pwave("check '" + again.string() + "'", dir);
  ASSERT_EQ(r2.code, 0) << r2.err;
  EXPECT_TRUE(contains(r2.out, "CPML 1.6 MB")) << r2.out;

  // The same grid acoustic (no vs, no forces): the acoustic counts are unchanged.
  const fs::path acoustic = dir / "acoustic.yaml";
  write_file(acoustic, deck_text(dir / "out", false));
  const Result a = pwave("check '" + acoustic.string() + "'", dir);
  ASSERT_EQ(a.code, 0) << a.err;
  // wavefields 2 x 489 x 720 x 4 = 2816640 B; CPML 3 x 102256 x 4 = 1227072 B.
  EXPECT_TRUE(contains(a.out, "(wavefields " + mb(2.0 * 489 * padded_row(689) * 4) +
                                  " MB, CPML 1.2 MB, receivers 0.0 MB)"))
      << a.out;
}

TEST(CliElastic, CheckEstimatesThe3DElasticArrays) {
  const auto dir = scratch_dir("elastic_check_3d");
  const fs::path deck = dir / "deck.yaml";
  write_file(deck,
             "model: {shape: [41, 41, 41], spacing: 10.0, vp: 2000.0, vs: 1000.0, rho: 2000.0}\n"
             "time: {dt: 0.001, nt: 100}\n"
             "wavelet: {peak_frequency: 10.0}\n"
             "acquisition:\n"
             "  sources: {x: 200.0, y: 200.0, z: 20.0, type: force_y}\n"
             "  receivers: {x: [100.0, 300.0], y: 200.0, z: 20.0, components: vy}\n"
             "physics: {equation: elastic}\n"
             "boundary: {width: 10}\n"
             "output: {directory: '" +
                 (dir / "out").string() + "'}\n");
  const Result r = pwave("check '" + deck.string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // Padded 61^3, halo 4: 9 wavefields (3 velocities, 6 stresses) x 69 x 69 x 80 (x lines of 69
  // values padded; host backends: 80) x 4 B = 13711680 B = 13.08 MB; six strips of 10 + 4 cells: 3
  // x 28 x 61 x 61 = 312564 strip cells x 6 memory variables x 4 B = 7501536 B = 7.15 MB (the
  // acoustic 3: 3.58 MB).
  EXPECT_TRUE(contains(r.out, "(wavefields " + mb(9.0 * 69 * 69 * padded_row(69) * 4) +
                                  " MB, CPML 7.2 MB, receivers 0.0 MB)"))
      << r.out;
}

TEST(CliElastic, BadElasticInputIsOneLine) {
  const auto dir = scratch_dir("elastic_errors");
  const fs::path deck = dir / "deck.yaml";
  write_file(deck, deck_text(dir / "out", true));
  // vs at sqrt(3)/2 vp or above: the bulk modulus would not be positive.
  expect_one_error_line(pwave("check '" + deck.string() + "' --set model.vs=1800", dir), 2,
                        "--set: 'model.vs': S velocity at cell (iz=0, ix=0) is 1800 m/s");
  // vy in 2D.
  expect_one_error_line(
      pwave("check '" + deck.string() + "' --set acquisition.receivers.components=vy", dir), 2,
      "'acquisition.receivers.components': vy (along y) needs a 3D model");
  // A force needs the elastic equation (the sources are on line 7).
  write_file(deck, deck_text(dir / "out", false, ", type: force_x"));
  expect_one_error_line(pwave("check '" + deck.string() + "'", dir), 2,
                        deck.string() + ":7: 'acquisition.sources.type': force_x is a point force");
}

TEST(CliElastic, ExampleDeckChecks) {
  const auto dir = scratch_dir("elastic_example");
  const Result r = pwave("check inputs/forward_elastic_small.yaml", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "equation: elastic")) << r.out;
  EXPECT_TRUE(contains(r.out, "type: force_z")) << r.out;
  EXPECT_TRUE(contains(r.out, "components: vz")) << r.out;
  EXPECT_FALSE(contains(r.out, "# warning:")) << r.out;
  // The land deck: a free surface, no CPML at the top, sources and receivers on the surface.
  const Result land = pwave("check inputs/forward_elastic_land.yaml", dir);
  ASSERT_EQ(land.code, 0) << land.err;
  EXPECT_TRUE(contains(land.out, "free_surface: true")) << land.out;
  EXPECT_TRUE(contains(land.out, "CPML (0/20/20/20 top/bottom/left/right)")) << land.out;
  EXPECT_FALSE(contains(land.out, "# warning:")) << land.out;
}

// The elastic gradient's histories: `pwave check` prints their memory. Hand count
// (float32; MB = 2^20 B): padded 61 x 81 (10 CPML cells a side), order 4 (halo 2):
//   wavefields: 5 x (61 + 4) x (81 + 4) x 4 = 110500 B;
//   CPML:       strips of 10 + 2 = 12 cells: 61 x 24 + 24 x 81 = 3408 strip cells x 4 memory
//               variables x 4 = 54528 B;
//   a state:    165028 B; nt = 100, every 10 steps: 10 checkpoints + a segment of 10 states =
//               20 x 165028 = 3300560 B = 3.1 MB per shot; the 2 shots: 6.3 MB.
//   boundary:   the strips, 61 x 81 - 37 x 57 = 2832 cells, x 5 wavefields x 4 = 56640 B, and
//               the memory variables' 54528 B, nt + 1 = 101 times: 11227968 B = 10.7 MB per
//               shot; the 2 shots: 21.4 MB.
TEST(CliElastic, CheckPrintsTheCheckpointMemory) {
  const auto dir = scratch_dir("elastic_check_fwi");
  const fs::path deck = dir / "fwi.yaml";
  write_file(deck,
             "task: fwi\n"
             "model: {shape: [41, 61], spacing: 10.0, vp: 2000.0, vs: 1000.0, rho: 2000.0}\n"
             "true_model:\n"
             "  vp: 2000.0\n"
             "  vs: {constant: 1000.0, anomalies: [{x: 300, z: 200, radius: 60, vs: 1100}]}\n"
             "time: {dt: 0.001, nt: 100}\n"
             "wavelet: {peak_frequency: 10.0}\n"
             "acquisition:\n"
             "  sources: {x: [200.0, 400.0], z: 20.0, type: force_z}\n"
             "  receivers: {x: [100.0, 500.0], z: 20.0, components: [vx, vz]}\n"
             "physics: {equation: elastic, order: 4}\n"
             "boundary: {width: 10}\n"
             "gradient: {checkpoint_interval: 10}\n"
             "inversion:\n"
             "  iterations: 2\n"
             "  parameters: [vs]\n"
             "  bounds: {vs: [500.0, 1500.0]}\n"
             "output: {directory: '" +
                 (dir / "out").string() + "'}\n");
  const Result r = pwave("check '" + deck.string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // What the propagator says it allocates (ElasticPropagator::history_bytes_per_shot, held to
  // its allocations by tests/propagation/test_wavefield_history.cpp; host backends: 2.851,
  // 9.424 and 10.708 MB).
  const pwave::io::Deck d = pwave::io::load_deck(deck.string(), {});
  const auto prop = pwave::make_propagator<float>(d.problem, 2);
  pwave::StorageOptions every10(pwave::Storage::checkpoint);
  every10.interval = 10;
  const double checkpoint = prop->history_bytes_per_shot(every10);
  const double full = prop->history_bytes_per_shot(pwave::StorageOptions(pwave::Storage::full));
  const double frames =
      prop->history_bytes_per_shot(pwave::StorageOptions(pwave::Storage::boundary));
  EXPECT_TRUE(contains(
      r.out, "# gradient storage (checkpoint selected): checkpoint " + mb(checkpoint) +
                 " MB per shot (a state every 10 steps and 10 steps' update "
                 "terms), full " +
                 mb(full) + " MB per shot (every step's update terms), boundary " + mb(frames) +
                 " MB per shot (every step's strips and memory variables); batch "
                 "of 2 shots: checkpoint " +
                 mb(2 * checkpoint) + " MB, full " + mb(2 * full) + " MB, boundary " +
                 mb(2 * frames) + " MB"))
      << r.out;
  // The backward run (propagation::backward_memory, held to the allocations by
  // tests/propagation/test_backward_memory.cpp), and the whole gradient of a batch.
  EXPECT_TRUE(contains(
      r.out, "# backward run: " + mb(pwave::propagation::backward_memory(d.problem, 4).per_shot) +
                 " MB per shot (adjoint wavefields, CPML memory variables, imaging) + 0.00 MB; a "
                 "gradient of 2 shots with checkpoint storage: "))
      << r.out;
  // `full` every 4th step in int8: 25 states of a quarter the bytes, and the one the backward
  // run decodes into: 7.25 states (host backends: 1.384 MB).
  const fs::path sampled_deck = dir / "fwi_sampled.yaml";
  std::string text = read_text(deck);
  const std::string interval = "gradient: {checkpoint_interval: 10}";
  text.replace(text.find(interval), interval.size(),
               "gradient: {storage: full, stride: 4, compression: int8}");
  write_file(sampled_deck, text);
  const Result sampled = pwave("check '" + sampled_deck.string() + "'", dir);
  ASSERT_EQ(sampled.code, 0) << sampled.err;
  pwave::StorageOptions sampled_full(pwave::Storage::full);
  sampled_full.stride = 4;
  sampled_full.compression = pwave::Compression::int8;
  EXPECT_TRUE(contains(sampled.out, "full " + mb(prop->history_bytes_per_shot(sampled_full)) +
                                        " MB per shot (stride 4, int8)"))
      << sampled.out;
}

}  // namespace
