// Loading 2D grids from .npy, raw binary and SEG-Y files, with decimation, axis order and scale.

#include "pwave/io/grid_file.hpp"

#include <segyio/segy.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
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

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string shape_text(long a, long b) {
  return "[" + std::to_string(a) + ", " + std::to_string(b) + "]";
}

long decimated(long stored, int stride) {
  return (stored + stride - 1) / stride;
}

// Fails with the same message for every missing/unreadable file, whatever the format.
void check_readable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) fail(path, "file not found");
    fail(path, std::string("cannot open file: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, not a grid file");
}

// A 2D array exactly as stored: dims[0] is the slow axis.
struct StoredGrid {
  long dims[2] = {0, 0};
  std::vector<double> values;
};

std::string resolve_format(const GridFileSpec& spec) {
  if (!spec.format.empty()) {
    const std::string f = lower(spec.format);
    if (f == "npy" || f == "raw" || f == "segy") return f;
    if (f == "sgy") return "segy";
    fail(spec.path, "unknown grid file format '" + spec.format + "' (expected npy, raw or segy)");
  }
  const std::string p = lower(spec.path);
  if (ends_with(p, ".npy")) return "npy";
  if (ends_with(p, ".sgy") || ends_with(p, ".segy")) return "segy";
  return "raw";
}

// Stored dims that decimate to (nz, nx) in `order`, as [slow, fast].
void wanted_stored_range(const GridFileSpec& spec, int nz, int nx, long lo[2], long hi[2]) {
  const bool zx = spec.order == "zx";
  const long n[2] = {zx ? nz : nx, zx ? nx : nz};
  const int s[2] = {zx ? spec.stride_z : spec.stride_x, zx ? spec.stride_x : spec.stride_z};
  for (int a = 0; a < 2; ++a) {
    lo[a] = (n[a] - 1) * s[a] + 1;
    hi[a] = n[a] * s[a];
  }
}

std::string expected_text(const GridFileSpec& spec, int nz, int nx) {
  std::ostringstream os;
  os << "the model is (nz=" << nz << ", nx=" << nx << ")";
  if (spec.stride_z != 1 || spec.stride_x != 1) {
    os << " after decimation by (stride_z=" << spec.stride_z << ", stride_x=" << spec.stride_x
       << ")";
  }
  return os.str();
}

// Raw files: without `shape`, the stored shape is whatever decimates to (nz, nx) and matches the
// file size; with a stride several stored sizes decimate alike, so the size picks one.
StoredGrid read_raw(const GridFileSpec& spec, int nz, int nx) {
  const std::string& path = spec.path;
  const std::string dtype = lower(spec.dtype);
  std::size_t item = 0;
  if (dtype == "float32" || dtype == "f4" || dtype == "<f4") {
    item = 4;
  } else if (dtype == "float64" || dtype == "f8" || dtype == "<f8") {
    item = 8;
  } else {
    fail(path, "unsupported raw dtype '" + spec.dtype + "' (expected float32 or float64)");
  }
  const std::string dname = item == 4 ? "float32" : "float64";

  check_readable(path);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) fail(path, std::string("cannot open file: ") + std::strerror(errno));
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof chunk, f.get())) > 0) {
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  if (std::ferror(f.get())) fail(path, std::string("cannot read file: ") + std::strerror(errno));

  const std::size_t nbytes = bytes.size();
  const long nvalues = static_cast<long>(nbytes / item);
  std::ostringstream holds;
  holds << "file holds " << nbytes << " bytes";
  if (nbytes % item == 0) {
    holds << " = " << nvalues << " " << dname << " values";
  } else {
    holds << ", not a whole number of " << dname << " values (" << item << " bytes each)";
  }

  StoredGrid g;
  if (!spec.shape.empty()) {
    if (spec.shape.size() != 2 || spec.shape[0] <= 0 || spec.shape[1] <= 0) {
      std::string s;
      for (std::size_t i = 0; i < spec.shape.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(spec.shape[i]);
      }
      fail(path, "shape [" + s + "] must be two positive sizes, as stored (C order)");
    }
    g.dims[0] = spec.shape[0];
    g.dims[1] = spec.shape[1];
    const long need = g.dims[0] * g.dims[1];
    if (nbytes % item != 0 || nvalues != need) {
      fail(path, holds.str() + ", but shape " + shape_text(g.dims[0], g.dims[1]) + " needs " +
                     std::to_string(need) + " " + dname +
                     " values = " + std::to_string(need * long(item)) + " bytes");
    }
  } else {
    long lo[2], hi[2];
    wanted_stored_range(spec, nz, nx, lo, hi);
    std::vector<std::pair<long, long>> fits;
    if (nbytes % item == 0) {
      for (long a = lo[0]; a <= hi[0]; ++a) {
        if (nvalues % a == 0 && nvalues / a >= lo[1] && nvalues / a <= hi[1]) {
          fits.emplace_back(a, nvalues / a);
        }
      }
    }
    const std::string axes = spec.order == "zx" ? "[nz][nx]" : "[nx][nz]";
    if (fits.empty()) {
      std::ostringstream os;
      os << holds.str();
      if (lo[0] == hi[0] && lo[1] == hi[1]) {
        os << ", but shape " << shape_text(lo[0], lo[1]) << " (order " << spec.order << ", stored "
           << axes << ") needs " << lo[0] * lo[1] << " " << dname
           << " values = " << lo[0] * lo[1] * long(item) << " bytes";
      } else {
        // Several stored sizes decimate to the model; none of them has this many values.
        os << ", but " << expected_text(spec, nz, nx) << ", which needs a stored shape in ["
           << lo[0] << ".." << hi[0] << ", " << lo[1] << ".." << hi[1] << "] (order " << spec.order
           << ", stored " << axes << ", e.g. " << shape_text(hi[0], hi[1]) << " = " << hi[0] * hi[1]
           << " values), and no shape in that range holds " << nvalues << " values";
      }
      os << "; check the model shape, `order` and `dtype`, or give the stored `shape`";
      fail(path, os.str());
    }
    if (fits.size() > 1) {
      std::ostringstream os;
      os << holds.str() << ", which fits several stored shapes that decimate to (nz=" << nz
         << ", nx=" << nx << "):";
      for (const auto& [a, b] : fits) os << " " << shape_text(a, b);
      os << "; give the stored `shape`";
      fail(path, os.str());
    }
    g.dims[0] = fits[0].first;
    g.dims[1] = fits[0].second;
  }

  // Raw files are little-endian by definition; byte order is spelled out so that the result
  // does not depend on the host.
  g.values.resize(static_cast<std::size_t>(g.dims[0] * g.dims[1]));
  const unsigned char* p = bytes.data();
  for (std::size_t i = 0; i < g.values.size(); ++i, p += item) {
    if (item == 4) {
      std::uint32_t u = 0;
      for (int k = 3; k >= 0; --k) u = (u << 8) | p[k];
      float v;
      std::memcpy(&v, &u, 4);
      g.values[i] = v;
    } else {
      std::uint64_t u = 0;
      for (int k = 7; k >= 0; --k) u = (u << 8) | p[k];
      double v;
      std::memcpy(&v, &u, 8);
      g.values[i] = v;
    }
  }
  return g;
}

StoredGrid read_npy_grid(const GridFileSpec& spec) {
  NpyArray a = read_npy(spec.path);
  std::string s;
  for (std::size_t i = 0; i < a.shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(a.shape[i]);
  if (a.shape.size() != 2) {
    fail(spec.path, "holds a " + std::to_string(a.shape.size()) + "-d array of shape [" + s +
                        "], but a grid file must hold a 2-d array");
  }
  StoredGrid g;
  g.dims[0] = static_cast<long>(a.shape[0]);
  g.dims[1] = static_cast<long>(a.shape[1]);
  if (!spec.shape.empty() &&
      (spec.shape.size() != 2 || spec.shape[0] != g.dims[0] || spec.shape[1] != g.dims[1])) {
    std::string want;
    for (std::size_t i = 0; i < spec.shape.size(); ++i) {
      want += (i ? ", " : "") + std::to_string(spec.shape[i]);
    }
    fail(spec.path, "holds an array of shape [" + s + "], but `shape` says [" + want + "]");
  }
  g.values = std::move(a.data);
  return g;
}

struct SegyCloser {
  void operator()(segy_file* f) const {
    if (f) segy_close(f);
  }
};

std::string segy_error_text(int err) {
  switch (err) {
    case SEGY_FSEEK_ERROR:
      return "seek failed";
    case SEGY_FREAD_ERROR:
      return "read failed (file truncated?)";
    case SEGY_TRACE_SIZE_MISMATCH:
      return "file size is not a whole number of traces of the size the binary header gives";
    case SEGY_INVALID_ARGS:
      return "invalid arguments (corrupt binary header?)";
    default:
      return "segyio error " + std::to_string(err);
  }
}

bool supported_segy_format(int fmt) {
  return fmt == SEGY_IBM_FLOAT_4_BYTE || fmt == SEGY_IEEE_FLOAT_4_BYTE;
}

// SEG-Y: traces are x positions and samples are depths, so the stored array is [nx][nz].
StoredGrid read_segy(const GridFileSpec& spec) {
  const std::string& path = spec.path;
  check_readable(path);
  std::unique_ptr<segy_file, SegyCloser> fp(segy_open(path.c_str(), "rb"));
  if (!fp) fail(path, std::string("cannot open file: ") + std::strerror(errno));

  char bin[SEGY_BINARY_HEADER_SIZE];
  int err = segy_binheader(fp.get(), bin);
  if (err != SEGY_OK)
    fail(path, "not a SEG-Y file (no binary header: " + segy_error_text(err) + ")");
  int fmt = segy_format(bin);
  int endian = SEGY_MSB;
  if (!supported_segy_format(fmt)) {
    // SEG-Y rev 2 allows little-endian files; a byte-swapped format code gives them away.
    const int swapped = ((fmt & 0xFF) << 8) | ((fmt >> 8) & 0xFF);
    if (supported_segy_format(swapped)) {
      endian = SEGY_LSB;
      if (segy_set_format(fp.get(), swapped | SEGY_LSB) != SEGY_OK ||
          segy_binheader(fp.get(), bin) != SEGY_OK) {
        fail(path, "cannot read the little-endian SEG-Y binary header");
      }
      fmt = segy_format(bin);
    } else {
      // SEG-Y defines codes 1..16; anything else means this is not SEG-Y at all.
      const bool known = fmt >= 1 && fmt <= 16;
      fail(path, std::string(known ? "" : "not a SEG-Y file? ") +
                     "unsupported SEG-Y sample format code " + std::to_string(fmt) +
                     " in the binary header (supported: 1 = IBM float, 5 = IEEE float)");
    }
  }
  if (segy_set_format(fp.get(), fmt | endian) != SEGY_OK) {
    fail(path, "unsupported SEG-Y sample format code " + std::to_string(fmt));
  }
  const long trace0 = segy_trace0(bin);
  int samples = segy_samples(bin);
  if (samples <= 0) {
    // Some writers leave the binary header's count empty and fill only the trace headers.
    char th[SEGY_TRACE_HEADER_SIZE];
    int32_t ns = 0;
    if (segy_traceheader(fp.get(), 0, th, trace0, 0) == SEGY_OK &&
        segy_get_field(th, SEGY_TR_SAMPLE_COUNT, &ns) == SEGY_OK) {
      samples = ns;
    }
  }
  if (samples <= 0) fail(path, "SEG-Y file gives no sample count per trace");
  const int trace_bsize = segy_trsize(fmt, samples);
  int traces = 0;
  err = segy_traces(fp.get(), &traces, trace0, trace_bsize);
  if (err != SEGY_OK) {
    fail(path, "cannot count SEG-Y traces of " + std::to_string(samples) +
                   " samples: " + segy_error_text(err));
  }
  if (traces <= 0) fail(path, "SEG-Y file holds no traces");

  StoredGrid g;
  g.dims[0] = traces;
  g.dims[1] = samples;
  g.values.resize(static_cast<std::size_t>(traces) * samples);
  std::vector<float> buf(static_cast<std::size_t>(samples));
  for (int t = 0; t < traces; ++t) {
    err = segy_readtrace(fp.get(), t, buf.data(), trace0, trace_bsize);
    if (err != SEGY_OK) {
      fail(path, "cannot read SEG-Y trace " + std::to_string(t) + ": " + segy_error_text(err));
    }
    segy_to_native(fmt, samples, buf.data());
    std::copy(buf.begin(), buf.end(), g.values.begin() + std::size_t(t) * samples);
  }
  return g;
}

std::string value_text(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

}  // namespace

std::vector<double> load_grid_file(const GridFileSpec& spec, int nz, int nx) {
  const std::string& path = spec.path;
  if (path.empty()) fail("", "grid file: empty path");
  if (nz <= 0 || nx <= 0) {
    fail(path, "model shape (nz=" + std::to_string(nz) + ", nx=" + std::to_string(nx) +
                   ") must be positive");
  }
  if (spec.stride_z < 1 || spec.stride_x < 1) {
    fail(path, "strides must be at least 1 (stride_z=" + std::to_string(spec.stride_z) +
                   ", stride_x=" + std::to_string(spec.stride_x) + ")");
  }
  if (!std::isfinite(spec.scale)) fail(path, "scale must be a finite number");
  const std::string format = resolve_format(spec);
  if (format != "segy" && spec.order != "zx" && spec.order != "xz") {
    fail(path, "unknown order '" + spec.order + "' (expected zx or xz)");
  }

  StoredGrid g;
  bool zx = spec.order == "zx";
  if (format == "raw") {
    g = read_raw(spec, nz, nx);
  } else if (format == "npy") {
    g = read_npy_grid(spec);
  } else {
    g = read_segy(spec);
    zx = false;  // one trace per x position, whatever `order` says
  }

  const long stored_z = zx ? g.dims[0] : g.dims[1];
  const long stored_x = zx ? g.dims[1] : g.dims[0];
  if (decimated(stored_z, spec.stride_z) != nz || decimated(stored_x, spec.stride_x) != nx) {
    std::ostringstream os;
    os << "file holds an array of shape " << shape_text(g.dims[0], g.dims[1]) << " (nz=" << stored_z
       << ", nx=" << stored_x << " in order " << (zx ? "zx" : "xz");
    if (spec.stride_z != 1 || spec.stride_x != 1) {
      os << "; decimated: nz=" << decimated(stored_z, spec.stride_z)
         << ", nx=" << decimated(stored_x, spec.stride_x);
    }
    os << "), but " << expected_text(spec, nz, nx);
    fail(path, os.str());
  }

  std::vector<double> out(static_cast<std::size_t>(nz) * nx);
  for (long iz = 0; iz < nz; ++iz) {
    for (long ix = 0; ix < nx; ++ix) {
      const long sz = iz * spec.stride_z, sx = ix * spec.stride_x;
      const long i0 = zx ? sz : sx, i1 = zx ? sx : sz;
      const double v = g.values[std::size_t(i0) * g.dims[1] + i1] * spec.scale;
      if (!std::isfinite(v)) {
        fail(path, "non-finite value (" + value_text(v) +
                       ") at model index (iz=" + std::to_string(iz) + ", ix=" + std::to_string(ix) +
                       "), stored index " + shape_text(i0, i1));
      }
      out[std::size_t(iz) * nx + ix] = v;
    }
  }
  return out;
}

}  // namespace pwave::io
