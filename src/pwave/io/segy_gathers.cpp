#include "pwave/io/segy_gathers.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sstream>

#include "pwave/core/error.hpp"
#include "pwave/io/deck_reader.hpp"

namespace pwave::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("", path, what);
}

std::string segy_error(int err) {
  switch (err) {
    case SEGY_FREAD_ERROR:
      return "read failed (file truncated?)";
    case SEGY_TRACE_SIZE_MISMATCH:
      return "the file size is not a whole number of traces";
    default:
      return "segyio error " + std::to_string(err);
  }
}

std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

int32_t field(const char* th, int byte) {
  int32_t v = 0;
  if (byte > 0) segy_get_field(th, byte, &v);
  return v;
}

// A header value times its scalar (negative: divide, positive: multiply; byte 0: none).
double scaled(int32_t value, int32_t scalar) {
  if (scalar < 0) return double(value) / double(-scalar);
  if (scalar > 0) return double(value) * double(scalar);
  return double(value);
}

/// Builds the acquisition from the trace headers while the gathers are indexed.
class GeometryBuilder {
 public:
  GeometryBuilder(const std::string& path, const SegyOptions& o, HeaderGeometry& out)
      : path_(path), o_(o), out_(out), three_d_(o.grid && o.grid->is_3d()) {
    const double a = o.azimuth * M_PI / 180.0;
    sin_ = std::sin(a);
    cos_ = std::cos(a);
  }

  /// Trace `t` (0-based in file order) of gather `g`, the gather's first trace when `first`.
  /// Returns whether the trace is kept (inside the model, or outside and refused: throws).
  bool add(const char* th, int t, std::size_t g, bool first) {
    const SegyHeaderBytes& b = o_.bytes;
    const int32_t sx = field(th, b.source_x), sy = field(th, b.source_y);
    const int32_t gx = field(th, b.group_x), gy = field(th, b.group_y);
    const bool use_y = three_d_ || o_.rotate;
    const bool zero = !(sx || gx || (use_y && (sy || gy)));
    any_coordinate_ = any_coordinate_ || !zero;
    const int32_t scalar = field(th, b.scalar);
    if (b.scalar > 0 && scalar == 0 && (sx || gx || (use_y && (sy || gy)))) {
      fail(path_, "trace " + trace_name(t) + " has SourceGroupScalar (byte " +
                      std::to_string(b.scalar) +
                      ") 0 and coordinates that need one; set observed.headers.scalar: 0 if "
                      "the coordinates are stored unscaled");
    }
    const int32_t rel = field(th, b.receiver_elevation), sel = field(th, b.source_elevation);
    const int32_t sd = field(th, b.source_depth);
    const int32_t escalar = field(th, b.elevation_scalar);
    if (b.elevation_scalar > 0 && escalar == 0 && (rel || sel || sd)) {
      fail(path_, "trace " + trace_name(t) + " has ElevationScalar (byte " +
                      std::to_string(b.elevation_scalar) +
                      ") 0 and elevations or depths that need one; set "
                      "observed.headers.elevation_scalar: 0 if they are stored unscaled");
    }
    const Position src = map(scaled(sx, scalar), scaled(sy, scalar),
                             o_.datum - scaled(sel, escalar) + scaled(sd, escalar));
    const Position rec =
        map(scaled(gx, scalar), scaled(gy, scalar), o_.datum - scaled(rel, escalar));
    if (first) {
      out_.shots.emplace_back();
      out_.shots.back().source = src;
      gather_first_trace_ = t;
      try {
        check_inside(*o_.grid, src, "");
      } catch (const InputError& e) {
        if (zero) fail(path_, no_coordinates(" at trace " + trace_name(t)));
        fail(path_, "the source of gather " + std::to_string(g + 1) + " (trace " + trace_name(t) +
                        "): " + bare_message(e.what(), e.key(), e.where()));
      }
    } else {
      check_same_source(src, t, g);
    }
    try {
      check_inside(*o_.grid, rec, "");
    } catch (const InputError& e) {
      if (zero) fail(path_, no_coordinates(" at trace " + trace_name(t)));
      if (!o_.drop_outside) {
        fail(path_, "the receiver of trace " + trace_name(t) + " (gather " + std::to_string(g + 1) +
                        "): " + bare_message(e.what(), e.key(), e.where()) +
                        "; acquisition.receivers.outside: drop leaves such traces out");
      }
      ++dropped_;
      dropped_gathers_ += last_dropped_gather_ != g;
      last_dropped_gather_ = g;
      return false;
    }
    out_.shots.back().receivers.push_back(rec);
    return true;
  }

  /// After the last trace: the checks over the whole file and the summary.
  void finish() {
    if (!any_coordinate_) fail(path_, no_coordinates(" in any trace"));
    for (std::size_t s = 0; s < out_.shots.size(); ++s) {
      if (out_.shots[s].receivers.empty()) {
        fail(path_, "gather " + std::to_string(s + 1) + " (shot " + std::to_string(s) +
                        ") has no receiver inside the model (acquisition.receivers.outside: drop "
                        "left out all its traces)");
      }
    }
    if (dropped_ > 0) {
      out_.warnings.push_back("acquisition.from: observed: " + std::to_string(dropped_) +
                              " traces with receivers outside the model left out (outside: "
                              "drop), in " +
                              std::to_string(dropped_gathers_) + " of " +
                              std::to_string(out_.shots.size()) + " gathers");
    }
    summarize();
  }

 private:
  std::string no_coordinates(const std::string& where) const {
    const bool use_y = three_d_ || o_.rotate;
    const SegyHeaderBytes& b = o_.bytes;
    return "the trace headers hold no coordinates" + where + " (SourceX, GroupX" +
           (use_y ? ", SourceY, GroupY" : "") + " at bytes " + std::to_string(b.source_x) + ", " +
           std::to_string(b.group_x) +
           (use_y ? ", " + std::to_string(b.source_y) + ", " + std::to_string(b.group_y) : "") +
           " are 0); set observed.headers to the bytes that hold them";
  }

  std::string trace_name(int t) const { return std::to_string(t + 1) + " (1-based, file order)"; }

  /// A gather is one shot: every trace's source must be its first trace's, to 1% of the
  /// smallest grid spacing.
  void check_same_source(const Position& src, int t, std::size_t g) const {
    const Grid& grid = *o_.grid;
    double h = std::min(grid.dx, grid.dz);
    if (three_d_) h = std::min(h, grid.dy);
    const Position& s0 = out_.shots.back().source;
    const double d = std::sqrt((src.x - s0.x) * (src.x - s0.x) + (src.y - s0.y) * (src.y - s0.y) +
                               (src.z - s0.z) * (src.z - s0.z));
    if (!(d <= 0.01 * h)) {
      const auto point = [&](const Position& p) {
        return "(x " + num(p.x) + (three_d_ ? ", y " + num(p.y) : std::string()) + ", z " +
               num(p.z) + ") m";
      };
      fail(path_, "gather " + std::to_string(g + 1) + ": trace " + trace_name(t) +
                      " has its source at " + point(src) + ", " + num(d) +
                      " m from the source of the gather's first trace " +
                      trace_name(gather_first_trace_) + " at " + point(s0) +
                      "; every trace of a gather must have one source (check the gather key: "
                      "observed.gather_by, observed.headers.shot)");
    }
  }

  Position map(double X, double Y, double z) {
    Position p;
    p.z = z;
    if (!o_.rotate) {
      p.x = X;
      p.y = three_d_ ? Y : 0.0;
      return p;
    }
    const double dx = X - o_.x0, dy = Y - o_.y0;
    p.x = dx * sin_ + dy * cos_;
    const double across = -dx * cos_ + dy * sin_;
    if (three_d_) {
      p.y = across;
    } else {
      off_line_ = std::max(off_line_, std::abs(across));
    }
    return p;
  }

  void summarize() {
    const auto& shots = out_.shots;
    std::size_t lo = shots[0].receivers.size(), hi = lo, total = 0;
    double omin = HUGE_VAL, omax = -HUGE_VAL;
    Position smin{HUGE_VAL, HUGE_VAL, HUGE_VAL}, smax{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    Position rmin = smin, rmax = smax;
    const auto extend = [](Position& a, Position& b, const Position& p) {
      a = {std::min(a.x, p.x), std::min(a.z, p.z), std::min(a.y, p.y)};
      b = {std::max(b.x, p.x), std::max(b.z, p.z), std::max(b.y, p.y)};
    };
    for (const ShotGeometry& s : shots) {
      lo = std::min(lo, s.receivers.size());
      hi = std::max(hi, s.receivers.size());
      total += s.receivers.size();
      extend(smin, smax, s.source);
      for (const Position& r : s.receivers) {
        extend(rmin, rmax, r);
        const double o =
            three_d_ ? std::hypot(r.x - s.source.x, r.y - s.source.y) : r.x - s.source.x;
        omin = std::min(omin, o);
        omax = std::max(omax, o);
      }
    }
    const auto extent = [&](const Position& a, const Position& b) {
      std::string t = "x " + num(a.x) + " to " + num(b.x) + " m";
      if (three_d_) t += ", y " + num(a.y) + " to " + num(b.y) + " m";
      return t + ", z " + num(a.z) + " to " + num(b.z) + " m";
    };
    auto& n = out_.notes;
    n.push_back("geometry from the SEG-Y headers: " + std::to_string(shots.size()) + " shots, " +
                std::to_string(lo) + (lo == hi ? "" : " to " + std::to_string(hi)) +
                " traces per shot (" + std::to_string(total) + " traces)");
    n.push_back(std::string("geometry: offsets ") + (three_d_ ? "(horizontal) " : "") + num(omin) +
                " to " + num(omax) + " m");
    n.push_back("geometry: sources " + extent(smin, smax));
    n.push_back("geometry: receivers " + extent(rmin, rmax));
    if (o_.rotate && !three_d_) {
      n.push_back("geometry: largest distance off the line " + num(off_line_) + " m");
      const double h = o_.grid->dx;
      if (off_line_ > h) {
        out_.warnings.push_back("observed.coordinates: positions lie up to " + num(off_line_) +
                                " m off the line (more than a cell, " + num(h) +
                                " m); they are projected onto it");
      }
    }
  }

  const std::string& path_;
  const SegyOptions& o_;
  HeaderGeometry& out_;
  bool three_d_;
  double sin_ = 1.0, cos_ = 0.0;
  bool any_coordinate_ = false;
  double off_line_ = 0.0;
  std::size_t dropped_ = 0, dropped_gathers_ = 0, last_dropped_gather_ = std::size_t(-1);
  int gather_first_trace_ = 0;
};

}  // namespace

SegyTraces::SegyTraces(std::unique_ptr<segy_file, SegyCloser> fp, Layout layout,
                       std::vector<int> index, std::vector<std::size_t> first,
                       std::size_t receivers, std::size_t samples,
                       std::shared_ptr<const TraceResampler> resampler)
    : ObservedTraces(first.size() - 1, receivers, samples),
      fp_(std::move(fp)),
      layout_(std::move(layout)),
      index_(std::move(index)),
      first_(std::move(first)),
      resampler_(std::move(resampler)),
      buf_(resampler_ ? std::size_t(resampler_->n_in()) : samples),
      resampled_(resampler_ ? samples : 0) {}

template <class U>
void SegyTraces::copy(std::size_t shot, U* out) const {
  check_shot(shot);
  const std::size_t nt = samples();
  const std::size_t traces = first_[shot + 1] - first_[shot];
  std::fill(out + traces * nt, out + receivers() * nt, U(0));
  for (std::size_t r = 0; r < traces; ++r) {
    const int t = index_[first_[shot] + r];
    const int err = segy_readtrace(fp_.get(), t, buf_.data(), layout_.trace0, layout_.trace_bsize);
    if (err != SEGY_OK) {
      throw RuntimeError("cannot read trace " + std::to_string(t) + " of '" + layout_.path +
                         "': " + segy_error(err));
    }
    segy_to_native(layout_.format, (long long)buf_.size(), buf_.data());
    if (resampler_) {
      resampler_->apply(buf_.data(), resampled_.data());
      for (std::size_t n = 0; n < nt; ++n) out[r * nt + n] = U(resampled_[n]);
    } else {
      for (std::size_t n = 0; n < nt; ++n) out[r * nt + n] = U(buf_[n]);
    }
  }
}

std::vector<int> SegyTraces::file_traces(std::size_t shot) const {
  check_shot(shot);
  return std::vector<int>(index_.begin() + long(first_[shot]),
                          index_.begin() + long(first_[shot + 1]));
}

void SegyTraces::read_trace_header(int trace, char* header) const {
  const int err = segy_traceheader(fp_.get(), trace, header, layout_.trace0, layout_.trace_bsize);
  if (err != SEGY_OK) {
    throw RuntimeError("cannot read trace header " + std::to_string(trace) + " of '" +
                       layout_.path + "': " + segy_error(err));
  }
}

void SegyTraces::read_binary_header(char* header) const {
  const int err = segy_binheader(fp_.get(), header);
  if (err != SEGY_OK) {
    throw RuntimeError("cannot read the binary header of '" + layout_.path +
                       "': " + segy_error(err));
  }
}

DeckObserved read_segy_gathers(const std::string& path, double dt, const SegyOptions& options,
                               HeaderGeometry* geometry) {
  std::unique_ptr<segy_file, SegyCloser> fp(segy_open(path.c_str(), "rb"));
  if (!fp) fail(path, std::string("cannot open file: ") + std::strerror(errno));
  char bin[SEGY_BINARY_HEADER_SIZE];
  if (segy_binheader(fp.get(), bin) != SEGY_OK) fail(path, "not a SEG-Y file (no binary header)");
  int fmt = segy_format(bin);
  const auto supported = [](int f) {
    return f == SEGY_IEEE_FLOAT_4_BYTE || f == SEGY_IBM_FLOAT_4_BYTE;
  };
  // Little-endian files (SEG-Y rev 2 allows them; Seismic Unix writes them): the format code
  // (bytes 3225-3226) reads byte-swapped, and a rev 2 byte-order constant (bytes 3297-3300,
  // 0x01020304 in the file's order) reads 04 03 02 01.
  const int swapped = ((fmt & 0xff) << 8) | ((fmt >> 8) & 0xff);
  const unsigned char* order = reinterpret_cast<const unsigned char*>(bin + 96);
  const bool lsb_order = order[0] == 4 && order[1] == 3 && order[2] == 2 && order[3] == 1;
  const bool lsb = !supported(fmt) && (supported(swapped) || lsb_order);
  if (lsb) {
    if (segy_set_format(fp.get(), swapped | SEGY_LSB) != SEGY_OK ||
        segy_binheader(fp.get(), bin) != SEGY_OK) {
      fail(path, "cannot read the little-endian SEG-Y binary header");
    }
    fmt = segy_format(bin);
  }
  if (!supported(fmt)) {
    fail(path, "unsupported SEG-Y sample format code " + std::to_string(fmt) +
                   " (supported: 1 = IBM float, 5 = IEEE float, big- or little-endian)");
  }
  if (segy_set_format(fp.get(), fmt | (lsb ? SEGY_LSB : 0)) != SEGY_OK) {
    fail(path, "cannot set the SEG-Y sample format");
  }
  const long trace0 = segy_trace0(bin);
  const int samples = segy_samples(bin);
  if (samples <= 0) fail(path, "the SEG-Y binary header gives no sample count");
  const int trace_bsize = segy_trsize(fmt, samples);
  int traces = 0;
  int err = segy_traces(fp.get(), &traces, trace0, trace_bsize);
  if (err != SEGY_OK) fail(path, "cannot count the SEG-Y traces: " + segy_error(err));
  if (traces <= 0) fail(path, "the SEG-Y file holds no traces");

  // Gathers: runs of equal FieldRecord (or the chosen byte, or source coordinates). Only the
  // 240-byte trace headers are read here.
  const SegyHeaderBytes& b = options.bytes;
  std::unique_ptr<GeometryBuilder> builder;
  if (geometry) builder = std::make_unique<GeometryBuilder>(path, options, *geometry);
  std::vector<int> index;
  std::vector<std::size_t> first;
  int32_t previous[2] = {0, 0};
  int32_t file_interval = 0;
  double file_delay = 0.0;  // s
  for (int t = 0; t < traces; ++t) {
    char th[SEGY_TRACE_HEADER_SIZE];
    err = segy_traceheader(fp.get(), t, th, trace0, trace_bsize);
    if (err != SEGY_OK) fail(path, "cannot read trace header " + std::to_string(t));
    int32_t key[2] = {0, 0};
    if (options.gather_by_source) {
      key[0] = field(th, b.source_x);
      key[1] = field(th, b.source_y);
    } else {
      key[0] = field(th, b.shot);
    }
    const int32_t interval = field(th, SEGY_TR_SAMPLE_INTER);
    const int32_t count = field(th, SEGY_TR_SAMPLE_COUNT);
    if (count != 0 && count != samples) {
      fail(path, "trace " + std::to_string(t + 1) + " (1-based, file order) has " +
                     std::to_string(count) + " samples (byte 115) but the binary header gives " +
                     std::to_string(samples) + "; pwave reads traces of one length");
    }
    const bool new_gather = t == 0 || key[0] != previous[0] || key[1] != previous[1];
    if (new_gather) first.push_back(index.size());
    previous[0] = key[0];
    previous[1] = key[1];
    if (t == 0) file_interval = interval;
    if (t == 0 && interval > 0 && std::abs(interval * 1e-6 - dt) > 1e-6 && !options.resample) {
      std::ostringstream what;
      what << "the SEG-Y sample interval is " << interval * 1e-6 << " s but time.dt = " << dt
           << " s (observed.resample: true resamples the traces)";
      fail(path, what.str());
    }
    // DelayRecordingTime (byte 109, ms, times the time scalar of byte 215 when it is set): the
    // time of the trace's first sample. One time axis for the whole file.
    const double delay =
        scaled(field(th, SEGY_TR_DELAY_REC_TIME), field(th, SEGY_TR_SCALAR_TRACE_HEADER)) * 1e-3;
    if (t == 0) {
      file_delay = delay;
      if (delay != 0.0 && !options.resample) {
        fail(path, "trace 1 (1-based, file order) starts at t = " + num(delay * 1e3) +
                       " ms (DelayRecordingTime, byte 109), not at the source's time zero; "
                       "observed.resample: true shifts the traces onto the simulation's axis");
      }
    } else if (delay != file_delay) {
      fail(path, "trace " + std::to_string(t + 1) + " (1-based, file order) starts at t = " +
                     num(delay * 1e3) + " ms (DelayRecordingTime, byte 109) but trace 1 at " +
                     num(file_delay * 1e3) + " ms; pwave reads traces of one time axis");
    }
    if (!builder || builder->add(th, t, first.size() - 1, new_gather)) index.push_back(t);
  }
  if (builder) builder->finish();
  first.push_back(index.size());
  DeckObserved out;
  std::size_t widest = 0;
  for (std::size_t s = 0; s + 1 < first.size(); ++s) {
    out.shot_traces.push_back(first[s + 1] - first[s]);
    widest = std::max(widest, out.shot_traces.back());
  }
  std::shared_ptr<const TraceResampler> resampler;
  if (file_interval <= 0) segy_get_bfield(bin, SEGY_BIN_INTERVAL, &file_interval);
  const double file_dt = file_interval * 1e-6;
  if (options.resample &&
      (samples != options.nt || std::abs(file_dt - dt) > 1e-6 || file_delay != 0.0)) {
    if (file_interval <= 0) {
      fail(path,
           "observed.resample: the file gives no sample interval (trace byte 117, binary "
           "header byte 3217)");
    }
    resampler = std::make_shared<TraceResampler>(TimeAxis{samples, file_dt, file_delay},
                                                 TimeAxis{options.nt, dt, 0.0});
  }
  out.shape = {out.shot_traces.size(), widest, std::size_t(resampler ? options.nt : samples)};
  SegyTraces::Layout layout;
  layout.path = path;
  layout.format = fmt;
  layout.little_endian = lsb;
  layout.trace0 = trace0;
  layout.trace_bsize = trace_bsize;
  // Without an interval in the file its traces are taken to be on time.dt.
  layout.axis = TimeAxis{samples, file_interval > 0 ? file_dt : dt, file_delay};
  out.traces = std::make_shared<SegyTraces>(std::move(fp), std::move(layout), std::move(index),
                                            std::move(first), out.shape[1], out.shape[2],
                                            std::move(resampler));
  return out;
}

bool segy_trace_field(int byte) {
  char th[SEGY_TRACE_HEADER_SIZE] = {};
  int32_t v = 0;
  return byte > 0 && byte <= SEGY_TRACE_HEADER_SIZE && segy_get_field(th, byte, &v) == SEGY_OK;
}

}  // namespace pwave::io
