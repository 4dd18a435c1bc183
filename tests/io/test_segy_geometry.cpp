// acquisition.from: observed: shots and positions from SEG-Y trace headers, written here with
// segyio's C API in the layout of a field file (other header bytes, a positive coordinate
// scalar, elevations with a datum, survey coordinates rotated onto the model's line).

#include <gtest/gtest.h>
#include <segyio/segy.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "deck_fixtures.hpp"
#include "pwave/io/deck_observed.hpp"

namespace {

using namespace pwave;
using pwave::test::CaughtError;
using pwave::test::deck_error;
using pwave::test::edit;

constexpr int kNt = 50;

struct Trace {
  std::map<int, std::int32_t> fields;  // byte -> value
};

// Big-endian IEEE float SEG-Y: trace t holds the value t + 1 in every sample.
void write_segy(const std::filesystem::path& path, const std::vector<Trace>& traces,
                int samples = kNt, int interval_us = 1000,
                const std::vector<std::vector<float>>& values = {}, bool lsb = false) {
  segy_file* fp = segy_open(path.string().c_str(), "w+b");
  ASSERT_NE(fp, nullptr);
  ASSERT_EQ(segy_set_format(fp, SEGY_IEEE_FLOAT_4_BYTE | (lsb ? SEGY_LSB : 0)), SEGY_OK);
  const std::string text(3200, ' ');
  ASSERT_EQ(segy_write_textheader(fp, 0, text.c_str()), SEGY_OK);
  char bin[SEGY_BINARY_HEADER_SIZE] = {};
  segy_set_bfield(bin, SEGY_BIN_INTERVAL, interval_us);
  segy_set_bfield(bin, SEGY_BIN_SAMPLES, samples);
  segy_set_bfield(bin, SEGY_BIN_FORMAT, SEGY_IEEE_FLOAT_4_BYTE);
  ASSERT_EQ(segy_write_binheader(fp, bin), SEGY_OK);
  const long trace0 = segy_trace0(bin);
  const int bsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, samples);
  for (std::size_t t = 0; t < traces.size(); ++t) {
    char th[SEGY_TRACE_HEADER_SIZE] = {};
    segy_set_field(th, SEGY_TR_SAMPLE_INTER, interval_us);
    segy_set_field(th, SEGY_TR_SAMPLE_COUNT, samples);
    for (const auto& [byte, value] : traces[t].fields) {
      ASSERT_EQ(segy_set_field(th, byte, value), SEGY_OK) << byte;
    }
    ASSERT_EQ(segy_write_traceheader(fp, int(t), th, trace0, bsize), SEGY_OK);
    std::vector<float> v =
        t < values.size() ? values[t] : std::vector<float>(samples, float(t + 1));
    segy_from_native(SEGY_IEEE_FLOAT_4_BYTE, samples, v.data());
    ASSERT_EQ(segy_writetrace(fp, int(t), v.data(), trace0, bsize), SEGY_OK);
  }
  segy_close(fp);
}

// A field-style trace: gather number at byte 17 (EnergySourcePoint), source at 73/77, receiver
// at CDP X/Y (181/185), coordinates in units of 10 m (scalar +10 at byte 71), elevations in
// decimetres (scalar -10 at byte 69).
Trace field_trace(int gather, int sx, int sy, int gx, int gy) {
  Trace t;
  t.fields = {{17, gather}, {73, sx},  {77, sy},   {181, gx}, {185, gy},
              {71, 10},     {69, -10}, {41, -200}, {45, 30},  {49, 150}};
  return t;
}

// Gather 7: source (1050, 2090) m, 3 receivers; gather 9: source (1200, 2350) m, 2 receivers
// on the line and one far off the model (trace 6, 0-based).
std::vector<Trace> field_traces() {
  return {field_trace(7, 105, 209, 102, 205), field_trace(7, 105, 209, 110, 218),
          field_trace(7, 105, 209, 115, 226), field_trace(9, 120, 235, 118, 231),
          field_trace(9, 120, 235, 125, 244), field_trace(9, 120, 235, 400, 300)};
}

std::string deck(const std::filesystem::path& file, const std::string& outside) {
  return "task: gradient\n"                                       // 1
         "model: {shape: [41, 61], spacing: 10.0, vp: 2000.0}\n"  // 2
         "time: {dt: 0.001, nt: 50}\n"                            // 3
         "wavelet: {type: ricker, peak_frequency: 10.0}\n"        // 4
         "acquisition: {from: observed, receivers: {outside: " +
         outside +
         "}}\n"                                 // 5
         "physics: {order: 4}\n"                // 6
         "boundary: {type: cpml, width: 10}\n"  // 7
         "output: {directory: out}\n"           // 8
         "observed:\n"                          // 9
         "  file: '" +
         file.string() +
         "'\n"                                                   // 10
         "  headers: {shot: 17, group_x: 181, group_y: 185}\n"   // 11
         "  coordinates: {origin: [1000, 2000], azimuth: 30}\n"  // 12
         "  datum: 5\n";                                         // 13
}

// The model x of survey point (X, Y) on the line from (1000, 2000) at azimuth 30 degrees.
double along(double X, double Y) {
  const double a = 30.0 * M_PI / 180.0;
  return (X - 1000.0) * std::sin(a) + (Y - 2000.0) * std::cos(a);
}

TEST(SegyGeometry, FieldHeadersRotatedOntoTheLineWithDatumAndOtherBytes) {
  const auto dir = test::scratch_dir("segy_geometry_field");
  write_segy(dir / "field.sgy", field_traces());
  const io::Deck d = io::load_deck_text(deck(dir / "field.sgy", "drop"), "deck.yaml");
  const auto& shots = d.problem.shots;
  ASSERT_EQ(shots.size(), 2u);
  ASSERT_EQ(shots[0].receivers.size(), 3u);
  ASSERT_EQ(shots[1].receivers.size(), 2u);  // the far receiver left out
  EXPECT_NEAR(shots[0].source.x, along(1050, 2090), 1e-9);
  EXPECT_NEAR(shots[1].source.x, along(1200, 2350), 1e-9);
  // z = datum - surface elevation + source depth = 5 - 3 + 15; receivers 5 - (-20).
  EXPECT_NEAR(shots[0].source.z, 17.0, 1e-12);
  EXPECT_NEAR(shots[0].receivers[1].x, along(1100, 2180), 1e-9);
  EXPECT_NEAR(shots[0].receivers[2].x, along(1150, 2260), 1e-9);
  EXPECT_NEAR(shots[1].receivers[1].x, along(1250, 2440), 1e-9);
  EXPECT_NEAR(shots[1].receivers[0].z, 25.0, 1e-12);
  EXPECT_EQ(shots[0].source.y, 0.0);
  // The reader skips the dropped trace: shot 1 holds traces 4 and 5 (values 4, 5), then a
  // padding row.
  ASSERT_TRUE(d.observed.traces);
  EXPECT_EQ(d.observed.shape, (std::vector<std::size_t>{2, 3, kNt}));
  std::vector<double> shot(3 * kNt);
  d.observed.traces->read_shot(1, shot.data());
  EXPECT_EQ(shot[0], 4.0);
  EXPECT_EQ(shot[kNt + kNt - 1], 5.0);
  EXPECT_EQ(shot[2 * kNt], 0.0);
  d.observed.traces->read_shot(0, shot.data());
  EXPECT_EQ(shot[2 * kNt], 3.0);
  bool warned = false;
  for (const auto& w : d.warnings) warned = warned || w.find("1 traces with receivers") != w.npos;
  EXPECT_TRUE(warned);
  ASSERT_GE(d.notes.size(), 4u);
  EXPECT_NE(d.notes[0].find("2 shots, 2 to 3 traces per shot (5 traces)"), std::string::npos)
      << d.notes[0];
  // The resolved deck keeps the form, and loads again to the same shots.
  const io::Deck again = io::load_deck_text(io::resolved_yaml(d), "resolved.yaml");
  ASSERT_EQ(again.problem.shots.size(), 2u);
  EXPECT_EQ(again.problem.shots[1].receivers[1].x, shots[1].receivers[1].x);
}

TEST(SegyGeometry, ReceiverOutsideIsRefusedByDefaultNamingTheTrace) {
  const auto dir = test::scratch_dir("segy_geometry_refuse");
  write_segy(dir / "field.sgy", field_traces());
  const CaughtError c = deck_error(deck(dir / "field.sgy", "refuse"));
  EXPECT_DECK_ERROR(c, "observed.file", "deck.yaml:10", "receiver of trace 6 (1-based");
  EXPECT_NE(c.what.find("outside the model"), std::string::npos) << c.what;
  EXPECT_NE(c.what.find(" m in x"), std::string::npos) << c.what;
}

TEST(SegyGeometry, BadHeadersAreInputErrors) {
  const auto dir = test::scratch_dir("segy_geometry_errors");
  const auto file = dir / "field.sgy";
  // No coordinates at the bytes read.
  std::vector<Trace> traces;
  std::vector<Trace> zero;
  for (int i = 0; i < 3; ++i) zero.push_back(Trace{{{17, 1}, {71, -100}}});
  write_segy(file, zero);
  EXPECT_DECK_ERROR(deck_error(deck(file, "drop")), "observed.file", "deck.yaml:10",
                    "hold no coordinates");
  // A zero scalar with coordinates that need one.
  traces = field_traces();
  traces[2].fields[71] = 0;
  write_segy(file, traces);
  EXPECT_DECK_ERROR(deck_error(deck(file, "drop")), "observed.file", "deck.yaml:10",
                    "trace 3 (1-based, file order) has SourceGroupScalar (byte 71) 0");
  // Sample counts that differ between traces.
  traces = field_traces();
  traces[4].fields[115] = 40;
  write_segy(file, traces);
  EXPECT_DECK_ERROR(deck_error(deck(file, "drop")), "observed.file", "deck.yaml:10",
                    "trace 5 (1-based, file order) has 40 samples");
  // A gather with no receiver inside.
  traces = field_traces();
  traces[3].fields[181] = traces[4].fields[181] = 400;
  write_segy(file, traces);
  EXPECT_DECK_ERROR(deck_error(deck(file, "drop")), "observed.file", "deck.yaml:10",
                    "gather 2 (shot 1) has no receiver inside the model");
  // Deck forms.
  write_segy(file, field_traces());
  EXPECT_DECK_ERROR(deck_error(edit(deck(file, "drop"), "shot: 17", "shot: 10")),
                    "observed.headers.shot", "deck.yaml:11", "not the first byte");
  EXPECT_DECK_ERROR(deck_error(edit(deck(file, "drop"), "{from: observed,",
                                    "{from: observed, sources: {x: 1, z: 1},")),
                    "acquisition.sources", "deck.yaml:5", "remove acquisition.sources");
  EXPECT_DECK_ERROR(
      deck_error(edit(deck(file, "drop"), "outside: drop}", "outside: drop, x: [1.0]}")),
      "acquisition.receivers.x", "deck.yaml:5", "only receivers.outside");
}

TEST(SegyGeometry, CoordinatesAndDatumNeedTheHeaderGeometry) {
  const auto dir = test::scratch_dir("segy_geometry_forms");
  write_segy(dir / "field.sgy", field_traces());
  std::string text = deck(dir / "field.sgy", "drop");
  text = edit(text, "acquisition: {from: observed, receivers: {outside: drop}}",
              "acquisition: {sources: {x: 100, z: 20}, receivers: {x: [1, 2, 3], z: 10}}");
  EXPECT_DECK_ERROR(deck_error(text), "observed.coordinates", "deck.yaml:12",
                    "applies to acquisition.from: observed only");
}

// 3D: (x, y) = the survey point relative to the origin, rotated so that x points along the
// azimuth and y 90 degrees counter-clockwise of it; gathers by source position.
TEST(SegyGeometry, ThreeDTranslationRotationAndGathersBySource) {
  const auto dir = test::scratch_dir("segy_geometry_3d");
  const auto file = dir / "cube.sgy";
  // All traces FieldRecord 1: only the source positions separate the two gathers. Coordinates
  // in centimetres (scalar -100), no elevations (receivers and sources at the datum).
  const auto trace = [](int sx, int sy, int gx, int gy) {
    return Trace{{{9, 1}, {71, -100}, {73, sx}, {77, sy}, {81, gx}, {85, gy}}};
  };
  write_segy(file, {trace(105000, 205000, 110000, 206000), trace(105000, 205000, 120000, 215000),
                    trace(107000, 208000, 110000, 206000)});
  const std::string base =
      "task: gradient\n"
      "model: {shape: [11, 21, 31], spacing: 10.0, vp: 2000.0}\n"
      "time: {dt: 0.001, nt: 50}\n"
      "wavelet: {type: ricker, peak_frequency: 10.0}\n"
      "acquisition: {from: observed}\n"
      "physics: {order: 4}\n"
      "boundary: {type: cpml, width: 5}\n"
      "output: {directory: out}\n"
      "observed:\n"
      "  file: '" +
      file.string() +
      "'\n"
      "  gather_by: source\n"
      "  datum: 30\n";
  // Azimuth 90: x = X - x0 (east), y = Y - y0 (north).
  io::Deck d = io::load_deck_text(base + "  coordinates: {origin: [1000, 2000], azimuth: 90}\n",
                                  "deck.yaml");
  ASSERT_EQ(d.problem.shots.size(), 2u);
  ASSERT_EQ(d.problem.shots[0].receivers.size(), 2u);
  EXPECT_NEAR(d.problem.shots[0].source.x, 50.0, 1e-9);
  EXPECT_NEAR(d.problem.shots[0].source.y, 50.0, 1e-9);
  EXPECT_NEAR(d.problem.shots[0].source.z, 30.0, 1e-12);
  EXPECT_NEAR(d.problem.shots[0].receivers[1].x, 200.0, 1e-9);
  EXPECT_NEAR(d.problem.shots[0].receivers[1].y, 150.0, 1e-9);
  EXPECT_NEAR(d.problem.shots[1].source.x, 70.0, 1e-9);
  EXPECT_NEAR(d.problem.shots[1].source.y, 80.0, 1e-9);
  // Azimuth 0: x along north, y towards west: origin moved so that the points stay inside.
  d = io::load_deck_text(base + "  coordinates: {origin: [1240, 2000], azimuth: 0}\n", "deck.yaml");
  EXPECT_NEAR(d.problem.shots[0].source.x, 50.0, 1e-9);   // Y - y0
  EXPECT_NEAR(d.problem.shots[0].source.y, 190.0, 1e-9);  // -(X - x0)
  EXPECT_NEAR(d.problem.shots[0].receivers[1].x, 150.0, 1e-9);
  EXPECT_NEAR(d.problem.shots[0].receivers[1].y, 40.0, 1e-9);
}

// observed.resample: a band-limited signal (a 15 Hz Ricker) sampled at 2 ms is read at 1 ms
// (upsampling) and 4 ms (downsampling) to within 1e-3 of its peak; a 200 Hz sinusoid above the
// 4 ms Nyquist frequency (125 Hz) is filtered out rather than aliased.
double ricker(double t) {
  const double a = M_PI * 15.0 * (t - 0.15);
  return (1.0 - 2.0 * a * a) * std::exp(-a * a);
}

TEST(SegyResample, BandLimitedSignalsAreResampledAndAliasesRemoved) {
  const auto dir = test::scratch_dir("segy_resample");
  const auto file = dir / "data.sgy";
  const int n_in = 200;  // 0.4 s at 2 ms
  std::vector<float> r(n_in);
  for (int n = 0; n < n_in; ++n) r[std::size_t(n)] = float(ricker(n * 0.002));
  write_segy(file, {Trace{{{9, 1}}}}, n_in, 2000, {r});
  for (const double dt : {0.001, 0.004}) {
    io::SegyOptions o;
    o.resample = true;
    o.nt = int(std::lround(0.4 / dt));
    const io::DeckObserved d = io::read_observed_file(file.string(), "segy", dt, o);
    ASSERT_EQ(d.shape, (std::vector<std::size_t>{1, 1, std::size_t(o.nt)}));
    std::vector<double> out(std::size_t(o.nt));
    d.traces->read_shot(0, out.data());
    double err = 0.0;
    for (int n = 0; n < o.nt; ++n) {
      const double t = n * dt;
      if (t > 0.35) break;  // the window's truncation at the trace's end
      err = std::max(err, std::abs(out[std::size_t(n)] - ricker(t)));
    }
    EXPECT_LT(err, 1e-3) << "dt " << dt;
  }
  // Without observed.resample the interval must match.
  EXPECT_THROW(io::read_observed_file(file.string(), "segy", 0.001), InputError);

  std::vector<float> high(400);
  for (int n = 0; n < 400; ++n)
    high[std::size_t(n)] = float(std::sin(2 * M_PI * 200.0 * n * 0.001));
  write_segy(file, {Trace{{{9, 1}}}}, 400, 1000, {high});
  io::SegyOptions o;
  o.resample = true;
  o.nt = 100;
  const io::DeckObserved d = io::read_observed_file(file.string(), "segy", 0.004, o);
  std::vector<double> out(100);
  d.traces->read_shot(0, out.data());
  double peak = 0.0;
  for (int n = 10; n < 90; ++n) peak = std::max(peak, std::abs(out[std::size_t(n)]));
  EXPECT_LT(peak, 1e-2);  // plain decimation would give samples of sin(2 pi 0.8 n): up to 0.95
}

// A little-endian file (segyio writes it with SEGY_LSB) is recognised by its byte-swapped format
// code and read to the same geometry and samples as the big-endian one.
TEST(SegyGeometry, LittleEndianFilesReadAsBigEndianOnes) {
  const auto dir = test::scratch_dir("segy_geometry_lsb");
  write_segy(dir / "field.sgy", field_traces(), kNt, 1000, {}, true);
  {
    std::ifstream in(dir / "field.sgy", std::ios::binary);
    char code[2] = {};
    in.seekg(3224);
    in.read(code, 2);
    ASSERT_EQ(code[0], 5);  // little-endian format code 5
    ASSERT_EQ(code[1], 0);
  }
  const io::Deck d = io::load_deck_text(deck(dir / "field.sgy", "drop"), "deck.yaml");
  ASSERT_EQ(d.problem.shots.size(), 2u);
  ASSERT_EQ(d.problem.shots[1].receivers.size(), 2u);
  EXPECT_NEAR(d.problem.shots[0].receivers[2].x, along(1150, 2260), 1e-9);
  EXPECT_NEAR(d.problem.shots[1].receivers[0].z, 25.0, 1e-12);
  std::vector<double> shot(3 * kNt);
  d.observed.traces->read_shot(1, shot.data());
  EXPECT_EQ(shot[0], 4.0);
  EXPECT_EQ(shot[2 * kNt - 1], 5.0);
}

}  // namespace
