#include "pwave/io/deck_observed.hpp"

#include <segyio/segy.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

#include "pwave/core/error.hpp"

namespace pwave::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("", path, what);
}

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string s;
  for (std::size_t v : shape) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "[" + s + "]";
}

struct SegyCloser {
  void operator()(segy_file* f) const {
    if (f) segy_close(f);
  }
};

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

/// A SEG-Y file of shot gathers, indexed once (trace headers: shots, sample count, interval)
/// and read one shot at a time with segyio. SEG-Y values are big-endian (often IBM floats) and
/// every trace has a header in front, so they cannot be used in place as a .npy file can; a
/// shot's traces are decoded into a small buffer instead. Shots may hold different numbers of
/// traces: a shot is read into receivers() rows, those past its own traces zero.
class SegyTraces final : public ObservedTraces {
 public:
  /// `first`: the file's first trace of each shot, and one past the last trace (shots + 1).
  SegyTraces(std::unique_ptr<segy_file, SegyCloser> fp, std::string path, int format, long trace0,
             int trace_bsize, std::vector<int> first, std::size_t receivers, std::size_t samples)
      : ObservedTraces(first.size() - 1, receivers, samples),
        fp_(std::move(fp)),
        path_(std::move(path)),
        format_(format),
        trace0_(trace0),
        trace_bsize_(trace_bsize),
        first_(std::move(first)),
        buf_(samples) {}

  void read_shot(std::size_t shot, float* out) const override { copy(shot, out); }
  void read_shot(std::size_t shot, double* out) const override { copy(shot, out); }

 private:
  template <class U>
  void copy(std::size_t shot, U* out) const {
    check_shot(shot);
    const std::size_t nt = samples();
    const std::size_t traces = std::size_t(first_[shot + 1] - first_[shot]);
    std::fill(out + traces * nt, out + receivers() * nt, U(0));
    for (std::size_t r = 0; r < traces; ++r) {
      const int t = first_[shot] + int(r);
      const int err = segy_readtrace(fp_.get(), t, buf_.data(), trace0_, trace_bsize_);
      if (err != SEGY_OK) {
        throw RuntimeError("cannot read trace " + std::to_string(t) + " of '" + path_ +
                           "': " + segy_error(err));
      }
      segy_to_native(format_, int(nt), buf_.data());
      for (std::size_t n = 0; n < nt; ++n) out[r * nt + n] = U(buf_[n]);
    }
  }

  std::unique_ptr<segy_file, SegyCloser> fp_;
  std::string path_;
  int format_;
  long trace0_;
  int trace_bsize_;
  std::vector<int> first_;
  mutable std::vector<float> buf_;  // one trace; read_shot is not thread-safe
};

DeckObserved read_segy_gathers(const std::string& path, double dt) {
  std::unique_ptr<segy_file, SegyCloser> fp(segy_open(path.c_str(), "rb"));
  if (!fp) fail(path, std::string("cannot open file: ") + std::strerror(errno));
  char bin[SEGY_BINARY_HEADER_SIZE];
  if (segy_binheader(fp.get(), bin) != SEGY_OK) fail(path, "not a SEG-Y file (no binary header)");
  const int fmt = segy_format(bin);
  if (fmt != SEGY_IEEE_FLOAT_4_BYTE && fmt != SEGY_IBM_FLOAT_4_BYTE) {
    fail(path, "unsupported SEG-Y sample format code " + std::to_string(fmt) +
                   " (supported: 1 = IBM float, 5 = IEEE float, big-endian)");
  }
  if (segy_set_format(fp.get(), fmt) != SEGY_OK) fail(path, "cannot set the SEG-Y sample format");
  const long trace0 = segy_trace0(bin);
  const int samples = segy_samples(bin);
  if (samples <= 0) fail(path, "the SEG-Y binary header gives no sample count");
  const int trace_bsize = segy_trsize(fmt, samples);
  int traces = 0;
  int err = segy_traces(fp.get(), &traces, trace0, trace_bsize);
  if (err != SEGY_OK) fail(path, "cannot count the SEG-Y traces: " + segy_error(err));
  if (traces <= 0) fail(path, "the SEG-Y file holds no traces");

  // Shots: runs of equal FieldRecord. Only the 240-byte trace headers are read here.
  std::vector<int> group_sizes;
  int32_t previous = 0;
  for (int t = 0; t < traces; ++t) {
    char th[SEGY_TRACE_HEADER_SIZE];
    err = segy_traceheader(fp.get(), t, th, trace0, trace_bsize);
    if (err != SEGY_OK) fail(path, "cannot read trace header " + std::to_string(t));
    int32_t record = 0, interval = 0;
    segy_get_field(th, SEGY_TR_FIELD_RECORD, &record);
    segy_get_field(th, SEGY_TR_SAMPLE_INTER, &interval);
    if (t == 0 || record != previous) group_sizes.push_back(0);
    ++group_sizes.back();
    previous = record;
    if (t == 0 && interval > 0 && std::abs(interval * 1e-6 - dt) > 1e-6) {
      std::ostringstream what;
      what << "the SEG-Y sample interval is " << interval * 1e-6 << " s but time.dt = " << dt
           << " s";
      fail(path, what.str());
    }
  }
  DeckObserved out;
  std::vector<int> first{0};
  for (int g : group_sizes) {
    first.push_back(first.back() + g);
    out.shot_traces.push_back(std::size_t(g));
  }
  const int widest = *std::max_element(group_sizes.begin(), group_sizes.end());
  out.shape = {group_sizes.size(), std::size_t(widest), std::size_t(samples)};
  out.traces = std::make_shared<SegyTraces>(std::move(fp), path, fmt, trace0, trace_bsize,
                                            std::move(first), out.shape[1], out.shape[2]);
  return out;
}

// Why a .npy file cannot be read in place, with the numpy line that fixes it; "" if it can.
std::string unmappable(const NpyHeader& h) {
  const std::string resave =
      "; observed data are read in place from the file: re-save it with "
      "np.save(name, np.ascontiguousarray(a, dtype='<f4'))";
  if (h.kind != 'f') return "holds " + h.dtype + " integers, not float32 or float64" + resave;
  if (!h.native_byte_order) {
    return "holds " + h.dtype + " values in the other byte order than this machine's" + resave;
  }
  if (h.fortran_order)
    return "is stored in Fortran order (fortran_order: True), not C order" + resave;
  if (h.data_offset % h.item_size != 0) {
    return "has its data at byte " + std::to_string(h.data_offset) + ", not aligned to its values" +
           resave;
  }
  return "";
}

DeckObserved read_npy_traces(const std::string& path) {
  MappedFile file(path);
  const NpyHeader header = parse_npy_header(file.data(), file.size(), path);
  DeckObserved out;
  out.shape = header.shape;
  // Another shape is reported by the caller, with the shape the acquisition needs.
  if (header.shape.size() == 3) {
    out.traces = std::make_shared<MappedNpyTraces>(std::move(file), header);
  } else {
    const std::string why = unmappable(header);
    if (!why.empty()) fail(path, why);
  }
  return out;
}

}  // namespace

MappedNpyTraces::MappedNpyTraces(MappedFile file, NpyHeader header)
    : ObservedTraces(header.shape.size() == 3 ? header.shape[0] : 0,
                     header.shape.size() == 3 ? header.shape[1] : 0,
                     header.shape.size() == 3 ? header.shape[2] : 0),
      file_(std::move(file)),
      header_(std::move(header)) {
  const std::string why = unmappable(header_);
  if (!why.empty()) fail(file_.path(), why);
  if (header_.shape.size() != 3) {
    fail(file_.path(),
         "holds an array of shape " + shape_text(header_.shape) + ", not [shot, receiver, time]");
  }
}

MappedNpyTraces::InPlace<float> MappedNpyTraces::float32() const {
  if (holds_float64() || header_.count == 0) return {};
  return InPlace<float>(reinterpret_cast<const float*>(file_.data() + header_.data_offset), shots(),
                        receivers(), samples());
}

MappedNpyTraces::InPlace<double> MappedNpyTraces::float64() const {
  if (!holds_float64() || header_.count == 0) return {};
  return InPlace<double>(reinterpret_cast<const double*>(file_.data() + header_.data_offset),
                         shots(), receivers(), samples());
}

template <class U>
void MappedNpyTraces::copy(std::size_t shot, U* out) const {
  check_shot(shot);
  const std::size_t n = shot_size();
  const std::size_t offset = header_.data_offset + shot * n * header_.item_size;
  if (holds_float64()) {
    const double* in = reinterpret_cast<const double*>(file_.data() + offset);
    for (std::size_t i = 0; i < n; ++i) out[i] = U(in[i]);
  } else {
    const float* in = reinterpret_cast<const float*>(file_.data() + offset);
    for (std::size_t i = 0; i < n; ++i) out[i] = U(in[i]);
  }
  file_.release(offset, n * header_.item_size);
}

void MappedNpyTraces::read_shot(std::size_t shot, float* out) const {
  copy(shot, out);
}
void MappedNpyTraces::read_shot(std::size_t shot, double* out) const {
  copy(shot, out);
}

DeckObserved read_observed_file(const std::string& path, const std::string& format, double dt) {
  DeckObserved out = format == "segy" ? read_segy_gathers(path, dt) : read_npy_traces(path);
  out.file = path;
  out.format = format;
  return out;
}

std::pair<std::size_t, std::size_t> observed_check_range(std::size_t shots, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size) return {0, 0};
  return {shots * std::size_t(rank) / std::size_t(size),
          shots * std::size_t(rank + 1) / std::size_t(size)};
}

void check_observed_values(const DeckObserved& observed, std::size_t first_shot,
                           std::size_t last_shot) {
  if (!observed.traces) return;
  const ObservedTraces& t = *observed.traces;
  last_shot = std::min(last_shot, t.shots());
  std::vector<double> shot(t.shot_size());
  for (std::size_t s = first_shot; s < last_shot; ++s) {
    t.read_shot(s, shot.data());
    for (std::size_t i = 0; i < shot.size(); ++i) {
      if (!std::isfinite(shot[i])) {
        throw InputError("observed.file", observed.where,
                         observed.file + ": value " + std::to_string(s * t.shot_size() + i) +
                             " (C order) is not finite (gradient.selection.dead_traces: "
                             "exclude leaves such traces out)");
      }
    }
  }
}

}  // namespace pwave::io
