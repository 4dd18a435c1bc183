// .npy reading and writing, checked against hand-built files and, when available, real numpy.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "pwave/core/error.hpp"
#include "pwave/io/npy.hpp"

namespace fs = std::filesystem;
using pwave::io::NpyArray;
using pwave::io::read_npy;
using pwave::io::write_npy;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

void spit(const std::string& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

// Builds an .npy file by hand, so that reader tests do not depend on our writer.
std::string make_npy(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(0);
  const int len_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < len_bytes; ++i) out += char((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

template <typename T>
std::string bytes_of(const std::vector<T>& v, bool big_endian = false) {
  std::string s;
  for (const T& x : v) {
    char b[sizeof(T)];
    std::memcpy(b, &x, sizeof(T));
    if (big_endian) std::reverse(b, b + sizeof(T));
    s.append(b, sizeof(T));
  }
  return s;
}

// The interpreter that can import numpy, or "" (the pyenv shim may lack it; the system one
// usually has it).
std::string python_with_numpy() {
  for (const char* py : {"python3", "/usr/bin/python3"}) {
    const std::string cmd = std::string(py) + " -c 'import numpy' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return py;
  }
  return "";
}

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "pwave_npy_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs a numpy script with the test directory as its working directory; skips without numpy.
  bool run_python(const std::string& script) {
    const std::string py = python_with_numpy();
    if (py.empty()) return false;
    spit(path("fixture.py"), "import numpy as np\nimport sys\n" + script);
    const std::string cmd = "cd '" + dir_.string() + "' && " + py + " fixture.py";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "python fixture failed: " << script;
    return true;
  }

  template <typename Fn>
  std::string error_of(Fn&& fn) {
    try {
      fn();
    } catch (const pwave::InputError& e) {
      EXPECT_EQ(e.key(), "");
      return e.what();
    }
    ADD_FAILURE() << "expected InputError";
    return "";
  }

  fs::path dir_;
};

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

TEST_F(NpyTest, Float32RoundTripKeepsShapeAndValues) {
  const std::vector<float> v = {1.5f, -2.25f, 3e-38f, 1e38f, 0.1f, -0.0f};
  write_npy(path("a.npy"), v.data(), {2, 3});
  const NpyArray a = read_npy(path("a.npy"));
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(a.dtype, "<f4");
  ASSERT_EQ(a.data.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(a.data[i], double(v[i])) << i;
  EXPECT_TRUE(std::signbit(a.data[5]));
}

TEST_F(NpyTest, Float64RoundTripIsExact) {
  std::vector<double> v(2 * 3 * 4);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sqrt(double(i) + 0.5) * 1e-3 - 0.01;
  v[7] = std::numeric_limits<double>::denorm_min();
  v[8] = 1e300;
  write_npy(path("b.npy"), v.data(), {2, 3, 4});
  const NpyArray a = read_npy(path("b.npy"));
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3, 4}));
  EXPECT_EQ(a.dtype, "<f8");
  EXPECT_EQ(a.data, v);
}

TEST_F(NpyTest, ZeroAndOneDimensionalArraysRoundTrip) {
  const double scalar = 42.125;
  write_npy(path("s.npy"), &scalar, {});
  NpyArray a = read_npy(path("s.npy"));
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.data, std::vector<double>{42.125});

  const std::vector<float> line = {1, 2, 3, 4, 5};
  write_npy(path("l.npy"), line.data(), {5});
  a = read_npy(path("l.npy"));
  EXPECT_EQ(a.shape, std::vector<std::size_t>{5});
  EXPECT_EQ(a.data, (std::vector<double>{1, 2, 3, 4, 5}));

  write_npy(path("e.npy"), static_cast<const float*>(nullptr), {0, 3});
  a = read_npy(path("e.npy"));
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{0, 3}));
  EXPECT_TRUE(a.data.empty());
}

TEST_F(NpyTest, WrittenHeaderIsVersion1PaddedTo64Bytes) {
  const std::vector<float> v(6, 1.0f);
  write_npy(path("h.npy"), v.data(), {2, 3});
  const std::string bytes = slurp(path("h.npy"));
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
  const std::size_t hlen = std::uint8_t(bytes[8]) | (std::uint8_t(bytes[9]) << 8);
  EXPECT_EQ((10 + hlen) % 64, 0u);
  EXPECT_EQ(bytes.size(), 10 + hlen + 6 * 4);
  const std::string header = bytes.substr(10, hlen);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u)
      << header;
  // Little-endian float 1.0 is 00 00 80 3f.
  EXPECT_EQ(bytes.substr(10 + hlen, 4), std::string("\x00\x00\x80\x3f", 4));

  write_npy(path("one.npy"), v.data(), {6});
  EXPECT_NE(slurp(path("one.npy")).find("'shape': (6,), }"), std::string::npos);
}

TEST_F(NpyTest, ReadsFortranOrderIntoCOrder) {
  // Array [[0, 1, 2], [3, 4, 5]] stored column by column.
  const std::vector<double> stored = {0, 3, 1, 4, 2, 5};
  spit(path("f.npy"),
       make_npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", bytes_of(stored)));
  const NpyArray a = read_npy(path("f.npy"));
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(a.data, (std::vector<double>{0, 1, 2, 3, 4, 5}));

  // 3-D: element [i][j][k] = 100 i + 10 j + k, stored with i fastest.
  std::vector<float> f3;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) f3.push_back(float(100 * i + 10 * j + k));
  spit(path("f3.npy"),
       make_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3, 4), }", bytes_of(f3)));
  const NpyArray b = read_npy(path("f3.npy"));
  ASSERT_EQ(b.data.size(), 24u);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(b.data[(i * 3 + j) * 4 + k], 100 * i + 10 * j + k);
}

TEST_F(NpyTest, ReadsBigEndianAndIntegerDtypes) {
  const std::vector<float> f = {1.5f, -3.0f, 1e10f};
  spit(path("bf4.npy"),
       make_npy("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", bytes_of(f, true)));
  NpyArray a = read_npy(path("bf4.npy"));
  EXPECT_EQ(a.dtype, ">f4");
  EXPECT_EQ(a.data, (std::vector<double>{1.5, -3.0, double(1e10f)}));

  const std::vector<double> d = {0.1, -2.5e-300};
  spit(path("bf8.npy"),
       make_npy("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", bytes_of(d, true)));
  EXPECT_EQ(read_npy(path("bf8.npy")).data, d);

  const std::vector<std::int32_t> i4 = {-7, 2147483647};
  spit(path("i4.npy"),
       make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", bytes_of(i4)));
  EXPECT_EQ(read_npy(path("i4.npy")).data, (std::vector<double>{-7, 2147483647}));

  const std::vector<std::int64_t> i8 = {-(std::int64_t(1) << 40), 3};
  spit(path("i8.npy"),
       make_npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }", bytes_of(i8)));
  a = read_npy(path("i8.npy"));
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(a.data, (std::vector<double>{-1099511627776.0, 3}));
}

TEST_F(NpyTest, ReadsVersion2And3Headers) {
  const std::vector<float> v = {1, 2, 3, 4};
  for (int major : {2, 3}) {
    const std::string p = path("v" + std::to_string(major) + ".npy");
    spit(p, make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", bytes_of(v),
                     major));
    const NpyArray a = read_npy(p);
    EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 2})) << major;
    EXPECT_EQ(a.data, (std::vector<double>{1, 2, 3, 4})) << major;
  }
}

TEST_F(NpyTest, TruncatedDataSaysExpectedAndFoundBytes) {
  const std::vector<float> v(6, 2.0f);
  write_npy(path("t.npy"), v.data(), {2, 3});
  std::string bytes = slurp(path("t.npy"));
  bytes.resize(bytes.size() - 5);
  spit(path("t.npy"), bytes);
  const std::string what = error_of([&] { read_npy(path("t.npy")); });
  EXPECT_HAS(what, path("t.npy"));
  EXPECT_HAS(what, "truncated");
  EXPECT_HAS(what, "expected 24 bytes");
  EXPECT_HAS(what, "found 19");
}

TEST_F(NpyTest, TruncatedHeaderIsReported) {
  const std::string full =
      make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(8, 0));
  spit(path("th.npy"), full.substr(0, 30));
  EXPECT_HAS(error_of([&] { read_npy(path("th.npy")); }), "truncated");
}

TEST_F(NpyTest, MissingFileIsAnInputErrorNamingThePath) {
  const std::string p = path("nothing_here.npy");
  const std::string what = error_of([&] { read_npy(p); });
  EXPECT_HAS(what, p);
  EXPECT_HAS(what, "not found");
}

TEST_F(NpyTest, NonNpyFileIsRejected) {
  spit(path("text.npy"), "this is a text file, not numpy\n");
  EXPECT_HAS(error_of([&] { read_npy(path("text.npy")); }), "not an .npy file");
  spit(path("zip.npy"), std::string("PK\x03\x04", 4) + std::string(60, 'x'));
  EXPECT_HAS(error_of([&] { read_npy(path("zip.npy")); }), "not an .npy file");
  spit(path("short.npy"), "\x93NU");
  EXPECT_HAS(error_of([&] { read_npy(path("short.npy")); }), "not an .npy file");
}

TEST_F(NpyTest, UnsupportedDtypesAreRejectedByName) {
  for (const std::string descr : {"<f2", "<c8", "|b1", "<u2", "|u1", "<U3"}) {
    const std::string p = path("d.npy");
    spit(p, make_npy("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2,), }",
                     std::string(64, 0)));
    const std::string what = error_of([&] { read_npy(p); });
    EXPECT_HAS(what, "unsupported dtype");
    EXPECT_HAS(what, descr);
  }
  spit(path("rec.npy"),
       make_npy("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }",
                std::string(8, 0)));
  EXPECT_HAS(error_of([&] { read_npy(path("rec.npy")); }), "unsupported dtype");
}

TEST_F(NpyTest, MalformedHeadersAreRejected) {
  spit(path("m1.npy"), make_npy("{'descr': '<f4', 'shape': (2,), }", std::string(8, 0)));
  EXPECT_HAS(error_of([&] { read_npy(path("m1.npy")); }), "fortran_order");
  spit(path("m2.npy"),
       make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", std::string(8, 0)));
  EXPECT_HAS(error_of([&] { read_npy(path("m2.npy")); }), "shape");
  spit(path("m3.npy"), make_npy("not a dict at all", std::string(8, 0)));
  EXPECT_HAS(error_of([&] { read_npy(path("m3.npy")); }), "header");
  std::string bad_version =
      make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(8, 0));
  bad_version[6] = 9;
  spit(path("m4.npy"), bad_version);
  EXPECT_HAS(error_of([&] { read_npy(path("m4.npy")); }), "version 9.0");
}

TEST_F(NpyTest, WriterMatchesNumpyByteForByte) {
  if (!run_python("a = np.arange(12, dtype='<f4').reshape(3, 4) * np.float32(0.5) - np.float32(1)\n"
                  "np.save('np32.npy', a)\n"
                  "np.save('np64.npy', np.linspace(-1, 1, 7))\n"
                  "np.save('np0d.npy', np.array(3.25))\n")) {
    GTEST_SKIP() << "python3 with numpy not available";
  }
  std::vector<float> a(12);
  for (int i = 0; i < 12; ++i) a[i] = float(i) * 0.5f - 1.0f;
  write_npy(path("ours32.npy"), a.data(), {3, 4});
  EXPECT_EQ(slurp(path("ours32.npy")), slurp(path("np32.npy")));

  const NpyArray lin = read_npy(path("np64.npy"));
  EXPECT_EQ(lin.shape, std::vector<std::size_t>{7});
  write_npy(path("ours64.npy"), lin.data.data(), {7});
  EXPECT_EQ(slurp(path("ours64.npy")), slurp(path("np64.npy")));

  const double s = 3.25;
  write_npy(path("ours0d.npy"), &s, {});
  EXPECT_EQ(slurp(path("ours0d.npy")), slurp(path("np0d.npy")));
}

TEST_F(NpyTest, ReadsFilesWrittenByNumpy) {
  if (!run_python("a = (np.arange(24).reshape(2, 3, 4) * 1.25 - 3).astype('<f4')\n"
                  "np.save('c_f4.npy', a)\n"
                  "np.save('f_f8.npy', np.asfortranarray(a.astype('<f8')))\n"
                  "np.save('be_f4.npy', a.astype('>f4'))\n"
                  "np.save('be_f8_fortran.npy', np.asfortranarray(a.astype('>f8')))\n"
                  "np.save('i4.npy', (np.arange(24).reshape(2, 3, 4) - 5).astype('<i4'))\n"
                  "np.save('i8.npy', (np.arange(24).reshape(2, 3, 4) - 5).astype('<i8'))\n"
                  "np.save('f2.npy', a.astype('<f2'))\n"
                  "np.save('scalar.npy', np.float32(7.5))\n"
                  "with open('v2.npy', 'wb') as f:\n"
                  "    np.lib.format.write_array(f, a, version=(2, 0))\n"
                  "with open('v3.npy', 'wb') as f:\n"
                  "    np.lib.format.write_array(f, a, version=(3, 0))\n")) {
    GTEST_SKIP() << "python3 with numpy not available";
  }
  std::vector<double> expect(24);
  for (int i = 0; i < 24; ++i) expect[i] = i * 1.25 - 3;
  for (const char* name :
       {"c_f4.npy", "f_f8.npy", "be_f4.npy", "be_f8_fortran.npy", "v2.npy", "v3.npy"}) {
    const NpyArray a = read_npy(path(name));
    EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3, 4})) << name;
    EXPECT_EQ(a.data, expect) << name;
  }
  EXPECT_EQ(read_npy(path("be_f4.npy")).dtype, ">f4");
  for (const char* name : {"i4.npy", "i8.npy"}) {
    const NpyArray a = read_npy(path(name));
    ASSERT_EQ(a.data.size(), 24u) << name;
    for (int i = 0; i < 24; ++i) EXPECT_EQ(a.data[i], i - 5) << name;
  }
  const NpyArray s = read_npy(path("scalar.npy"));
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.data, std::vector<double>{7.5});
  EXPECT_HAS(error_of([&] { read_npy(path("f2.npy")); }), "'<f2'");
}

TEST_F(NpyTest, NumpyReadsOurFiles) {
  std::vector<float> a(6);
  for (int i = 0; i < 6; ++i) a[i] = float(i) / 4.0f;
  write_npy(path("ours.npy"), a.data(), {2, 3});
  const std::vector<double> d = {1e-300, -7.0};
  write_npy(path("ours64.npy"), d.data(), {2, 1});
  if (!run_python("a = np.load('ours.npy')\n"
                  "assert a.dtype == np.float32 and a.shape == (2, 3), (a.dtype, a.shape)\n"
                  "assert (a == np.arange(6, dtype=np.float32).reshape(2, 3) / 4).all(), a\n"
                  "b = np.load('ours64.npy')\n"
                  "assert b.dtype == np.float64 and b.shape == (2, 1)\n"
                  "assert b[0, 0] == 1e-300 and b[1, 0] == -7.0\n")) {
    GTEST_SKIP() << "python3 with numpy not available";
  }
}

TEST_F(NpyTest, WriteIntoMissingDirectoryIsARuntimeError) {
  const float x = 1;
  EXPECT_THROW(write_npy(path("no/dir/x.npy"), &x, {1}), pwave::RuntimeError);
}

}  // namespace
