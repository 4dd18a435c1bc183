// load_grid_file: raw, npy and SEG-Y grids, axis order, decimation, scale and error messages.

#include <gtest/gtest.h>
#include <segyio/segy.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "pwave/core/error.hpp"
#include "pwave/io/grid_file.hpp"
#include "pwave/io/npy.hpp"

namespace fs = std::filesystem;
using pwave::io::GridFileSpec;
using pwave::io::load_grid_file;

namespace {

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

template <typename T>
void write_raw(const std::string& p, const std::vector<T>& v) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
}

// A value that identifies its model cell, so that any transposition or offset shows.
double cell_value(long iz, long ix) {
  return 1000.0 + 10.0 * iz + 0.5 * ix;
}

// Stored [nz][nx] (order "zx") or [nx][nz] (order "xz") array of cell_value.
template <typename T>
std::vector<T> stored_grid(long nz, long nx, bool zx) {
  std::vector<T> v(std::size_t(nz * nx));
  for (long iz = 0; iz < nz; ++iz)
    for (long ix = 0; ix < nx; ++ix) v[zx ? iz * nx + ix : ix * nz + iz] = T(cell_value(iz, ix));
  return v;
}

std::string data_dir() {
  const char* env = std::getenv("PWAVE_DATA_DIR");
  if (env && *env) return env;
  return "/work/shared/data";
}

// Writes one trace per x position with segyio's C API (format 1 = IBM or 5 = IEEE).
void write_test_segy(const std::string& p, const std::vector<float>& traces, int ntraces,
                     int samples, int format, bool little_endian) {
  segy_file* fp = segy_open(p.c_str(), "w+b");
  ASSERT_NE(fp, nullptr);
  ASSERT_EQ(segy_set_format(fp, format | (little_endian ? SEGY_LSB : SEGY_MSB)), SEGY_OK);
  std::string text(3200, ' ');
  ASSERT_EQ(segy_write_textheader(fp, 0, text.c_str()), SEGY_OK);
  char bin[SEGY_BINARY_HEADER_SIZE] = {};
  segy_set_bfield(bin, SEGY_BIN_INTERVAL, 4000);
  segy_set_bfield(bin, SEGY_BIN_SAMPLES, samples);
  segy_set_bfield(bin, SEGY_BIN_FORMAT, format);
  ASSERT_EQ(segy_write_binheader(fp, bin), SEGY_OK);
  const long trace0 = segy_trace0(bin);
  const int bsize = segy_trsize(format, samples);
  for (int t = 0; t < ntraces; ++t) {
    char th[SEGY_TRACE_HEADER_SIZE] = {};
    segy_set_field(th, SEGY_TR_SAMPLE_COUNT, samples);
    ASSERT_EQ(segy_write_traceheader(fp, t, th, trace0, bsize), SEGY_OK);
    std::vector<float> buf(traces.begin() + std::size_t(t) * samples,
                           traces.begin() + std::size_t(t + 1) * samples);
    ASSERT_EQ(segy_from_native(format, samples, buf.data()), SEGY_OK);
    ASSERT_EQ(segy_writetrace(fp, t, buf.data(), trace0, bsize), SEGY_OK);
  }
  ASSERT_EQ(segy_close(fp), SEGY_OK);
}

class GridFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "pwave_grid_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

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

  static void expect_cells(const std::vector<double>& got, long nz, long nx, int sz = 1, int sx = 1,
                           double scale = 1.0) {
    ASSERT_EQ(got.size(), std::size_t(nz * nx));
    for (long iz = 0; iz < nz; ++iz)
      for (long ix = 0; ix < nx; ++ix)
        ASSERT_EQ(got[iz * nx + ix], cell_value(iz * sz, ix * sx) * scale)
            << "iz=" << iz << " ix=" << ix;
  }

  fs::path dir_;
};

TEST_F(GridFileTest, RawZxFloat32) {
  write_raw(path("m.bin"), stored_grid<float>(4, 7, true));
  GridFileSpec spec;
  spec.path = path("m.bin");
  expect_cells(load_grid_file(spec, 4, 7), 4, 7);
}

TEST_F(GridFileTest, RawXzIsTransposed) {
  write_raw(path("m.bin"), stored_grid<float>(4, 7, false));
  GridFileSpec spec;
  spec.path = path("m.bin");
  spec.order = "xz";
  expect_cells(load_grid_file(spec, 4, 7), 4, 7);
  // The same file read in the wrong order gives other values, not an error: the sizes agree.
  spec.order = "zx";
  EXPECT_NE(load_grid_file(spec, 4, 7)[1], cell_value(0, 1));
}

TEST_F(GridFileTest, RawFloat64WithScaleAndExplicitShape) {
  write_raw(path("m.f64"), stored_grid<double>(3, 5, true));
  GridFileSpec spec;
  spec.path = path("m.f64");
  spec.dtype = "float64";
  spec.scale = 1e-3;
  spec.shape = {3, 5};
  expect_cells(load_grid_file(spec, 3, 5), 3, 5, 1, 1, 1e-3);
}

TEST_F(GridFileTest, RawDecimationKeepsEveryStrideThSample) {
  // Stored 7 x 10 with strides (3, 4): kept rows 0,3,6 and columns 0,4,8 -> (3, 3).
  write_raw(path("d.bin"), stored_grid<float>(7, 10, true));
  GridFileSpec spec;
  spec.path = path("d.bin");
  spec.stride_z = 3;
  spec.stride_x = 4;
  expect_cells(load_grid_file(spec, 3, 3), 3, 3, 3, 4);
  spec.shape = {7, 10};
  expect_cells(load_grid_file(spec, 3, 3), 3, 3, 3, 4);

  // Same in order xz (stored [nx=10][nz=7]).
  write_raw(path("dxz.bin"), stored_grid<float>(7, 10, false));
  spec = GridFileSpec{};
  spec.path = path("dxz.bin");
  spec.order = "xz";
  spec.stride_z = 3;
  spec.stride_x = 4;
  expect_cells(load_grid_file(spec, 3, 3), 3, 3, 3, 4);
}

TEST_F(GridFileTest, RawDecimatedShapeMismatchSaysBothShapes) {
  write_raw(path("d.bin"), stored_grid<float>(7, 10, true));
  GridFileSpec spec;
  spec.path = path("d.bin");
  spec.shape = {7, 10};
  spec.stride_z = 2;
  // ceil(7/2) = 4 rows, not 3.
  const std::string what = error_of([&] { load_grid_file(spec, 3, 5); });
  EXPECT_HAS(what, path("d.bin"));
  EXPECT_HAS(what, "[7, 10]");
  EXPECT_HAS(what, "nz=4, nx=10");
  EXPECT_HAS(what, "(nz=3, nx=5)");
}

TEST_F(GridFileTest, RawSizeMismatchSaysFileSizeAndExpectedShape) {
  write_raw(path("s.bin"), std::vector<float>(12, 1500.0f));
  GridFileSpec spec;
  spec.path = path("s.bin");
  spec.shape = {3, 5};
  std::string what = error_of([&] { load_grid_file(spec, 3, 5); });
  EXPECT_HAS(what, path("s.bin"));
  EXPECT_HAS(what,
             "file holds 48 bytes = 12 float32 values, but shape [3, 5] needs 15 float32 "
             "values = 60 bytes");

  spec.shape.clear();
  what = error_of([&] { load_grid_file(spec, 3, 5); });
  EXPECT_HAS(what, "file holds 48 bytes = 12 float32 values, but shape [3, 5]");
  EXPECT_HAS(what, "needs 15 float32 values = 60 bytes");

  spec.dtype = "float64";
  what = error_of([&] { load_grid_file(spec, 3, 5); });
  EXPECT_HAS(what, "file holds 48 bytes = 6 float64 values");

  write_raw(path("odd.bin"), std::vector<char>(7, 0));
  spec = GridFileSpec{};
  spec.path = path("odd.bin");
  what = error_of([&] { load_grid_file(spec, 1, 1); });
  EXPECT_HAS(what, "file holds 7 bytes, not a whole number of float32 values");
}

TEST_F(GridFileTest, RawAmbiguousStoredShapeAsksForShape) {
  // With stride 2, a 3 x 3 model comes from 5..6 x 5..6 stored; 30 values fit [5, 6] and [6, 5].
  write_raw(path("a.bin"), std::vector<float>(30, 2000.0f));
  GridFileSpec spec;
  spec.path = path("a.bin");
  spec.stride_z = spec.stride_x = 2;
  const std::string what = error_of([&] { load_grid_file(spec, 3, 3); });
  EXPECT_HAS(what, "[5, 6]");
  EXPECT_HAS(what, "[6, 5]");
  EXPECT_HAS(what, "shape");
  spec.shape = {6, 5};
  EXPECT_EQ(load_grid_file(spec, 3, 3).size(), 9u);
}

TEST_F(GridFileTest, NonFiniteValueNamesTheFirstBadIndex) {
  std::vector<float> v = stored_grid<float>(3, 4, true);
  v[1 * 4 + 2] = std::numeric_limits<float>::quiet_NaN();
  v[2 * 4 + 3] = std::numeric_limits<float>::infinity();
  write_raw(path("nan.bin"), v);
  GridFileSpec spec;
  spec.path = path("nan.bin");
  std::string what = error_of([&] { load_grid_file(spec, 3, 4); });
  EXPECT_HAS(what, "non-finite");
  EXPECT_HAS(what, "nan");
  EXPECT_HAS(what, "iz=1, ix=2");

  // A finite value that overflows once scaled is caught too.
  std::vector<double> big(4, 1e308);
  write_raw(path("big.bin"), big);
  spec = GridFileSpec{};
  spec.path = path("big.bin");
  spec.dtype = "float64";
  spec.scale = 1000;
  what = error_of([&] { load_grid_file(spec, 2, 2); });
  EXPECT_HAS(what, "inf");
  EXPECT_HAS(what, "iz=0, ix=0");
}

TEST_F(GridFileTest, MissingFilesAreInputErrors) {
  for (const char* name : {"none.bin", "none.npy", "none.sgy"}) {
    GridFileSpec spec;
    spec.path = path(name);
    const std::string what = error_of([&] { load_grid_file(spec, 2, 2); });
    EXPECT_HAS(what, spec.path);
    EXPECT_HAS(what, "not found");
  }
}

TEST_F(GridFileTest, BadSpecsAreInputErrors) {
  write_raw(path("m.bin"), stored_grid<float>(2, 2, true));
  GridFileSpec spec;
  spec.path = path("m.bin");
  spec.format = "tiff";
  EXPECT_HAS(error_of([&] { load_grid_file(spec, 2, 2); }), "tiff");
  spec.format = "raw";
  spec.order = "yx";
  EXPECT_HAS(error_of([&] { load_grid_file(spec, 2, 2); }), "yx");
  spec.order = "zx";
  spec.stride_x = 0;
  EXPECT_HAS(error_of([&] { load_grid_file(spec, 2, 2); }), "stride");
  spec.stride_x = 1;
  spec.dtype = "int16";
  EXPECT_HAS(error_of([&] { load_grid_file(spec, 2, 2); }), "int16");
  spec.dtype = "float32";
  spec.shape = {4};
  EXPECT_HAS(error_of([&] { load_grid_file(spec, 2, 2); }), "shape [4]");
}

TEST_F(GridFileTest, NpyInBothOrdersWithDecimation) {
  const std::vector<float> zx = stored_grid<float>(5, 6, true);
  pwave::io::write_npy(path("zx.npy"), zx.data(), {5, 6});
  GridFileSpec spec;
  spec.path = path("zx.npy");
  expect_cells(load_grid_file(spec, 5, 6), 5, 6);
  spec.stride_z = 2;
  spec.stride_x = 5;
  expect_cells(load_grid_file(spec, 3, 2), 3, 2, 2, 5);

  const std::vector<double> xz = stored_grid<double>(5, 6, false);
  pwave::io::write_npy(path("xz.dat"), xz.data(), {6, 5});
  spec = GridFileSpec{};
  spec.path = path("xz.dat");
  spec.format = "npy";
  spec.order = "xz";
  expect_cells(load_grid_file(spec, 5, 6), 5, 6);

  // Shape mismatch names the file's shape and the expected one.
  spec.order = "zx";
  const std::string what = error_of([&] { load_grid_file(spec, 5, 6); });
  EXPECT_HAS(what, "[6, 5]");
  EXPECT_HAS(what, "(nz=5, nx=6)");
}

TEST_F(GridFileTest, NpyMustBeTwoDimensional) {
  const std::vector<float> v(8, 1.0f);
  pwave::io::write_npy(path("three.npy"), v.data(), {2, 2, 2});
  GridFileSpec spec;
  spec.path = path("three.npy");
  const std::string what = error_of([&] { load_grid_file(spec, 2, 4); });
  EXPECT_HAS(what, "3-d");
  EXPECT_HAS(what, "[2, 2, 2]");
}

TEST_F(GridFileTest, SegyTracesAreXPositionsAndSamplesAreDepths) {
  const int nx = 5, nz = 9;
  std::vector<float> traces(std::size_t(nx) * nz);
  for (int ix = 0; ix < nx; ++ix)
    for (int iz = 0; iz < nz; ++iz) traces[std::size_t(ix) * nz + iz] = float(cell_value(iz, ix));
  struct Case {
    const char* name;
    int format;
    bool lsb;
  };
  for (const Case c : {Case{"ieee.sgy", SEGY_IEEE_FLOAT_4_BYTE, false},
                       Case{"ibm.segy", SEGY_IBM_FLOAT_4_BYTE, false},
                       Case{"ieee_le.sgy", SEGY_IEEE_FLOAT_4_BYTE, true}}) {
    SCOPED_TRACE(c.name);
    write_test_segy(path(c.name), traces, nx, nz, c.format, c.lsb);
    GridFileSpec spec;
    spec.path = path(c.name);
    // cell_value has at most a few significant bits after the point, exact in IBM float too.
    expect_cells(load_grid_file(spec, nz, nx), nz, nx);
    spec.stride_z = 2;
    spec.stride_x = 2;
    expect_cells(load_grid_file(spec, 5, 3), 5, 3, 2, 2);
    spec.stride_z = spec.stride_x = 1;
    const std::string what = error_of([&] { load_grid_file(spec, nx, nz); });
    EXPECT_HAS(what, "(nz=5, nx=9)");
  }
}

TEST_F(GridFileTest, NotASegyFileIsAnInputError) {
  write_raw(path("junk.sgy"), std::vector<char>(100, 'x'));
  GridFileSpec spec;
  spec.path = path("junk.sgy");
  EXPECT_THROW(load_grid_file(spec, 2, 2), pwave::InputError);
}

// 3D grids: cell_value3 names every cell.
double cell_value3(long iz, long iy, long ix) {
  return 1000.0 + 100.0 * iz + 10.0 * iy + ix;
}

// Stored [nz][ny][nx] (zyx) or [nx][ny][nz] (xyz).
template <typename T>
std::vector<T> stored_grid3(long nz, long ny, long nx, bool zyx) {
  std::vector<T> v(std::size_t(nz * ny * nx));
  for (long iz = 0; iz < nz; ++iz)
    for (long iy = 0; iy < ny; ++iy)
      for (long ix = 0; ix < nx; ++ix)
        v[zyx ? (iz * ny + iy) * nx + ix : (ix * ny + iy) * nz + iz] = T(cell_value3(iz, iy, ix));
  return v;
}

pwave::Grid grid3(int nz, int ny, int nx) {
  pwave::Grid g;
  g.dimension = 3;
  g.nz = nz;
  g.ny = ny;
  g.nx = nx;
  g.dz = g.dy = g.dx = 1.0;
  return g;
}

void expect_cells3(const std::vector<double>& got, long nz, long ny, long nx, int sz = 1,
                   int sy = 1, int sx = 1) {
  ASSERT_EQ(got.size(), std::size_t(nz * ny * nx));
  std::size_t i = 0;
  for (long iz = 0; iz < nz; ++iz)
    for (long iy = 0; iy < ny; ++iy)
      for (long ix = 0; ix < nx; ++ix, ++i)
        ASSERT_EQ(got[i], cell_value3(iz * sz, iy * sy, ix * sx))
            << "iz=" << iz << " iy=" << iy << " ix=" << ix;
}

TEST_F(GridFileTest, ThreeDimensionalNpyAndRawInBothOrders) {
  const auto zyx = stored_grid3<float>(4, 3, 5, true);
  const auto xyz = stored_grid3<double>(4, 3, 5, false);
  pwave::io::write_npy(path("zyx.npy"), zyx.data(), {4, 3, 5});
  pwave::io::write_npy(path("xyz.npy"), xyz.data(), {5, 3, 4});
  write_raw(path("zyx.bin"), zyx);
  write_raw(path("xyz.f64"), xyz);
  GridFileSpec spec;
  spec.path = path("zyx.npy");
  expect_cells3(load_grid_file(spec, grid3(4, 3, 5)), 4, 3, 5);
  spec.order = "zyx";
  expect_cells3(load_grid_file(spec, grid3(4, 3, 5)), 4, 3, 5);
  spec.path = path("xyz.npy");
  spec.order = "xyz";
  expect_cells3(load_grid_file(spec, grid3(4, 3, 5)), 4, 3, 5);
  spec.order = "xz";  // the 2D name of the same order
  expect_cells3(load_grid_file(spec, grid3(4, 3, 5)), 4, 3, 5);

  spec = GridFileSpec{};
  spec.path = path("zyx.bin");
  expect_cells3(load_grid_file(spec, grid3(4, 3, 5)), 4, 3, 5);
  spec.shape = {4, 3, 5};
  expect_cells3(load_grid_file(spec, grid3(4, 3, 5)), 4, 3, 5);
  spec = GridFileSpec{};
  spec.path = path("xyz.f64");
  spec.dtype = "float64";
  spec.order = "xyz";
  expect_cells3(load_grid_file(spec, grid3(4, 3, 5)), 4, 3, 5);
}

TEST_F(GridFileTest, ThreeDimensionalDecimation) {
  // Stored 5 x 7 x 9 (zyx) with strides (2, 3, 4): kept 3 x 3 x 3.
  const auto v = stored_grid3<float>(5, 7, 9, true);
  write_raw(path("d.bin"), v);
  pwave::io::write_npy(path("d.npy"), v.data(), {5, 7, 9});
  GridFileSpec spec;
  spec.path = path("d.bin");
  spec.stride_z = 2;
  spec.stride_y = 3;
  spec.stride_x = 4;
  expect_cells3(load_grid_file(spec, grid3(3, 3, 3)), 3, 3, 3, 2, 3, 4);
  spec.path = path("d.npy");
  expect_cells3(load_grid_file(spec, grid3(3, 3, 3)), 3, 3, 3, 2, 3, 4);
  const std::string what = error_of([&] { load_grid_file(spec, grid3(3, 2, 3)); });
  EXPECT_HAS(what,
             "file holds an array of shape [5, 7, 9] (nz=5, ny=7, nx=9 in order zyx; "
             "decimated: nz=3, ny=3, nx=3), but the model is (nz=3, ny=2, nx=3) after "
             "decimation by (stride_z=2, stride_y=3, stride_x=4)");
}

TEST_F(GridFileTest, ThreeDimensionalErrors) {
  write_raw(path("m.bin"), stored_grid3<float>(2, 3, 4, true));
  GridFileSpec spec;
  spec.path = path("m.bin");
  std::string what = error_of([&] { load_grid_file(spec, grid3(2, 3, 5)); });
  EXPECT_HAS(what,
             "file holds 96 bytes = 24 float32 values, but shape [2, 3, 5] (order zyx, "
             "stored [nz][ny][nx]) needs 30 float32 values = 120 bytes");
  spec.shape = {6, 4};
  EXPECT_HAS(error_of([&] { load_grid_file(spec, grid3(2, 3, 4)); }),
             "shape [6, 4] must be three positive sizes");
  spec.shape.clear();
  spec.order = "zyx";
  EXPECT_HAS(error_of([&] { load_grid_file(spec, 2, 12); }), "unknown order 'zyx'");
  spec.order = "yzx";
  EXPECT_HAS(error_of([&] { load_grid_file(spec, grid3(2, 3, 4)); }),
             "(expected zyx or xyz for a 3D model)");
  spec.order = "zyx";
  // With strides, two stored shapes may fit the file size: the stored shape must be given.
  spec.stride_y = spec.stride_x = 2;
  write_raw(path("a.bin"), std::vector<float>(2 * 3 * 4, 2000.0f));
  spec.path = path("a.bin");
  what = error_of([&] { load_grid_file(spec, grid3(2, 2, 2)); });
  EXPECT_HAS(what, "which fits several stored shapes");
  EXPECT_HAS(what, "[2, 3, 4]");
  EXPECT_HAS(what, "[2, 4, 3]");
  // A 2D npy for a 3D model and the reverse.
  const std::vector<float> flat(12, 1.0f);
  pwave::io::write_npy(path("flat.npy"), flat.data(), {3, 4});
  spec = GridFileSpec{};
  spec.path = path("flat.npy");
  EXPECT_HAS(error_of([&] { load_grid_file(spec, grid3(1, 3, 4)); }),
             "holds a 2-d array of shape [3, 4], but a 3D model needs a 3-d array");
  // SEG-Y holds 2D sections only.
  spec.path = path("m.sgy");
  EXPECT_HAS(error_of([&] { load_grid_file(spec, grid3(2, 3, 4)); }),
             "SEG-Y velocity files hold 2D models only");
  // Non-finite values name the 3D cell.
  std::vector<float> bad = stored_grid3<float>(2, 3, 4, true);
  bad[(1 * 3 + 2) * 4 + 1] = std::numeric_limits<float>::infinity();
  write_raw(path("bad.bin"), bad);
  spec = GridFileSpec{};
  spec.path = path("bad.bin");
  EXPECT_HAS(error_of([&] { load_grid_file(spec, grid3(2, 3, 4)); }),
             "non-finite value (inf) at model index (iz=1, iy=2, ix=1), stored index [1, 2, 1]");
}

class MarmousiTest : public GridFileTest {
 protected:
  void SetUp() override {
    GridFileTest::SetUp();
    full_ = data_dir() + "/marmousi_vp.bin";
    small_ = data_dir() + "/marmousi_vp_small_16m.bin";
    if (!fs::exists(full_) || !fs::exists(small_)) {
      GTEST_SKIP() << "Marmousi files not found in " << data_dir() << " (set PWAVE_DATA_DIR)";
    }
  }
  std::string full_, small_;
};

TEST_F(MarmousiTest, FullModelLoadsWithKnownRange) {
  GridFileSpec spec;
  spec.path = full_;
  spec.order = "xz";
  const std::vector<double> v = load_grid_file(spec, 751, 2301);
  ASSERT_EQ(v.size(), 751u * 2301u);
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), 1500.0);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 5500.0);
  // Water at the surface, faster rock at the bottom: a transposed read would not give this.
  for (int ix = 0; ix < 2301; ix += 100) EXPECT_EQ(v[ix], 1500.0) << ix;
  double bottom = 0;
  for (int ix = 0; ix < 2301; ++ix) bottom += v[750u * 2301u + ix];
  EXPECT_GT(bottom / 2301, 3500.0);
}

TEST_F(MarmousiTest, DecimatedBy4EqualsThe16mFile) {
  GridFileSpec spec;
  spec.path = full_;
  spec.order = "xz";
  spec.stride_z = 4;
  spec.stride_x = 4;
  const std::vector<double> decimated = load_grid_file(spec, 188, 576);
  spec.shape = {2301, 751};
  EXPECT_EQ(load_grid_file(spec, 188, 576), decimated);

  GridFileSpec small;
  small.path = small_;
  small.order = "zx";
  const std::vector<double> reference = load_grid_file(small, 188, 576);
  ASSERT_EQ(decimated.size(), reference.size());
  long mismatches = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) mismatches += decimated[i] != reference[i];
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(*std::min_element(reference.begin(), reference.end()), 1500.0);
  EXPECT_EQ(*std::max_element(reference.begin(), reference.end()), 5500.0);
}

TEST_F(MarmousiTest, WrongShapeOnRealFileSaysSizes) {
  GridFileSpec spec;
  spec.path = small_;
  const std::string what = error_of([&] { load_grid_file(spec, 188, 577); });
  EXPECT_HAS(what, "file holds 433152 bytes = 108288 float32 values, but shape [188, 577]");
  EXPECT_HAS(what, "needs 108476 float32 values = 433904 bytes");

  spec.path = full_;
  spec.order = "xz";
  spec.stride_z = spec.stride_x = 4;
  const std::string what2 = error_of([&] { load_grid_file(spec, 188, 575); });
  EXPECT_HAS(what2, "file holds 6912204 bytes = 1728051 float32 values");
}

}  // namespace
