// NumPy .npy reader and writer (format versions 1.0, 2.0 and 3.0), following
// numpy/lib/format.py: magic "\x93NUMPY", version bytes, little-endian header length, then a
// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded with spaces
// and a newline, then the raw array bytes.

#include "pwave/io/npy.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "pwave/core/error.hpp"
#include "pwave/io/atomic_file.hpp"

namespace pwave::io {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

bool host_is_little_endian() {
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("", path, what);
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Whole file in memory: .npy grids are at most a few hundred MB and are read once per run.
std::vector<unsigned char> read_whole_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) fail(path, "file not found");
    fail(path, std::string("cannot open file: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, not an .npy file");
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(path, std::string("cannot open file: ") + std::strerror(errno));
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof chunk, f.get())) > 0) {
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  if (std::ferror(f.get())) fail(path, std::string("cannot read file: ") + std::strerror(errno));
  return bytes;
}

// A value of the header's Python literal: only the kinds .npy headers use.
struct PyValue {
  enum class Kind { String, Bool, Int, None, Sequence } kind = Kind::None;
  std::string text;
  bool flag = false;
  long long number = 0;
  std::vector<PyValue> items;
};

// Recursive-descent parser for the header dict. Strict enough to reject garbage, lenient about
// whitespace, trailing commas and Python 2 "L" suffixes (old numpy wrote "(3L, 4L)").
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

  std::vector<std::pair<std::string, PyValue>> parse_dict() {
    std::vector<std::pair<std::string, PyValue>> entries;
    skip_space();
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      PyValue key = parse_value();
      if (key.kind != PyValue::Kind::String) error("dict keys must be strings");
      skip_space();
      expect(':');
      PyValue value = parse_value();
      entries.emplace_back(key.text, std::move(value));
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != '}') {
        error("expected ',' or '}'");
      }
    }
    skip_space();
    if (pos_ != s_.size()) error("unexpected text after the dict");
    return entries;
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void expect(char c) {
    if (peek() != c) error(std::string("expected '") + c + "'");
    ++pos_;
  }
  [[noreturn]] void error(const std::string& what) const {
    fail(path_, "not a valid .npy header (" + what + " at character " + std::to_string(pos_) +
                    " of \"" + s_ + "\")");
  }
  bool consume_word(const char* word) {
    const std::size_t n = std::strlen(word);
    if (s_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }

  PyValue parse_value() {
    skip_space();
    PyValue v;
    const char c = peek();
    if (c == '\'' || c == '"') {
      ++pos_;
      const std::size_t end = s_.find(c, pos_);
      if (end == std::string::npos) error("unterminated string");
      v.kind = PyValue::Kind::String;
      v.text = s_.substr(pos_, end - pos_);
      pos_ = end + 1;
    } else if (c == '(' || c == '[') {
      const char close = c == '(' ? ')' : ']';
      ++pos_;
      v.kind = PyValue::Kind::Sequence;
      while (true) {
        skip_space();
        if (peek() == close) {
          ++pos_;
          break;
        }
        v.items.push_back(parse_value());
        skip_space();
        if (peek() == ',') {
          ++pos_;
        } else if (peek() != close) {
          error(std::string("expected ',' or '") + close + "'");
        }
      }
    } else if (consume_word("True")) {
      v.kind = PyValue::Kind::Bool;
      v.flag = true;
    } else if (consume_word("False")) {
      v.kind = PyValue::Kind::Bool;
    } else if (consume_word("None")) {
      v.kind = PyValue::Kind::None;
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      const std::size_t start = pos_;
      if (c == '-') ++pos_;
      while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
      const std::string digits = s_.substr(start, pos_ - start);
      if (digits == "-") error("expected a number");
      errno = 0;
      v.number = std::strtoll(digits.c_str(), nullptr, 10);
      if (errno == ERANGE) error("number out of range");
      v.kind = PyValue::Kind::Int;
      if (peek() == 'L' || peek() == 'l') ++pos_;
    } else {
      error("unexpected character");
    }
    return v;
  }

  const std::string& s_;
  const std::string& path_;
  std::size_t pos_ = 0;
};

enum class Scalar { Float32, Float64, Int32, Int64 };

struct Dtype {
  Scalar scalar;
  std::size_t size;
  bool little_endian;
};

Dtype parse_descr(const std::string& descr, const std::string& path) {
  const std::string supported =
      " (supported: float32 and float64 of either byte order, int32, int64: '<f4', '>f4', "
      "'<f8', '>f8', '<i4', '<i8', ...)";
  if (descr.size() != 3) fail(path, "unsupported dtype '" + descr + "'" + supported);
  const char order = descr[0];
  bool little = false;
  if (order == '<') {
    little = true;
  } else if (order == '>') {
    little = false;
  } else if (order == '=') {
    little = host_is_little_endian();
  } else {
    fail(path, "unsupported dtype '" + descr + "'" + supported);
  }
  const std::string kind = descr.substr(1);
  if (kind == "f4") return {Scalar::Float32, 4, little};
  if (kind == "f8") return {Scalar::Float64, 8, little};
  if (kind == "i4") return {Scalar::Int32, 4, little};
  if (kind == "i8") return {Scalar::Int64, 8, little};
  fail(path, "unsupported dtype '" + descr + "'" + supported);
}

template <typename T>
double load_scalar(const unsigned char* p, bool swap) {
  unsigned char buf[sizeof(T)];
  if (swap) {
    std::reverse_copy(p, p + sizeof(T), buf);
  } else {
    std::memcpy(buf, p, sizeof(T));
  }
  T v;
  std::memcpy(&v, buf, sizeof(T));
  return static_cast<double>(v);
}

// Fortran order stores the first index fastest; walk the stored elements in that order while
// tracking where each one lands in C order.
std::vector<double> fortran_to_c(const std::vector<double>& f,
                                 const std::vector<std::size_t>& shape) {
  std::vector<double> c(f.size());
  if (f.empty()) return c;
  const std::size_t ndim = shape.size();
  std::vector<std::size_t> c_stride(ndim, 1), index(ndim, 0);
  for (std::size_t d = ndim; d-- > 1;) c_stride[d - 1] = c_stride[d] * shape[d];
  std::size_t ci = 0;
  for (std::size_t fi = 0; fi < f.size(); ++fi) {
    c[ci] = f[fi];
    for (std::size_t d = 0; d < ndim; ++d) {
      ++index[d];
      ci += c_stride[d];
      if (index[d] < shape[d]) break;
      ci -= index[d] * c_stride[d];
      index[d] = 0;
    }
  }
  return c;
}

std::uint32_t read_le(const unsigned char* p, int nbytes) {
  std::uint32_t v = 0;
  for (int i = nbytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string shape_repr(const std::vector<std::size_t>& shape) {
  // Python's tuple repr: "()", "(5,)", "(2, 3)".
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

template <typename T>
void write_npy_impl(const std::string& path, const T* data, const std::vector<std::size_t>& shape,
                    const char* descr) {
  std::size_t count = 1;
  for (std::size_t d : shape) {
    if (d != 0 && count > std::numeric_limits<std::size_t>::max() / sizeof(T) / d) {
      throw RuntimeError("cannot write '" + path + "': shape " + shape_repr(shape) +
                         " is too large");
    }
    count *= d;
  }
  if (count > 0 && data == nullptr) {
    throw RuntimeError("cannot write '" + path + "': no data for shape " + shape_repr(shape));
  }

  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': " + shape_repr(shape) + ", }";
  // numpy pads with spaces so that magic + version + length + header is a multiple of 64 bytes,
  // the last byte being '\n'; version 2.0 is only needed when the header passes 65535 bytes.
  std::size_t prefix = kMagicSize + 2 + 2;
  std::size_t total = ((prefix + dict.size() + 1 + 63) / 64) * 64;
  unsigned char major = 1;
  if (total - prefix > 0xFFFF) {
    major = 2;
    prefix = kMagicSize + 2 + 4;
    total = ((prefix + dict.size() + 1 + 63) / 64) * 64;
  }
  const std::size_t header_len = total - prefix;
  dict.append(header_len - dict.size() - 1, ' ');
  dict += '\n';

  std::string head(kMagic, kMagicSize);
  head += static_cast<char>(major);
  head += static_cast<char>(0);
  const int len_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < len_bytes; ++i) head += static_cast<char>((header_len >> (8 * i)) & 0xFF);
  head += dict;

  AtomicFile file(path);
  FilePtr f(std::fopen(file.temp_path().c_str(), "wb"));
  if (!f) throw RuntimeError("cannot open '" + file.temp_path() + "': " + std::strerror(errno));
  auto write_or_throw = [&](const void* p, std::size_t n) {
    if (n == 0) return;  // empty arrays may come with a null pointer
    if (std::fwrite(p, 1, n, f.get()) != n) {
      throw RuntimeError("cannot write '" + file.temp_path() + "': " + std::strerror(errno));
    }
  };
  write_or_throw(head.data(), head.size());
  if (host_is_little_endian()) {
    write_or_throw(data, count * sizeof(T));
  } else {
    // Swap through a bounded buffer rather than a full copy of the array.
    std::vector<unsigned char> buf;
    const std::size_t block = 1 << 16;
    for (std::size_t i = 0; i < count; i += block) {
      const std::size_t n = std::min(block, count - i);
      buf.resize(n * sizeof(T));
      for (std::size_t k = 0; k < n; ++k) {
        const auto* src = reinterpret_cast<const unsigned char*>(data + i + k);
        std::reverse_copy(src, src + sizeof(T), buf.data() + k * sizeof(T));
      }
      write_or_throw(buf.data(), buf.size());
    }
  }
  // fclose flushes the stdio buffer; a full disk often shows up only here.
  if (std::fclose(f.release()) != 0) {
    throw RuntimeError("cannot write '" + file.temp_path() + "': " + std::strerror(errno));
  }
  file.commit();
}

}  // namespace

NpyHeader parse_npy_header(const unsigned char* bytes, std::size_t size, const std::string& path) {
  if (size >= 4 && bytes[0] == 'P' && bytes[1] == 'K' && bytes[2] == 3 && bytes[3] == 4) {
    fail(path, "not an .npy file: it is a zip archive (an .npz?); extract the array first");
  }
  if (size < kMagicSize + 2 || std::memcmp(bytes, kMagic, kMagicSize) != 0) {
    fail(path, "not an .npy file (it does not start with the \\x93NUMPY magic string)");
  }
  const int major = bytes[kMagicSize];
  const int minor = bytes[kMagicSize + 1];
  if (major < 1 || major > 3 || minor != 0) {
    fail(path, "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  const std::size_t prefix = kMagicSize + 2 + len_bytes;
  if (size < prefix) {
    fail(path, "truncated .npy header (expected at least " + std::to_string(prefix) +
                   " bytes, found " + std::to_string(size) + ")");
  }
  const std::size_t header_len = read_le(bytes + kMagicSize + 2, int(len_bytes));
  if (size < prefix + header_len) {
    fail(path, "truncated .npy header (expected " + std::to_string(prefix + header_len) +
                   " bytes, found " + std::to_string(size) + ")");
  }
  // Versions 1.0/2.0 are latin-1 and 3.0 is UTF-8; the keys and values we need are ASCII.
  const std::string header(bytes + prefix, bytes + prefix + header_len);
  const auto entries = HeaderParser(header, path).parse_dict();

  const PyValue* descr = nullptr;
  const PyValue* fortran = nullptr;
  const PyValue* shape = nullptr;
  for (const auto& [key, value] : entries) {
    if (key == "descr") descr = &value;
    if (key == "fortran_order") fortran = &value;
    if (key == "shape") shape = &value;
  }
  if (!descr || !fortran || !shape) {
    fail(path, "not a valid .npy header (needs 'descr', 'fortran_order' and 'shape'): \"" + header +
                   "\"");
  }
  if (descr->kind != PyValue::Kind::String) {
    fail(path, "unsupported dtype: structured arrays (record dtypes) cannot be read");
  }
  if (fortran->kind != PyValue::Kind::Bool) fail(path, "'fortran_order' must be True or False");
  if (shape->kind != PyValue::Kind::Sequence) fail(path, "'shape' must be a tuple of integers");

  NpyHeader out;
  out.dtype = descr->text;
  const Dtype dtype = parse_descr(descr->text, path);
  out.kind = dtype.scalar == Scalar::Float32 || dtype.scalar == Scalar::Float64 ? 'f' : 'i';
  out.item_size = dtype.size;
  out.little_endian = dtype.little_endian;
  out.native_byte_order = dtype.little_endian == host_is_little_endian();
  out.fortran_order = fortran->flag;
  out.data_offset = prefix + header_len;

  std::size_t count = 1;
  for (const PyValue& d : shape->items) {
    if (d.kind != PyValue::Kind::Int || d.number < 0) {
      fail(path, "'shape' must hold non-negative integers");
    }
    const auto n = static_cast<std::size_t>(d.number);
    if (n != 0 && count > std::numeric_limits<std::size_t>::max() / dtype.size / n) {
      fail(path, "shape is too large");
    }
    count *= n;
    out.shape.push_back(n);
  }
  out.count = count;

  const std::size_t expected = count * dtype.size;
  const std::size_t found = size - out.data_offset;
  if (found < expected) {
    std::string shape_text;
    for (std::size_t i = 0; i < out.shape.size(); ++i) {
      shape_text += (i ? ", " : "") + std::to_string(out.shape[i]);
    }
    fail(path, "truncated data: expected " + std::to_string(expected) + " bytes for shape [" +
                   shape_text + "] of " + descr->text + ", found " + std::to_string(found));
  }
  // Trailing bytes are ignored, as numpy.load does.
  return out;
}

NpyArray read_npy(const std::string& path) {
  const std::vector<unsigned char> bytes = read_whole_file(path);
  const NpyHeader h = parse_npy_header(bytes.data(), bytes.size(), path);
  const Dtype dtype = parse_descr(h.dtype, path);
  NpyArray out;
  out.shape = h.shape;
  out.dtype = h.dtype;
  const std::size_t count = h.count;
  const unsigned char* p = bytes.data() + h.data_offset;
  const bool swap = dtype.little_endian != host_is_little_endian();
  out.data.resize(count);
  for (std::size_t i = 0; i < count; ++i, p += dtype.size) {
    switch (dtype.scalar) {
      case Scalar::Float32:
        out.data[i] = load_scalar<float>(p, swap);
        break;
      case Scalar::Float64:
        out.data[i] = load_scalar<double>(p, swap);
        break;
      case Scalar::Int32:
        out.data[i] = load_scalar<std::int32_t>(p, swap);
        break;
      case Scalar::Int64:
        out.data[i] = load_scalar<std::int64_t>(p, swap);
        break;
    }
  }
  if (h.fortran_order && out.shape.size() > 1) out.data = fortran_to_c(out.data, out.shape);
  return out;
}

void write_npy(const std::string& path, const float* data, const std::vector<std::size_t>& shape) {
  write_npy_impl(path, data, shape, "<f4");
}

void write_npy(const std::string& path, const double* data, const std::vector<std::size_t>& shape) {
  write_npy_impl(path, data, shape, "<f8");
}

void write_npy(const std::string& path, const std::int32_t* data,
               const std::vector<std::size_t>& shape) {
  write_npy_impl(path, data, shape, "<i4");
}

}  // namespace pwave::io
