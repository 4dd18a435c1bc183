// 3D decks: model.shape [nz, ny, nx], spacing forms, built and file velocities, y coordinates
// (carpets), front/back CPML widths, the stability limit with dy, and the 2D-only errors.

#include <gtest/gtest.h>

#include <cmath>

#include "deck_fixtures.hpp"
#include "pwave/io/deck_model.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::test {
namespace {

// One key per line so that tests can name the line of each error (keep the lines stable).
const char* base_3d =
    "task: forward\n"                                     // 1
    "model:\n"                                            // 2
    "  shape: [21, 11, 31]\n"                             // 3
    "  spacing: 10.0\n"                                   // 4
    "  vp: 2000.0\n"                                      // 5
    "time: {dt: 0.001, nt: 200}\n"                        // 6
    "wavelet: {peak_frequency: 10.0}\n"                   // 7
    "acquisition:\n"                                      // 8
    "  sources: {x: [100.0, 200.0], y: 50.0, z: 20.0}\n"  // 9
    "  receivers: {x: [0.0, 50.0, 300.0], z: 10.0}\n"     // 10
    "boundary: {width: 10}\n";                            // 11

std::string receivers(const std::string& text) {
  return edit(base_3d, "receivers: {x: [0.0, 50.0, 300.0], z: 10.0}", "receivers: " + text);
}

// A value that names its cell, so that a transposition or offset shows.
double cell_value(int iz, int iy, int ix) {
  return 1000.0 + 100.0 * iz + 10.0 * iy + ix;
}

TEST(Deck3D, ShapeWithThreeEntriesMakesA3DGrid) {
  const io::Deck d = io::load_deck_text(base_3d, "deck.yaml");
  const Grid& g = d.problem.model.grid;
  EXPECT_TRUE(g.is_3d());
  EXPECT_EQ(g.dimension, 3);
  EXPECT_EQ(g.nz, 21);
  EXPECT_EQ(g.ny, 11);
  EXPECT_EQ(g.nx, 31);
  EXPECT_DOUBLE_EQ(g.dz, 10.0);
  EXPECT_DOUBLE_EQ(g.dy, 10.0);  // one number: every axis
  EXPECT_DOUBLE_EQ(g.dx, 10.0);
  EXPECT_EQ(d.problem.model.vp.size(), 21u * 11u * 31u);
  EXPECT_EQ(d.resolved["model"]["shape"].size(), 3u);
  EXPECT_EQ(d.resolved["model"]["shape"][1].as<int>(), 11);
  EXPECT_EQ(d.resolved["model"]["spacing"].as<double>(), 10.0);
  // 2D decks stay 2D.
  const io::Deck d2 = io::load_deck_text(base_deck, "deck.yaml");
  EXPECT_FALSE(d2.problem.model.grid.is_3d());
  EXPECT_EQ(d2.problem.model.grid.ny, 1);
  EXPECT_EQ(d2.resolved["model"]["shape"].size(), 2u);
}

TEST(Deck3D, SpacingForms) {
  const io::Deck d =
      io::load_deck_text(edit(base_3d, "spacing: 10.0", "spacing: [10.0, 5.0, 50.0]"), "d.yaml");
  const Grid& g = d.problem.model.grid;
  EXPECT_DOUBLE_EQ(g.dz, 10.0);
  EXPECT_DOUBLE_EQ(g.dy, 5.0);
  EXPECT_DOUBLE_EQ(g.dx, 50.0);
  ASSERT_EQ(d.resolved["model"]["spacing"].size(), 3u);
  EXPECT_EQ(d.resolved["model"]["spacing"][1].as<double>(), 5.0);

  EXPECT_DECK_ERROR(deck_error(edit(base_3d, "spacing: 10.0", "spacing: [10.0, 5.0]")),
                    "model.spacing", "deck.yaml:4",
                    "expected a number or [dz, dy, dx] for a 3D model (model.shape has 3 "
                    "entries), got a list of 2 values");
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "spacing: 10.0", "spacing: [10, 10, 10]")),
                    "model.spacing", "deck.yaml:5", "expected a number or [dz, dx] for a 2D model");
  EXPECT_DECK_ERROR(deck_error(edit(base_3d, "spacing: 10.0", "spacing: [10.0, -5.0, 20.0]")),
                    "model.spacing[1]", "deck.yaml:4", "");
  EXPECT_DECK_ERROR(deck_error(edit(base_3d, "shape: [21, 11, 31]", "shape: [21, 11, 31, 2]")),
                    "model.shape", "deck.yaml:3", "expected [nz, nx] (2D) or [nz, ny, nx] (3D)");
  EXPECT_DECK_ERROR(deck_error(edit(base_3d, "shape: [21, 11, 31]", "shape: [21, 0, 31]")),
                    "model.shape[1]", "deck.yaml:3", "expected a positive integer");
  EXPECT_DECK_ERROR(deck_error(edit(base_3d, "shape: [21, 11, 31]", "shape: [2000, 2000, 2000]")),
                    "model.shape", "deck.yaml:3", "8000000000 cells is more than the 2147483647");
}

TEST(Deck3D, StabilityAndDispersionUseDy) {
  // dt = 2 ms is stable at dx = dy = dz = 10 m, not with dy = 5 m.
  std::string text = edit(base_3d, "dt: 0.001", "dt: 0.002");
  EXPECT_NO_THROW(io::load_deck_text(text, "deck.yaml"));
  EXPECT_DECK_ERROR(deck_error(edit(text, "spacing: 10.0", "spacing: [10, 5, 10]")), "time.dt",
                    "deck.yaml:6",
                    "with vmax = 2000 m/s and spacing dz = 10 m, dy = 5 m, dx = 10 m; the "
                    "largest stable dt is");
  // Dispersion is judged on the coarsest axis, dy included.
  const io::Deck d = io::load_deck_text(
      edit(
          edit(edit(base_3d, "spacing: 10.0", "spacing: [10, 20, 10]"), "vp: 2000.0", "vp: 2500.0"),
          "y: 50.0", "y: 40.0"),
      "deck.yaml");
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("dy = 20 m"), std::string::npos) << d.warnings[0];
}

TEST(Deck3D, LayersAndSphericalAnomalies) {
  const std::string vp =
      "vp: {constant: 2000, layers: [{z: 100, vp: 2500}], "
      "anomalies: [{x: 150, y: 50, z: 50, radius: 15, vp: 3000}]}";
  const io::Deck d = io::load_deck_text(edit(base_3d, "vp: 2000.0", vp), "deck.yaml");
  const Model& m = d.problem.model;
  EXPECT_EQ(m.at(9, 10, 30), 2000.0);
  EXPECT_EQ(m.at(10, 0, 0), 2500.0);  // the layer spans every y
  EXPECT_EQ(m.at(10, 10, 30), 2500.0);
  EXPECT_EQ(m.at(5, 5, 15), 3000.0);  // the centre
  EXPECT_EQ(m.at(5, 6, 16), 3000.0);  // sqrt(200) = 14.1 m from it
  EXPECT_EQ(m.at(5, 7, 15), 2000.0);  // 20 m along y: outside
  EXPECT_EQ(m.at(5, 3, 15), 2000.0);
  EXPECT_EQ(d.resolved["model"]["vp"]["anomalies"][0]["y"].as<double>(), 50.0);

  EXPECT_DECK_ERROR(
      deck_error(edit(base_3d, "vp: 2000.0",
                      "vp: {constant: 2000, anomalies: [{x: 150, z: 50, radius: 15, vp: 3000}]}")),
      "model.vp.anomalies[0].y", "deck.yaml:5", "missing required key");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_3d, "vp: 2000.0",
                      "vp: {constant: 2000, anomalies: [{x: 150, y: 500, z: 50, radius: 15, "
                      "vp: 3000}]}")),
      "model.vp.anomalies[0]", "deck.yaml:5",
      "the sphere of radius 15 m around (x = 150, y = 500, z = 50) m contains no cell");
  EXPECT_DECK_ERROR(
      deck_error(edit(base_deck, "vp: 2000.0",
                      "vp: {constant: 2000, anomalies: [{x: 150, y: 0, z: 50, radius: 15, "
                      "vp: 3000}]}")),
      "model.vp.anomalies[0].y", "deck.yaml:6", "applies to 3D models only");
}

TEST(Deck3D, SmoothingActsAlongY) {
  Grid g;
  g.dimension = 3;
  g.nz = 9;
  g.ny = 9;
  g.nx = 9;
  g.dz = g.dy = g.dx = 10.0;
  std::vector<double> v(std::size_t(g.cells()), 0.0);
  const auto at = [&](int iz, int iy, int ix) { return std::size_t((iz * g.ny + iy) * g.nx + ix); };
  v[at(4, 4, 4)] = 1.0;
  io::smooth_gaussian(v, g, 10.0);
  double sum = 0.0;
  for (double x : v) sum += x;
  EXPECT_NEAR(sum, 1.0, 1e-9);
  // Isotropic on an isotropic grid: the same one cell away along each axis.
  EXPECT_GT(v[at(4, 5, 4)], 0.0);
  EXPECT_NEAR(v[at(4, 5, 4)], v[at(4, 4, 5)], 1e-15);
  EXPECT_NEAR(v[at(4, 3, 4)], v[at(5, 4, 4)], 1e-15);
}

TEST(Deck3D, VelocityFromNpyAndRawFiles) {
  const auto dir = scratch_dir("deck3d_files");
  const int nz = 4, ny = 3, nx = 5;
  std::vector<float> zyx, xyz;
  for (int iz = 0; iz < nz; ++iz)
    for (int iy = 0; iy < ny; ++iy)
      for (int ix = 0; ix < nx; ++ix) zyx.push_back(float(cell_value(iz, iy, ix)));
  for (int ix = 0; ix < nx; ++ix)
    for (int iy = 0; iy < ny; ++iy)
      for (int iz = 0; iz < nz; ++iz) xyz.push_back(float(cell_value(iz, iy, ix)));
  io::write_npy((dir / "vp.npy").string(), zyx.data(),
                {std::size_t(nz), std::size_t(ny), std::size_t(nx)});
  write_raw_f32(dir / "zyx.bin", zyx);
  write_raw_f32(dir / "xyz.bin", xyz);

  std::string text = edit(base_3d, "shape: [21, 11, 31]", "shape: [4, 3, 5]");
  text = edit(text, "x: [100.0, 200.0], y: 50.0, z: 20.0", "x: 10, y: 10, z: 10");
  text = edit(text, "x: [0.0, 50.0, 300.0], z: 10.0", "x: 0, z: 0");
  const auto load = [&](const std::string& vp) {
    write_file(dir / "deck.yaml", edit(text, "vp: 2000.0", vp));
    return io::load_deck((dir / "deck.yaml").string());
  };
  const auto expect_cells = [&](const Model& m) {
    ASSERT_EQ(m.vp.size(), std::size_t(nz * ny * nx));
    for (int iz = 0; iz < nz; ++iz)
      for (int iy = 0; iy < ny; ++iy)
        for (int ix = 0; ix < nx; ++ix)
          ASSERT_EQ(m.at(iz, iy, ix), cell_value(iz, iy, ix)) << iz << " " << iy << " " << ix;
  };
  io::Deck d = load("vp: {file: vp.npy}");
  expect_cells(d.problem.model);
  EXPECT_EQ(d.resolved["model"]["vp"]["order"].as<std::string>(), "zyx");
  EXPECT_EQ(d.resolved["model"]["vp"]["stride"].size(), 3u);
  expect_cells(load("vp: {file: zyx.bin}").problem.model);
  expect_cells(
      load("vp: {file: zyx.bin, format: raw, shape: [4, 3, 5], order: zyx}").problem.model);
  expect_cells(load("vp: {file: xyz.bin, order: xyz}").problem.model);
  expect_cells(load("vp: {file: xyz.bin, order: xyz, shape: [5, 3, 4]}").problem.model);

  // Decimation with three strides: [sz, sy, sx] keeps cells (2 iz, iy, 2 ix).
  write_file(dir / "deck.yaml", edit(edit(text, "shape: [4, 3, 5]", "shape: [2, 3, 3]"),
                                     "vp: 2000.0", "vp: {file: vp.npy, stride: [2, 1, 2]}"));
  d = io::load_deck((dir / "deck.yaml").string());
  EXPECT_EQ(d.problem.model.at(1, 2, 2), cell_value(2, 2, 4));
  EXPECT_EQ(d.resolved["model"]["vp"]["stride"][2].as<int>(), 2);

  // Errors: a 2D stride, a 2D order, a 2D array, a SEG-Y file, the wrong stored shape.
  const std::string deck = (dir / "deck.yaml").string();
  const auto error_of = [&](const std::string& vp) {
    return deck_error(edit(text, "vp: 2000.0", vp), {}, deck);
  };
  EXPECT_DECK_ERROR(error_of("vp: {file: vp.npy, stride: [2, 2]}"), "model.vp.stride", deck + ":5",
                    "expected a number or [sz, sy, sx] for a 3D model");
  EXPECT_DECK_ERROR(error_of("vp: {file: vp.npy, order: zx}"), "model.vp.order", deck + ":5",
                    "expected zyx or xyz");
  std::vector<float> flat(20, 2000.0f);
  io::write_npy((dir / "flat.npy").string(), flat.data(), {4, 5});
  EXPECT_DECK_ERROR(error_of("vp: {file: flat.npy}"), "model.vp", deck + ":5",
                    "holds a 2-d array of shape [4, 5], but a 3D model needs a 3-d array");
  write_file(dir / "vp.sgy", "not read");
  EXPECT_DECK_ERROR(error_of("vp: {file: vp.sgy}"), "model.vp.file", deck + ":5",
                    "SEG-Y model files hold 2D models only");
  EXPECT_DECK_ERROR(error_of("vp: {file: zyx.bin, format: segy}"), "model.vp.format", deck + ":5",
                    "for a 3D model use npy");
  EXPECT_DECK_ERROR(error_of("vp: {file: zyx.bin, shape: [4, 5, 3]}"), "model.vp", deck + ":5",
                    "(nz=4, ny=5, nx=3 in order zyx), but the model is (nz=4, ny=3, nx=5)");
  EXPECT_DECK_ERROR(error_of("vp: {file: zyx.bin, shape: [4, 15]}"), "model.vp", deck + ":5",
                    "must be three positive sizes");
}

TEST(Deck3D, YCoordinatesDefaultToZeroAndBroadcast) {
  const io::Deck d = io::load_deck_text(base_3d, "deck.yaml");
  ASSERT_EQ(d.problem.shots.size(), 2u);
  EXPECT_DOUBLE_EQ(d.problem.shots[1].source.x, 200.0);
  EXPECT_DOUBLE_EQ(d.problem.shots[1].source.y, 50.0);  // broadcast
  ASSERT_EQ(d.problem.shots[0].receivers.size(), 3u);
  EXPECT_DOUBLE_EQ(d.problem.shots[0].receivers[2].y, 0.0);  // y left out: 0
  EXPECT_DOUBLE_EQ(d.problem.shots[0].receivers[2].x, 300.0);
  EXPECT_EQ(d.resolved["acquisition"]["sources"]["y"].as<double>(), 50.0);
  EXPECT_EQ(d.resolved["acquisition"]["receivers"]["y"].as<double>(), 0.0);

  // Lists of equal lengths pair element-wise, as x and z do.
  const io::Deck p =
      io::load_deck_text(receivers("{x: [0, 10, 20], y: [30, 40, 50], z: [0, 10, 20]}"), "d.yaml");
  ASSERT_EQ(p.problem.shots[0].receivers.size(), 3u);
  EXPECT_DOUBLE_EQ(p.problem.shots[0].receivers[1].x, 10.0);
  EXPECT_DOUBLE_EQ(p.problem.shots[0].receivers[1].y, 40.0);
  EXPECT_DOUBLE_EQ(p.problem.shots[0].receivers[1].z, 10.0);

  // A line along y.
  const io::Deck line =
      io::load_deck_text(receivers("{x: 150, y: {start: 0, step: 10, count: 11}, z: 0}"), "d.yaml");
  ASSERT_EQ(line.problem.shots[0].receivers.size(), 11u);
  EXPECT_DOUBLE_EQ(line.problem.shots[0].receivers[10].y, 100.0);
  EXPECT_DOUBLE_EQ(line.problem.shots[0].receivers[10].x, 150.0);
}

TEST(Deck3D, XAndYListsOfDifferentLengthsMakeACarpet) {
  const io::Deck d = io::load_deck_text(
      receivers("{x: {start: 0, step: 50, count: 5}, y: {start: 10, step: 20, count: 3}, z: 10}"),
      "deck.yaml");
  const auto& r = d.problem.shots[1].receivers;
  ASSERT_EQ(r.size(), 15u);
  // y outer, x inner.
  EXPECT_DOUBLE_EQ(r[0].x, 0.0);
  EXPECT_DOUBLE_EQ(r[0].y, 10.0);
  EXPECT_DOUBLE_EQ(r[4].x, 200.0);
  EXPECT_DOUBLE_EQ(r[4].y, 10.0);
  EXPECT_DOUBLE_EQ(r[5].x, 0.0);
  EXPECT_DOUBLE_EQ(r[5].y, 30.0);
  EXPECT_DOUBLE_EQ(r[14].x, 200.0);
  EXPECT_DOUBLE_EQ(r[14].y, 50.0);
  EXPECT_DOUBLE_EQ(r[14].z, 10.0);
  // The resolved deck spells the points out (x and y of equal lengths: paired) and loads back.
  EXPECT_EQ(d.resolved["acquisition"]["receivers"]["x"].size(), 15u);
  EXPECT_EQ(d.resolved["acquisition"]["receivers"]["y"].size(), 15u);
  const io::Deck b = io::load_deck_text(io::resolved_yaml(d), "resolved.yaml");
  EXPECT_EQ(io::resolved_yaml(b), io::resolved_yaml(d));
  ASSERT_EQ(b.problem.shots[0].receivers.size(), 15u);
  EXPECT_DOUBLE_EQ(b.problem.shots[0].receivers[5].y, 30.0);

  // z may give one value per carpet point; anything else is an error naming the carpet.
  std::string z15 = "[";
  for (int i = 0; i < 15; ++i) z15 += (i ? ", " : "") + std::to_string(10 * (i % 3));
  z15 += "]";
  const io::Deck dz = io::load_deck_text(
      receivers("{x: {start: 0, step: 50, count: 5}, y: [10, 30, 50], z: " + z15 + "}"),
      "deck.yaml");
  EXPECT_DOUBLE_EQ(dz.problem.shots[0].receivers[4].z, 10.0);
  EXPECT_DECK_ERROR(
      deck_error(receivers("{x: {start: 0, step: 50, count: 5}, y: [10, 30, 50], z: [0, 10]}")),
      "acquisition.receivers.z", "deck.yaml:10",
      "has 2 values but the carpet of acquisition.receivers.x (5 values) by "
      "acquisition.receivers.y (3 values) has 15 points");

  // Sources too: a grid of shots.
  const io::Deck s =
      io::load_deck_text(edit(base_3d, "sources: {x: [100.0, 200.0], y: 50.0, z: 20.0}",
                              "sources: {x: [100, 200], y: [0, 50, 100], z: 20}"),
                         "deck.yaml");
  ASSERT_EQ(s.problem.shots.size(), 6u);
  EXPECT_DOUBLE_EQ(s.problem.shots[3].source.x, 200.0);
  EXPECT_DOUBLE_EQ(s.problem.shots[3].source.y, 50.0);
}

TEST(Deck3D, PerShotYLists) {
  const io::Deck d =
      io::load_deck_text(receivers("{x: [0, 10], y: [[0, 10], [20, 30]], z: 0}"), "deck.yaml");
  ASSERT_EQ(d.problem.shots.size(), 2u);
  EXPECT_DOUBLE_EQ(d.problem.shots[0].receivers[1].y, 10.0);
  EXPECT_DOUBLE_EQ(d.problem.shots[1].receivers[0].y, 20.0);
  EXPECT_DOUBLE_EQ(d.problem.shots[1].receivers[1].x, 10.0);
  EXPECT_TRUE(d.resolved["acquisition"]["receivers"]["y"][1].IsSequence());
  const io::Deck b = io::load_deck_text(io::resolved_yaml(d), "resolved.yaml");
  EXPECT_EQ(io::resolved_yaml(b), io::resolved_yaml(d));
  EXPECT_DECK_ERROR(deck_error(receivers("{x: [0, 10], y: [[0, 10], [20, 30], [0, 0]], z: 0}")),
                    "acquisition.receivers.y", "deck.yaml:10",
                    "has 3 per-shot lists but there are 2 shots");
}

TEST(Deck3D, YPositionsAreChecked) {
  EXPECT_DECK_ERROR(deck_error(receivers("{x: [0, 10], y: [0, 500], z: 0}")),
                    "acquisition.receivers.y[1]", "deck.yaml:10",
                    "is outside the model (x in [0, 300] m, y in [0, 100] m, z in [0, 200] m)");
  EXPECT_DECK_ERROR(deck_error(receivers("{x: [0, 10], y: [0, 115], z: 0}")),
                    "acquisition.receivers.y[1]", "deck.yaml:10",
                    "(x=10 m, y=115 m, z=0 m) is outside the model (x in [0, 300] m, y in [0, "
                    "100] m, z in [0, 200] m) by 15 m in y");
  EXPECT_DECK_ERROR(deck_error(base_3d, {"acquisition.sources.y=[0, -5]"}),
                    "acquisition.sources.y[1]", "--set", "by 5 m in y");
}

TEST(Deck3D, YIn2DIsAnError) {
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "z: 20.0}", "y: 0, z: 20.0}")),
                    "acquisition.sources.y", "deck.yaml:10", "applies to 3D models only");
  EXPECT_DECK_ERROR(deck_error(base_deck, {"acquisition.receivers.y=[0, 0, 0]"}),
                    "acquisition.receivers.y", "--set", "applies to 3D models only");
}

TEST(Deck3D, FrontAndBackWidths) {
  io::Deck d = io::load_deck_text(base_3d, "deck.yaml");
  for (int s = 0; s < num_sides; ++s) EXPECT_EQ(d.problem.boundary.width[s], 10) << s;
  const YAML::Node w = d.resolved["boundary"]["width"];
  EXPECT_EQ(w["front"].as<int>(), 10);
  EXPECT_EQ(w["back"].as<int>(), 10);

  d = io::load_deck_text(edit(base_3d, "{width: 10}", "{width: {front: 5, back: 0, left: 7}}"),
                         "deck.yaml");
  EXPECT_EQ(d.problem.boundary.width[front], 5);
  EXPECT_EQ(d.problem.boundary.width[back], 0);
  EXPECT_EQ(d.problem.boundary.width[left], 7);
  EXPECT_EQ(d.problem.boundary.width[top], 20);
  EXPECT_EQ(d.resolved["boundary"]["width"]["front"].as<int>(), 5);

  d = io::load_deck_text(edit(base_3d, "{width: 10}", "{type: none}"), "deck.yaml");
  for (int s = 0; s < num_sides; ++s) EXPECT_EQ(d.problem.boundary.width[s], 0) << s;
  EXPECT_DECK_ERROR(deck_error(edit(base_3d, "{width: 10}", "{type: none, width: {back: 3}}")),
                    "boundary.width", "deck.yaml:11", "must be 0 (or left out)");

  // 2D: the y sides do not exist, and the resolved deck does not show them.
  EXPECT_DECK_ERROR(deck_error(edit(base_deck, "width: 20}", "width: {front: 5}}")),
                    "boundary.width.front", "deck.yaml:13", "applies to 3D models only");
  const io::Deck d2 = io::load_deck_text(base_deck, "deck.yaml");
  EXPECT_FALSE(d2.resolved["boundary"]["width"]["back"].IsDefined());
}

}  // namespace
}  // namespace pwave::test
