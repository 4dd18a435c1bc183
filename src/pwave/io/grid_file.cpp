// Loading 2D and 3D grids from .npy, raw binary and SEG-Y files, with decimation, axis order and
// scale.

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
#include "pwave/io/segy_file.hpp"

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

std::string shape_text(const std::vector<long>& dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return "[" + s + "]";
}

long decimated(long stored, int stride) {
  return (stored + stride - 1) / stride;
}

long product(const std::vector<long>& dims) {
  long p = 1;
  for (long d : dims) p *= d;
  return p;
}

// The model's axes, the stored order and the strides: everything but the data.
struct Layout {
  std::string axes;   ///< the model's axes, slowest first: "zx" or "zyx"
  std::string order;  ///< the stored axes, slowest first ("zx", "xz", "zyx" or "xyz")
  long nz = 0, ny = 1, nx = 0;
  int sz = 1, sy = 1, sx = 1;

  long size(char axis) const { return axis == 'z' ? nz : axis == 'y' ? ny : nx; }
  int stride(char axis) const { return axis == 'z' ? sz : axis == 'y' ? sy : sx; }
  bool strided() const { return sz != 1 || sy != 1 || sx != 1; }
  /// "nz=3, nx=5" (model order) for the sizes `n(axis)`.
  template <class F>
  std::string sizes(F n) const {
    std::string s;
    for (char a : axes)
      s += std::string(s.empty() ? "" : ", ") + "n" + a + "=" + std::to_string(n(a));
    return s;
  }
  /// "[nz][nx]": the stored order spelled as sizes.
  std::string stored_axes() const {
    std::string s;
    for (char a : order) s += std::string("[n") + a + "]";
    return s;
  }
};

// Fails with the same message for every missing/unreadable file, whatever the format.
void check_readable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) fail(path, "file not found");
    fail(path, std::string("cannot open file: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, not a grid file");
}

// An array exactly as stored: dims[0] is the slowest axis.
struct StoredGrid {
  std::vector<long> dims;
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

// Stored dims that decimate to the model in `order`, slowest first.
void wanted_stored_range(const Layout& l, std::vector<long>& lo, std::vector<long>& hi) {
  lo.clear();
  hi.clear();
  for (char a : l.order) {
    lo.push_back((l.size(a) - 1) * l.stride(a) + 1);
    hi.push_back(l.size(a) * l.stride(a));
  }
}

std::string expected_text(const Layout& l) {
  std::ostringstream os;
  os << "the model is (" << l.sizes([&](char a) { return l.size(a); }) << ")";
  if (l.strided()) {
    std::string s;
    for (char a : l.axes) {
      s += std::string(s.empty() ? "" : ", ") + "stride_" + a + "=" + std::to_string(l.stride(a));
    }
    os << " after decimation by (" << s << ")";
  }
  return os.str();
}

// Every stored shape within [lo, hi] per axis that holds exactly `nvalues` values.
void fitting_shapes(const std::vector<long>& lo, const std::vector<long>& hi, long nvalues,
                    std::vector<long>& prefix, std::vector<std::vector<long>>& fits) {
  const std::size_t k = prefix.size();
  const long before = product(prefix);
  if (k + 1 == lo.size()) {
    if (nvalues % before == 0 && nvalues / before >= lo[k] && nvalues / before <= hi[k]) {
      fits.push_back(prefix);
      fits.back().push_back(nvalues / before);
    }
    return;
  }
  for (long a = lo[k]; a <= hi[k]; ++a) {
    prefix.push_back(a);
    fitting_shapes(lo, hi, nvalues, prefix, fits);
    prefix.pop_back();
  }
}

// Raw files: without `shape`, the stored shape is whatever decimates to the model and matches
// the file size; with a stride several stored sizes decimate alike, so the size picks one.
StoredGrid read_raw(const GridFileSpec& spec, const Layout& l) {
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

  const std::size_t rank = l.axes.size();
  StoredGrid g;
  if (!spec.shape.empty()) {
    bool positive = true;
    for (long d : spec.shape) positive = positive && d > 0;
    if (spec.shape.size() != rank || !positive) {
      fail(path, "shape " + shape_text(spec.shape) + " must be " + (rank == 2 ? "two" : "three") +
                     " positive sizes, as stored (C order)");
    }
    g.dims = spec.shape;
    const long need = product(g.dims);
    if (nbytes % item != 0 || nvalues != need) {
      fail(path, holds.str() + ", but shape " + shape_text(g.dims) + " needs " +
                     std::to_string(need) + " " + dname +
                     " values = " + std::to_string(need * long(item)) + " bytes");
    }
  } else {
    std::vector<long> lo, hi, prefix;
    wanted_stored_range(l, lo, hi);
    std::vector<std::vector<long>> fits;
    if (nbytes % item == 0) fitting_shapes(lo, hi, nvalues, prefix, fits);
    if (fits.empty()) {
      std::ostringstream os;
      os << holds.str();
      if (lo == hi) {
        os << ", but shape " << shape_text(lo) << " (order " << l.order << ", stored "
           << l.stored_axes() << ") needs " << product(lo) << " " << dname
           << " values = " << product(lo) * long(item) << " bytes";
      } else {
        // Several stored sizes decimate to the model; none of them has this many values.
        std::string range;
        for (std::size_t k = 0; k < lo.size(); ++k) {
          range += (k ? ", " : "") + std::to_string(lo[k]) + ".." + std::to_string(hi[k]);
        }
        os << ", but " << expected_text(l) << ", which needs a stored shape in [" << range
           << "] (order " << l.order << ", stored " << l.stored_axes() << ", e.g. "
           << shape_text(hi) << " = " << product(hi)
           << " values), and no shape in that range holds " << nvalues << " values";
      }
      os << "; check the model shape, `order` and `dtype`, or give the stored `shape`";
      fail(path, os.str());
    }
    if (fits.size() > 1) {
      std::ostringstream os;
      os << holds.str() << ", which fits several stored shapes that decimate to ("
         << l.sizes([&](char a) { return l.size(a); }) << "):";
      for (const auto& fit : fits) os << " " << shape_text(fit);
      os << "; give the stored `shape`";
      fail(path, os.str());
    }
    g.dims = fits[0];
  }

  // Raw files are little-endian by definition; byte order is spelled out so that the result
  // does not depend on the host.
  g.values.resize(static_cast<std::size_t>(product(g.dims)));
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

StoredGrid read_npy_grid(const GridFileSpec& spec, const Layout& l) {
  NpyArray a = read_npy(spec.path);
  StoredGrid g;
  for (std::size_t d : a.shape) g.dims.push_back(static_cast<long>(d));
  const std::string s = shape_text(g.dims);
  const std::size_t rank = l.axes.size();
  if (a.shape.size() != rank) {
    fail(spec.path, "holds a " + std::to_string(a.shape.size()) + "-d array of shape " + s +
                        (rank == 2 ? ", but a grid file must hold a 2-d array"
                                   : ", but a 3D model needs a 3-d array (model.shape has three "
                                     "entries)"));
  }
  if (!spec.shape.empty() && spec.shape != g.dims) {
    fail(spec.path,
         "holds an array of shape " + s + ", but `shape` says " + shape_text(spec.shape));
  }
  g.values = std::move(a.data);
  return g;
}

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
  g.dims = {traces, samples};
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

std::vector<double> load_grid_file(const GridFileSpec& spec, const Grid& grid) {
  const std::string& path = spec.path;
  if (path.empty()) fail("", "grid file: empty path");
  const bool is3d = grid.is_3d();
  Layout l;
  l.axes = is3d ? "zyx" : "zx";
  l.nz = grid.nz;
  l.ny = is3d ? grid.ny : 1;
  l.nx = grid.nx;
  l.sz = spec.stride_z;
  l.sy = is3d ? spec.stride_y : 1;
  l.sx = spec.stride_x;
  if (l.nz <= 0 || l.nx <= 0 || l.ny <= 0) {
    fail(path, "model shape (" + l.sizes([&](char a) { return l.size(a); }) + ") must be positive");
  }
  if (l.sz < 1 || l.sy < 1 || l.sx < 1) {
    std::string s;
    for (char a : l.axes) {
      s += std::string(s.empty() ? "" : ", ") + "stride_" + a + "=" + std::to_string(l.stride(a));
    }
    fail(path, "strides must be at least 1 (" + s + ")");
  }
  if (!std::isfinite(spec.scale)) fail(path, "scale must be a finite number");
  const std::string format = resolve_format(spec);
  if (format == "segy" && is3d) {
    fail(path,
         "SEG-Y velocity files hold 2D models only (one trace per x position); for a 3D model "
         "use npy ([nz][ny][nx]) or raw (format: raw, order: zyx or xyz)");
  }
  l.order = spec.order;
  if (is3d && l.order == "zx") l.order = "zyx";
  if (is3d && l.order == "xz") l.order = "xyz";
  if (format != "segy" &&
      !(is3d ? (l.order == "zyx" || l.order == "xyz") : (l.order == "zx" || l.order == "xz"))) {
    fail(path, "unknown order '" + spec.order + "' (expected " +
                   (is3d ? "zyx or xyz for a 3D model" : "zx or xz") + ")");
  }

  StoredGrid g;
  if (format == "raw") {
    g = read_raw(spec, l);
  } else if (format == "npy") {
    g = read_npy_grid(spec, l);
  } else {
    g = read_segy(spec);
    l.order = "xz";  // one trace per x position, whatever `order` says
  }

  // Stored size and element stride of each model axis.
  const auto stored = [&](char a) { return g.dims[l.order.find(a)]; };
  const auto element_stride = [&](char a) {
    long s = 1;
    for (std::size_t k = l.order.find(a) + 1; k < l.order.size(); ++k) s *= g.dims[k];
    return s;
  };
  bool fits = true;
  for (char a : l.axes) fits = fits && decimated(stored(a), l.stride(a)) == l.size(a);
  if (!fits) {
    std::ostringstream os;
    os << "file holds an array of shape " << shape_text(g.dims) << " (" << l.sizes(stored)
       << " in order " << l.order;
    if (l.strided()) {
      os << "; decimated: " << l.sizes([&](char a) { return decimated(stored(a), l.stride(a)); });
    }
    os << "), but " << expected_text(l);
    fail(path, os.str());
  }

  const long step_z = element_stride('z') * l.sz, step_x = element_stride('x') * l.sx;
  const long step_y = is3d ? element_stride('y') * l.sy : 0;
  std::vector<double> out(static_cast<std::size_t>(l.nz * l.ny * l.nx));
  std::size_t i = 0;
  for (long iz = 0; iz < l.nz; ++iz) {
    for (long iy = 0; iy < l.ny; ++iy) {
      for (long ix = 0; ix < l.nx; ++ix, ++i) {
        const long at = iz * step_z + iy * step_y + ix * step_x;
        const double v = g.values[std::size_t(at)] * spec.scale;
        if (!std::isfinite(v)) {
          // The stored index, slowest axis first.
          std::vector<long> index;
          for (char a : l.order) {
            index.push_back((a == 'z' ? iz : a == 'y' ? iy : ix) * l.stride(a));
          }
          const std::string where =
              is3d ? "iz=" + std::to_string(iz) + ", iy=" + std::to_string(iy) +
                         ", ix=" + std::to_string(ix)
                   : "iz=" + std::to_string(iz) + ", ix=" + std::to_string(ix);
          fail(path, "non-finite value (" + value_text(v) + ") at model index (" + where +
                         "), stored index " + shape_text(index));
        }
        out[i] = v;
      }
    }
  }
  return out;
}

std::vector<double> load_grid_file(const GridFileSpec& spec, int nz, int nx) {
  Grid grid;
  grid.nz = nz;
  grid.nx = nx;
  return load_grid_file(spec, grid);
}

template <class T>
void write_grid_npy(const std::string& path, const Grid& grid, const std::vector<double>& values) {
  const std::vector<T> v(values.begin(), values.end());
  std::vector<std::size_t> shape{std::size_t(grid.nz), std::size_t(grid.nx)};
  if (grid.is_3d()) shape.insert(shape.begin() + 1, std::size_t(grid.ny));
  write_npy(path, v.data(), shape);
}

template void write_grid_npy<float>(const std::string&, const Grid&, const std::vector<double>&);
template void write_grid_npy<double>(const std::string&, const Grid&, const std::vector<double>&);

}  // namespace pwave::io
