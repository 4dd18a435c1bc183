// SEG-Y rev 1 output of shot gathers through segyio's C API: big-endian, IEEE float32 samples.

#include "pwave/io/segy.hpp"

#include <segyio/segy.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>

#include "pwave/core/error.hpp"
#include "pwave/core/log.hpp"
#include "pwave/io/atomic_file.hpp"
#include "pwave/io/segy_file.hpp"

namespace pwave::io {
namespace {

// Coordinates are stored as integers with SourceGroupScalar = -100, i.e. in centimetres.
constexpr int kCoordScalar = -100;
constexpr double kCoordUnitsPerMetre = 100.0;
// segyio (like most readers) reads 2-byte header words as signed.
constexpr long kMaxInt16 = std::numeric_limits<std::int16_t>::max();

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw RuntimeError("cannot write SEG-Y file '" + path + "': " + what);
}

std::int32_t to_centimetres(double metres, const std::string& path, const char* what) {
  const double cm = std::round(metres * kCoordUnitsPerMetre);
  if (!std::isfinite(cm) || std::abs(cm) > std::numeric_limits<std::int32_t>::max()) {
    std::ostringstream os;
    os << what << " = " << metres << " m does not fit a SEG-Y coordinate (32-bit centimetres)";
    fail(path, os.str());
  }
  return static_cast<std::int32_t>(cm);
}

// 40 lines of 80 columns, "Cnn " first, as SEG-Y rev 1 asks; segyio converts it to EBCDIC.
// lines[38] and lines[39] are set here.
std::string card_image(std::vector<std::string> lines) {
  lines.resize(40);
  lines[38] = "SEG Y REV1";
  lines[39] = "END TEXTUAL HEADER";
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "C%02d ", int(i + 1));
    std::string line = prefix + lines[i];
    line.resize(80, ' ');
    text += line;
  }
  return text;
}

std::string textual_header(const std::vector<ShotGeometry>& shots, long ntraces, int nt, double dt,
                           int dt_us, bool three_d) {
  std::vector<std::string> lines(40);
  std::ostringstream os;
  lines[0] = "pwave shot gathers (acoustic finite-difference modelling)";
  if (same_receiver_counts(shots)) {
    os << "shots " << shots.size() << ", receivers per shot " << max_receivers(shots);
  } else {
    os << "shots " << shots.size() << ", up to " << max_receivers(shots) << " receivers per shot";
  }
  os << ", traces " << ntraces;
  lines[1] = os.str();
  os.str("");
  os << "samples per trace " << nt << ", sample interval " << dt_us << " us (dt = " << dt << " s)";
  lines[2] = os.str();
  lines[3] = "sample format 5: IEEE float32, big-endian; traces ordered shot by shot";
  lines[4] = "trace header: FieldRecord (byte 9) = shot + 1, TraceNumber (13) = receiver + 1";
  if (three_d) {
    lines[5] = "3D: SourceX (73), SourceY (77), GroupX (81), GroupY (85) = x and y:";
    lines[6] = "centimetres, SourceGroupScalar (71) = -100";
    lines[7] = "SourceDepth (49) in cm and ReceiverGroupElevation (41) = -z in cm, scalar (69)";
    lines[8] = "= -100; offset (37) = horizontal source-receiver distance in whole metres";
  } else {
    lines[5] = "SourceX (73), SourceY (77) = source depth z, GroupX (81), GroupY (85) =";
    lines[6] = "receiver depth z: centimetres, SourceGroupScalar (71) = -100";
    lines[7] = "SourceDepth (49) in cm and ReceiverGroupElevation (41) = -z in cm, scalar (69)";
    lines[8] = "= -100; offset (37) = receiver x - source x in whole metres";
  }
  return card_image(lines);
}

void set_field(char* header, int field, std::int32_t value, const std::string& path) {
  if (segy_set_field(header, field, value) != SEGY_OK) {
    fail(path, "segyio rejected trace header field " + std::to_string(field));
  }
}

void set_bfield(char* header, int field, std::int32_t value, const std::string& path) {
  if (segy_set_bfield(header, field, value) != SEGY_OK) {
    fail(path, "segyio rejected binary header field " + std::to_string(field));
  }
}

void check(int err, const std::string& path, const std::string& what) {
  if (err == SEGY_OK) return;
  std::string why = "segyio error " + std::to_string(err);
  if (err == SEGY_FWRITE_ERROR || err == SEGY_FSEEK_ERROR)
    why += ": " + std::string(std::strerror(errno));
  fail(path, what + " (" + why + ")");
}

}  // namespace

void write_shot_gathers_segy(const std::string& path, const float* traces, int nshots,
                             int nreceivers, int nt, double dt,
                             const std::vector<ShotGeometry>& shots, bool three_d) {
  if (nshots < 0 || nreceivers < 0 || nt <= 0) {
    fail(path, "invalid sizes (shots " + std::to_string(nshots) + ", receivers " +
                   std::to_string(nreceivers) + ", samples " + std::to_string(nt) + ")");
  }
  if (nt > kMaxInt16) {
    fail(path, std::to_string(nt) + " samples per trace; SEG-Y rev 1 holds at most " +
                   std::to_string(kMaxInt16) + " (write .npy instead)");
  }
  if (static_cast<long>(shots.size()) != nshots) {
    fail(path, "geometry has " + std::to_string(shots.size()) + " shots, data has " +
                   std::to_string(nshots));
  }
  long ntraces = 0;
  for (int s = 0; s < nshots; ++s) {
    if (static_cast<long>(shots[s].receivers.size()) > nreceivers) {
      fail(path, "shot " + std::to_string(s) + " has " + std::to_string(shots[s].receivers.size()) +
                     " receivers, data has " + std::to_string(nreceivers));
    }
    ntraces += long(shots[s].receivers.size());
  }
  if (ntraces > std::numeric_limits<std::int32_t>::max()) fail(path, "too many traces");
  if (ntraces > 0 && traces == nullptr) fail(path, "no trace data");
  if (!(dt > 0) || !std::isfinite(dt)) fail(path, "sample interval must be positive");
  const double dt_us_exact = dt * 1e6;
  const long dt_us = std::lround(dt_us_exact);
  if (dt_us < 1 || dt_us > kMaxInt16) {
    std::ostringstream os;
    os << "sample interval " << dt << " s is not 1..32767 microseconds, as SEG-Y stores it";
    fail(path, os.str());
  }
  if (std::abs(dt_us - dt_us_exact) > 1e-6 * dt_us_exact) {
    std::ostringstream os;
    os << "SEG-Y '" << path << "': sample interval " << dt << " s is stored rounded to " << dt_us
       << " microseconds";
    log::warn(os.str());
  }

  AtomicFile file(path);
  std::unique_ptr<segy_file, SegyCloser> fp(segy_open(file.temp_path().c_str(), "w+b"));
  if (!fp) fail(path, "cannot open '" + file.temp_path() + "': " + std::strerror(errno));
  check(segy_set_format(fp.get(), SEGY_IEEE_FLOAT_4_BYTE), path, "cannot set the sample format");

  const std::string text = textual_header(shots, ntraces, nt, dt, int(dt_us), three_d);
  check(segy_write_textheader(fp.get(), 0, text.c_str()), path, "cannot write the textual header");

  char bin[SEGY_BINARY_HEADER_SIZE] = {};
  set_bfield(bin, SEGY_BIN_JOB_ID, 1, path);
  const long per_shot = same_receiver_counts(shots) ? nreceivers : 0;  // 0: shots differ
  set_bfield(bin, SEGY_BIN_TRACES, per_shot <= kMaxInt16 ? int(per_shot) : 0, path);
  set_bfield(bin, SEGY_BIN_INTERVAL, int(dt_us), path);
  set_bfield(bin, SEGY_BIN_INTERVAL_ORIG, int(dt_us), path);
  set_bfield(bin, SEGY_BIN_SAMPLES, nt, path);
  set_bfield(bin, SEGY_BIN_SAMPLES_ORIG, nt, path);
  set_bfield(bin, SEGY_BIN_FORMAT, SEGY_IEEE_FLOAT_4_BYTE, path);
  set_bfield(bin, SEGY_BIN_SORTING_CODE, 1, path);        // as recorded: shot gathers
  set_bfield(bin, SEGY_BIN_MEASUREMENT_SYSTEM, 1, path);  // metres
  set_bfield(bin, SEGY_BIN_SEGY_REVISION, 0x0100, path);  // rev 1.0
  set_bfield(bin, SEGY_BIN_TRACE_FLAG, 1, path);          // every trace has nt samples
  set_bfield(bin, SEGY_BIN_EXT_HEADERS, 0, path);
  check(segy_write_binheader(fp.get(), bin), path, "cannot write the binary header");

  const long trace0 = segy_trace0(bin);
  const int trace_bsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, nt);
  std::vector<float> buf(static_cast<std::size_t>(nt));
  int traceno = 0;
  for (int s = 0; s < nshots; ++s) {
    const Position& src = shots[s].source;
    const std::int32_t sx = to_centimetres(src.x, path, "source x");
    const std::int32_t sz = to_centimetres(src.z, path, "source z");
    // SourceY: the y coordinate in 3D; in 2D (no y axis) the depth, as pwave always wrote it.
    const std::int32_t sy = three_d ? to_centimetres(src.y, path, "source y") : sz;
    for (int r = 0; r < int(shots[s].receivers.size()); ++r, ++traceno) {
      const Position& rec = shots[s].receivers[r];
      char th[SEGY_TRACE_HEADER_SIZE] = {};
      set_field(th, SEGY_TR_SEQ_LINE, traceno + 1, path);
      set_field(th, SEGY_TR_SEQ_FILE, traceno + 1, path);
      set_field(th, SEGY_TR_FIELD_RECORD, s + 1, path);
      set_field(th, SEGY_TR_NUMBER_ORIG_FIELD, r + 1, path);
      set_field(th, SEGY_TR_ENERGY_SOURCE_POINT, s + 1, path);
      set_field(th, SEGY_TR_TRACE_ID, 1, path);  // seismic data
      set_field(th, SEGY_TR_DATA_USE, 1, path);  // production
      // Offset is not scaled by byte 71 in the standard, so it is in whole metres.
      const double offset = three_d ? std::round(std::hypot(rec.x - src.x, rec.y - src.y))
                                    : std::round(rec.x - src.x);
      set_field(th, SEGY_TR_OFFSET, static_cast<std::int32_t>(offset), path);
      set_field(th, SEGY_TR_ELEV_SCALAR, kCoordScalar, path);
      set_field(th, SEGY_TR_RECV_GROUP_ELEV, -to_centimetres(rec.z, path, "receiver z"), path);
      set_field(th, SEGY_TR_SOURCE_DEPTH, sz, path);
      set_field(th, SEGY_TR_SOURCE_GROUP_SCALAR, kCoordScalar, path);
      set_field(th, SEGY_TR_SOURCE_X, sx, path);
      set_field(th, SEGY_TR_SOURCE_Y, sy, path);
      set_field(th, SEGY_TR_GROUP_X, to_centimetres(rec.x, path, "receiver x"), path);
      set_field(th, SEGY_TR_GROUP_Y,
                three_d ? to_centimetres(rec.y, path, "receiver y")
                        : to_centimetres(rec.z, path, "receiver z"),
                path);
      set_field(th, SEGY_TR_COORD_UNITS, 1, path);  // length (metres)
      set_field(th, SEGY_TR_SAMPLE_COUNT, nt, path);
      set_field(th, SEGY_TR_SAMPLE_INTER, int(dt_us), path);
      check(segy_write_traceheader(fp.get(), traceno, th, trace0, trace_bsize), path,
            "cannot write trace header " + std::to_string(traceno));

      const float* samples = traces + (std::size_t(s) * nreceivers + r) * nt;
      std::copy(samples, samples + nt, buf.begin());
      check(segy_from_native(SEGY_IEEE_FLOAT_4_BYTE, nt, buf.data()), path,
            "cannot convert trace " + std::to_string(traceno));
      check(segy_writetrace(fp.get(), traceno, buf.data(), trace0, trace_bsize), path,
            "cannot write trace " + std::to_string(traceno));
    }
  }
  // segy_close flushes; a full disk often shows up only here.
  check(segy_close(fp.release()), path, "cannot close '" + file.temp_path() + "'");
  file.commit();
}

template <class T>
void write_synthetic_segy(const std::string& path, const SegyTraces& observed,
                          const HostArray3<T>& synthetic, double dt) {
  const SegyTraces::Layout& data = observed.layout();
  const TimeAxis file_axis = data.axis;
  const int nt = int(synthetic.extent(2));
  if (synthetic.extent(0) != observed.shots() || synthetic.extent(1) < observed.receivers()) {
    fail(path, "the synthetics hold " + std::to_string(synthetic.extent(0)) + " shots of " +
                   std::to_string(synthetic.extent(1)) + " receivers, the observed file " +
                   std::to_string(observed.shots()) + " of up to " +
                   std::to_string(observed.receivers()));
  }
  if (file_axis.n <= 0 || file_axis.n > kMaxInt16) {
    fail(path, std::to_string(file_axis.n) + " samples per trace do not fit SEG-Y rev 1");
  }
  const long dt_us = std::lround(file_axis.dt * 1e6);
  if (dt_us < 1 || dt_us > kMaxInt16) fail(path, "the data's sample interval does not fit");
  // From the simulation's axis to the data's: the reverse of observed.resample's reading.
  const TraceResampler to_data(TimeAxis{nt, dt, 0.0}, file_axis);

  AtomicFile file(path);
  std::unique_ptr<segy_file, SegyCloser> fp(segy_open(file.temp_path().c_str(), "w+b"));
  if (!fp) fail(path, "cannot open '" + file.temp_path() + "': " + std::strerror(errno));
  check(segy_set_format(fp.get(), SEGY_IEEE_FLOAT_4_BYTE), path, "cannot set the sample format");

  long ntraces = 0;
  for (std::size_t s = 0; s < observed.shots(); ++s)
    ntraces += long(observed.file_traces(s).size());
  std::vector<std::string> lines(6);
  lines[0] = "pwave synthetic traces, modelled for the observed data of";
  std::string name = data.path;
  if (name.size() > 76) name = "..." + name.substr(name.size() - 73);
  lines[1] = name;
  lines[2] = "trace headers copied from that file's traces, in the order pwave read them";
  lines[3] = std::to_string(observed.shots()) + " shots, " + std::to_string(ntraces) + " traces";
  std::ostringstream axis;
  axis << "samples: IEEE float32 big-endian, " << file_axis.n << " at " << dt_us
       << " us from t = " << file_axis.start * 1e3 << " ms (the data's axis)";
  lines[4] = axis.str();
  std::ostringstream sim;
  sim << "resampled from the simulation's " << nt << " samples at dt = " << dt << " s";
  lines[5] = sim.str();
  check(segy_write_textheader(fp.get(), 0, card_image(lines).c_str()), path,
        "cannot write the textual header");

  char bin[SEGY_BINARY_HEADER_SIZE];
  observed.read_binary_header(bin);
  set_bfield(bin, SEGY_BIN_FORMAT, SEGY_IEEE_FLOAT_4_BYTE, path);
  set_bfield(bin, SEGY_BIN_SAMPLES, file_axis.n, path);
  set_bfield(bin, SEGY_BIN_INTERVAL, int(dt_us), path);
  set_bfield(bin, SEGY_BIN_EXT_HEADERS, 0, path);
  // The rev 2 byte-order constant (bytes 3297-3300), if any, says big-endian now.
  unsigned char* order = reinterpret_cast<unsigned char*>(bin + 96);
  if (order[0] || order[1] || order[2] || order[3]) {
    order[0] = 1, order[1] = 2, order[2] = 3, order[3] = 4;
  }
  check(segy_write_binheader(fp.get(), bin), path, "cannot write the binary header");

  const long trace0 = segy_trace0(bin);
  const int trace_bsize = segy_trsize(SEGY_IEEE_FLOAT_4_BYTE, file_axis.n);
  std::vector<double> resampled(std::size_t(file_axis.n));
  std::vector<float> buf(std::size_t(file_axis.n));
  int traceno = 0;
  for (std::size_t s = 0; s < observed.shots(); ++s) {
    const std::vector<int> traces = observed.file_traces(s);
    for (std::size_t r = 0; r < traces.size(); ++r, ++traceno) {
      char th[SEGY_TRACE_HEADER_SIZE];
      observed.read_trace_header(traces[r], th);
      set_field(th, SEGY_TR_SAMPLE_COUNT, file_axis.n, path);
      set_field(th, SEGY_TR_SAMPLE_INTER, int(dt_us), path);
      check(segy_write_traceheader(fp.get(), traceno, th, trace0, trace_bsize), path,
            "cannot write trace header " + std::to_string(traceno));
      to_data.apply(&synthetic(s, r, 0), resampled.data());
      for (int n = 0; n < file_axis.n; ++n) buf[std::size_t(n)] = float(resampled[std::size_t(n)]);
      check(segy_from_native(SEGY_IEEE_FLOAT_4_BYTE, file_axis.n, buf.data()), path,
            "cannot convert trace " + std::to_string(traceno));
      check(segy_writetrace(fp.get(), traceno, buf.data(), trace0, trace_bsize), path,
            "cannot write trace " + std::to_string(traceno));
    }
  }
  check(segy_close(fp.release()), path, "cannot close '" + file.temp_path() + "'");
  file.commit();
}

template void write_synthetic_segy<float>(const std::string&, const SegyTraces&,
                                          const HostArray3<float>&, double);
template void write_synthetic_segy<double>(const std::string&, const SegyTraces&,
                                           const HostArray3<double>&, double);

}  // namespace pwave::io
