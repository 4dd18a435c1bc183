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
#include "pwave/io/segy.hpp"

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
  // A trace whose source is not its gather's (the first trace's): named with its gather.
  traces = field_traces();
  traces[4].fields[73] = 121;  // 10 m east of the gather's source
  write_segy(file, traces);
  {
    const CaughtError c = deck_error(deck(file, "drop"));
    EXPECT_DECK_ERROR(c, "observed.file", "deck.yaml:10",
                      "gather 2: trace 5 (1-based, file order) has its source at");
    EXPECT_NE(c.what.find("from the source of the gather's first trace 4 (1-based"),
              std::string::npos)
        << c.what;
  }
  // Within 1% of a cell (10 cm at 10 m) the sources are the same: 1 mm off is accepted.
  traces = field_traces();
  for (Trace& t : traces) t.fields[71] = -1000;  // millimetres
  for (Trace& t : traces) {
    for (int byte : {73, 77, 181, 185}) t.fields[byte] *= 10000;
  }
  traces[4].fields[73] += 1;
  write_segy(file, traces);
  EXPECT_NO_THROW(io::load_deck_text(deck(file, "drop"), "deck.yaml"));
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

// Trace header byte 109 (DelayRecordingTime, ms): the file's first sample is at that time. With
// observed.resample the traces are shifted onto the simulation's axis (t = 0 at the source's
// time zero); without, a delay is refused; traces of one file must share it.
TEST(SegyResample, RecordingDelayShiftsTheTimeAxis) {
  const auto dir = test::scratch_dir("segy_delay");
  const auto file = dir / "data.sgy";
  const int n_in = 150;  // 0.3 s at 2 ms from t = 40 ms
  const double delay = 0.040;
  std::vector<float> r(n_in);
  for (int n = 0; n < n_in; ++n) r[std::size_t(n)] = float(ricker(delay + n * 0.002));
  write_segy(file, {Trace{{{9, 1}, {109, 40}}}, Trace{{{9, 1}, {109, 40}}}}, n_in, 2000, {r, r});
  io::SegyOptions o;
  o.resample = true;
  o.nt = 400;
  const io::DeckObserved d = io::read_observed_file(file.string(), "segy", 0.001, o);
  std::vector<double> out(2 * std::size_t(o.nt));
  d.traces->read_shot(0, out.data());
  double err = 0.0, before = 0.0;
  for (int n = 0; n < o.nt; ++n) {
    const double t = n * 0.001;
    if (t < delay - 1e-9) {
      before = std::max(before, std::abs(out[std::size_t(n)]));
    } else if (t > delay + 0.02 && t < 0.30) {  // clear of the window's truncation at both ends
      err = std::max(err, std::abs(out[std::size_t(n)] - ricker(t)));
    }
  }
  std::printf("delay 40 ms, 2 ms -> 1 ms: largest error %.2e of the peak, before the delay %g\n",
              err, before);
  EXPECT_LT(err, 3e-4);  // measured 5.6e-5; observed.resample documents 1e-3
  EXPECT_EQ(before, 0.0);
  // The same interval: a shift by whole samples, exact (20 samples of 2 ms).
  o.nt = 200;
  const io::DeckObserved same = io::read_observed_file(file.string(), "segy", 0.002, o);
  same.traces->read_shot(0, out.data());
  for (int n = 0; n < 20; ++n) EXPECT_EQ(out[std::size_t(n)], 0.0) << n;
  for (int n = 20; n < 170; ++n)
    EXPECT_EQ(out[std::size_t(n)], double(r[std::size_t(n - 20)])) << n;
  for (int n = 170; n < 200; ++n) EXPECT_EQ(out[std::size_t(n)], 0.0) << n;
  // A time scalar (byte 215) of 10 multiplies: 4 x 10 ms is the same delay.
  write_segy(file, {Trace{{{9, 1}, {109, 4}, {215, 10}}}}, n_in, 2000, {r});
  const io::DeckObserved scaled = io::read_observed_file(file.string(), "segy", 0.002, o);
  scaled.traces->read_shot(0, out.data());
  EXPECT_EQ(out[20], double(r[0]));
  // Without observed.resample: refused, saying what to do.
  write_segy(file, {Trace{{{9, 1}, {109, 40}}}}, n_in, 2000, {r});
  try {
    io::read_observed_file(file.string(), "segy", 0.002);
    ADD_FAILURE() << "a recording delay was accepted without observed.resample";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("trace 1 (1-based, file order) starts at t = 40 ms (DelayRecordingTime, "
                        "byte 109)"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("observed.resample: true"), std::string::npos) << what;
  }
  // Traces of different delays.
  write_segy(file, {Trace{{{9, 1}, {109, 40}}}, Trace{{{9, 1}, {109, 20}}}}, n_in, 2000, {r, r});
  try {
    io::read_observed_file(file.string(), "segy", 0.002, o);
    ADD_FAILURE() << "traces of different delays were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("trace 2 (1-based, file order) starts at t = 20 ms"),
              std::string::npos)
        << e.what();
  }
}

// Synthetics written back as SEG-Y on the data's axis with the data's trace headers: each
// written trace carries the header of the observed trace it models, byte for byte, its samples
// are the simulation's resampled to the data's interval, count and delay, and reading the file
// again with observed.resample gives back the simulation-axis synthetics.
TEST(SegySynthetic, WrittenOnTheDataAxisWithTheDataHeaders) {
  const auto dir = test::scratch_dir("segy_synthetic");
  const auto file = dir / "field.sgy";
  const int n_file = 100, nt = 200;  // data: 0.2 s at 2 ms; simulation: 1 ms
  const auto pulse = [](double t) {  // a 20 Hz Ricker
    const double a = M_PI * 20.0 * t;
    return (1.0 - 2.0 * a * a) * std::exp(-a * a);
  };
  for (const int delay_ms : {0, 10}) {
    std::vector<Trace> traces = field_traces();
    for (Trace& t : traces) t.fields[109] = delay_ms;
    write_segy(file, traces, n_file, 2000);
    std::string text = edit(deck(file, "drop"), "nt: 50", "nt: 200");
    text += "  resample: true\n";
    const io::Deck d = io::load_deck_text(text, "deck.yaml");
    const auto& observed = dynamic_cast<const io::SegyTraces&>(*d.observed.traces);
    ASSERT_EQ(d.observed.shape, (std::vector<std::size_t>{2, 3, std::size_t(nt)}));
    // Synthetics: one pulse per trace, later and larger along the spread.
    HostArray3<double> syn("syn", 2, 3, nt);
    for (int s = 0; s < 2; ++s)
      for (int r = 0; r < 3; ++r)
        for (int n = 0; n < nt; ++n)
          syn(s, r, n) = (1.0 + r) * pulse(n * 0.001 - 0.07 - 0.01 * r - 0.02 * s);
    const std::string out = (dir / "synthetic.segy").string();
    io::write_synthetic_segy(out, observed, syn, 0.001);

    // Headers and samples, read with segyio.
    segy_file* in = segy_open(file.string().c_str(), "rb");
    segy_file* fp = segy_open(out.c_str(), "rb");
    ASSERT_NE(in, nullptr);
    ASSERT_NE(fp, nullptr);
    char bin[SEGY_BINARY_HEADER_SIZE];
    ASSERT_EQ(segy_binheader(fp, bin), SEGY_OK);
    EXPECT_EQ(segy_samples(bin), n_file);
    EXPECT_EQ(segy_format(bin), SEGY_IEEE_FLOAT_4_BYTE);
    const long trace0 = segy_trace0(bin);
    const int bsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, n_file);
    int count = 0;
    ASSERT_EQ(segy_traces(fp, &count, trace0, bsize), SEGY_OK);
    ASSERT_EQ(count, 5);  // trace 6 (off the model) was left out when read, and here
    const int read_traces[5] = {0, 1, 2, 3, 4};
    const int shot_of[5] = {0, 0, 0, 1, 1}, receiver_of[5] = {0, 1, 2, 0, 1};
    const io::TraceResampler to_data(io::TimeAxis{nt, 0.001, 0.0},
                                     io::TimeAxis{n_file, 0.002, delay_ms * 1e-3});
    std::vector<double> expected(n_file);
    std::vector<float> samples(n_file);
    for (int j = 0; j < 5; ++j) {
      char a[SEGY_TRACE_HEADER_SIZE], b[SEGY_TRACE_HEADER_SIZE];
      ASSERT_EQ(segy_traceheader(in, read_traces[j], a, trace0, bsize), SEGY_OK);
      ASSERT_EQ(segy_traceheader(fp, j, b, trace0, bsize), SEGY_OK);
      for (int byte = 0; byte < SEGY_TRACE_HEADER_SIZE; ++byte)
        ASSERT_EQ(a[byte], b[byte]) << "trace " << j << ", byte " << byte + 1;
      ASSERT_EQ(segy_readtrace(fp, j, samples.data(), trace0, bsize), SEGY_OK);
      segy_to_native(SEGY_IEEE_FLOAT_4_BYTE, n_file, samples.data());
      to_data.apply(&syn(shot_of[j], receiver_of[j], 0), expected.data());
      for (int n = 0; n < n_file; ++n)
        ASSERT_EQ(samples[std::size_t(n)], float(expected[std::size_t(n)])) << j << ", " << n;
      // On the data's axis: sample n at delay + n 2 ms.
      const int n_peak = (70 + 10 * receiver_of[j] + 20 * shot_of[j] - delay_ms) / 2;
      EXPECT_NEAR(samples[std::size_t(n_peak)], 1.0 + receiver_of[j], 2e-3 * (1 + receiver_of[j]));
    }
    segy_close(fp);
    segy_close(in);

    // Read again as observed data with observed.resample: the simulation-axis synthetics.
    std::string again = text;
    again = edit(again, file.string(), out);
    const io::Deck back = io::load_deck_text(again, "deck.yaml");
    std::vector<double> shot(3 * nt);
    double err = 0.0;
    for (int s = 0; s < 2; ++s) {
      back.observed.traces->read_shot(std::size_t(s), shot.data());
      for (int r = 0; r < (s == 0 ? 3 : 2); ++r) {
        for (int n = 0; n < nt; ++n) {
          const double t = n * 0.001;
          if (t < delay_ms * 1e-3 + 0.02 || t > 0.178) continue;  // clear of both ends' windows
          err = std::max(err, std::abs(shot[std::size_t(r * nt + n)] - syn(s, r, n)) / (1.0 + r));
        }
      }
    }
    std::printf("synthetic.segy, delay %d ms: read back at 1 ms within %.2e of each peak\n",
                delay_ms, err);
    EXPECT_LT(err, 3e-4);  // measured 8.4e-5; observed.resample documents 1e-3
  }
}

}  // namespace
