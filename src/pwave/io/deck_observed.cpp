#include "pwave/io/deck_observed.hpp"

#include <segyio/segy.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>

#include "pwave/core/error.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("", path, what);
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

  // Shots: runs of equal FieldRecord.
  std::vector<int> group_sizes;
  int32_t previous = 0;
  std::vector<float> buf(static_cast<std::size_t>(samples));
  DeckObserved out;
  out.data.resize(std::size_t(traces) * std::size_t(samples));
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
    err = segy_readtrace(fp.get(), t, buf.data(), trace0, trace_bsize);
    if (err != SEGY_OK)
      fail(path, "cannot read trace " + std::to_string(t) + ": " + segy_error(err));
    segy_to_native(fmt, samples, buf.data());
    std::copy(buf.begin(), buf.end(), out.data.begin() + std::size_t(t) * samples);
  }
  for (int g : group_sizes) {
    if (g != group_sizes.front()) {
      fail(path, "its " + std::to_string(group_sizes.size()) +
                     " shots (FieldRecord values) do not all have the same number of traces");
    }
  }
  out.shape = {group_sizes.size(), std::size_t(group_sizes.front()), std::size_t(samples)};
  return out;
}

}  // namespace

DeckObserved read_observed_file(const std::string& path, const std::string& format, double dt) {
  DeckObserved out;
  if (format == "segy") {
    out = read_segy_gathers(path, dt);
  } else {
    NpyArray a = read_npy(path);
    out.shape = a.shape;
    out.data = std::move(a.data);
  }
  out.file = path;
  out.format = format;
  for (std::size_t i = 0; i < out.data.size(); ++i) {
    if (!std::isfinite(out.data[i])) {
      fail(path, "value " + std::to_string(i) + " (C order) is not finite");
    }
  }
  return out;
}

}  // namespace pwave::io
