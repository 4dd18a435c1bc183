// SEG-Y shot gathers: written by pwave, read back independently with segyio's C API.

#include <gtest/gtest.h>
#include <segyio/segy.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pwave/core/error.hpp"
#include "pwave/io/segy.hpp"

namespace fs = std::filesystem;
using pwave::Position;
using pwave::ShotGeometry;
using pwave::io::write_shot_gathers_segy;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::int32_t field(const char* header, int f) {
  std::int32_t v = 0;
  EXPECT_EQ(segy_get_field(header, f, &v), SEGY_OK) << f;
  return v;
}

std::int32_t bfield(const char* header, int f) {
  std::int32_t v = 0;
  EXPECT_EQ(segy_get_bfield(header, f, &v), SEGY_OK) << f;
  return v;
}

class SegyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "pwave_segy_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    // Two shots, three receivers each; a receiver left of the source gives a negative offset.
    shots_.resize(kShots);
    shots_[0].source = {100.0, 8.0};
    shots_[0].receivers = {{40.0, 4.0}, {120.0, 4.0}, {200.25, 4.0}};
    shots_[1].source = {1500.5, 12.0};
    shots_[1].receivers = {{1000.0, 2.5}, {1600.0, 2.5}, {2000.0, 2.5}};
    traces_.resize(std::size_t(kShots) * kRec * kNt);
    for (int s = 0; s < kShots; ++s)
      for (int r = 0; r < kRec; ++r)
        for (int t = 0; t < kNt; ++t) traces_[(s * kRec + r) * kNt + t] = value(s, r, t);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static float value(int s, int r, int t) {
    return float(std::sin(0.3 * t + s) * std::pow(10.0, r - 3)) + (t == 0 ? 1.0f : 0.0f);
  }

  static constexpr int kShots = 2, kRec = 3, kNt = 7;
  static constexpr double kDt = 0.002;
  fs::path dir_;
  std::vector<ShotGeometry> shots_;
  std::vector<float> traces_;
};

TEST_F(SegyTest, WrittenFileReadsBackWithSegyio) {
  const std::string p = path("shots.sgy");
  write_shot_gathers_segy(p, traces_.data(), kShots, kRec, kNt, kDt, shots_);

  segy_file* fp = segy_open(p.c_str(), "rb");
  ASSERT_NE(fp, nullptr);
  char text[SEGY_TEXT_HEADER_SIZE + 1] = {};
  ASSERT_EQ(segy_read_textheader(fp, text), SEGY_OK);
  EXPECT_EQ(std::string(text, 4), "C01 ");
  EXPECT_NE(std::string(text).find("pwave"), std::string::npos);
  EXPECT_NE(std::string(text).find("SEG Y REV1"), std::string::npos);

  char bin[SEGY_BINARY_HEADER_SIZE];
  ASSERT_EQ(segy_binheader(fp, bin), SEGY_OK);
  EXPECT_EQ(segy_format(bin), SEGY_IEEE_FLOAT_4_BYTE);
  EXPECT_EQ(segy_samples(bin), kNt);
  EXPECT_EQ(bfield(bin, SEGY_BIN_INTERVAL), 2000);  // microseconds
  EXPECT_EQ(bfield(bin, SEGY_BIN_SEGY_REVISION), 0x0100);
  EXPECT_EQ(bfield(bin, SEGY_BIN_TRACE_FLAG), 1);
  EXPECT_EQ(bfield(bin, SEGY_BIN_TRACES), kRec);
  float dt_us = 0;
  ASSERT_EQ(segy_sample_interval(fp, 0.0f, &dt_us), SEGY_OK);
  EXPECT_EQ(dt_us, 2000.0f);

  ASSERT_EQ(segy_set_format(fp, segy_format(bin)), SEGY_OK);
  const long trace0 = segy_trace0(bin);
  const int bsize = segy_trsize(segy_format(bin), segy_samples(bin));
  int ntraces = 0;
  ASSERT_EQ(segy_traces(fp, &ntraces, trace0, bsize), SEGY_OK);
  ASSERT_EQ(ntraces, kShots * kRec);

  for (int s = 0; s < kShots; ++s) {
    for (int r = 0; r < kRec; ++r) {
      SCOPED_TRACE("shot " + std::to_string(s) + " receiver " + std::to_string(r));
      const int tr = s * kRec + r;
      char th[SEGY_TRACE_HEADER_SIZE];
      ASSERT_EQ(segy_traceheader(fp, tr, th, trace0, bsize), SEGY_OK);
      const Position& src = shots_[s].source;
      const Position& rec = shots_[s].receivers[r];
      EXPECT_EQ(field(th, SEGY_TR_SEQ_LINE), tr + 1);
      EXPECT_EQ(field(th, SEGY_TR_FIELD_RECORD), s + 1);
      EXPECT_EQ(field(th, SEGY_TR_NUMBER_ORIG_FIELD), r + 1);
      EXPECT_EQ(field(th, SEGY_TR_SOURCE_GROUP_SCALAR), -100);
      EXPECT_EQ(field(th, SEGY_TR_SOURCE_X), std::lround(src.x * 100));
      EXPECT_EQ(field(th, SEGY_TR_SOURCE_Y), std::lround(src.z * 100));
      EXPECT_EQ(field(th, SEGY_TR_GROUP_X), std::lround(rec.x * 100));
      EXPECT_EQ(field(th, SEGY_TR_GROUP_Y), std::lround(rec.z * 100));
      EXPECT_EQ(field(th, SEGY_TR_OFFSET), std::lround(rec.x - src.x));
      EXPECT_EQ(field(th, SEGY_TR_SAMPLE_COUNT), kNt);
      EXPECT_EQ(field(th, SEGY_TR_SAMPLE_INTER), 2000);

      std::vector<float> buf(kNt);
      ASSERT_EQ(segy_readtrace(fp, tr, buf.data(), trace0, bsize), SEGY_OK);
      ASSERT_EQ(segy_to_native(SEGY_IEEE_FLOAT_4_BYTE, kNt, buf.data()), SEGY_OK);
      for (int t = 0; t < kNt; ++t) EXPECT_EQ(buf[t], value(s, r, t)) << "t=" << t;
    }
  }
  EXPECT_EQ(segy_close(fp), SEGY_OK);
}

TEST_F(SegyTest, ThreeDimensionalShotsCarryYInSourceYAndGroupY) {
  std::vector<ShotGeometry> shots = shots_;
  for (int s = 0; s < kShots; ++s) {
    shots[s].source.y = 300.0 + 50.5 * s;
    for (int r = 0; r < kRec; ++r) shots[s].receivers[r].y = 20.0 * r;
  }
  const std::string p = path("shots3d.sgy");
  write_shot_gathers_segy(p, traces_.data(), kShots, kRec, kNt, kDt, shots, true);

  segy_file* fp = segy_open(p.c_str(), "rb");
  ASSERT_NE(fp, nullptr);
  char text[SEGY_TEXT_HEADER_SIZE + 1] = {};
  ASSERT_EQ(segy_read_textheader(fp, text), SEGY_OK);
  EXPECT_NE(std::string(text).find("3D: SourceX (73), SourceY (77)"), std::string::npos);
  char bin[SEGY_BINARY_HEADER_SIZE];
  ASSERT_EQ(segy_binheader(fp, bin), SEGY_OK);
  ASSERT_EQ(segy_set_format(fp, segy_format(bin)), SEGY_OK);
  const long trace0 = segy_trace0(bin);
  const int bsize = segy_trsize(segy_format(bin), segy_samples(bin));
  for (int s = 0; s < kShots; ++s) {
    for (int r = 0; r < kRec; ++r) {
      SCOPED_TRACE("shot " + std::to_string(s) + " receiver " + std::to_string(r));
      char th[SEGY_TRACE_HEADER_SIZE];
      ASSERT_EQ(segy_traceheader(fp, s * kRec + r, th, trace0, bsize), SEGY_OK);
      const Position& src = shots[s].source;
      const Position& rec = shots[s].receivers[r];
      EXPECT_EQ(field(th, SEGY_TR_SOURCE_X), std::lround(src.x * 100));
      EXPECT_EQ(field(th, SEGY_TR_SOURCE_Y), std::lround(src.y * 100));
      EXPECT_EQ(field(th, SEGY_TR_GROUP_X), std::lround(rec.x * 100));
      EXPECT_EQ(field(th, SEGY_TR_GROUP_Y), std::lround(rec.y * 100));
      EXPECT_EQ(field(th, SEGY_TR_SOURCE_DEPTH), std::lround(src.z * 100));
      EXPECT_EQ(field(th, SEGY_TR_RECV_GROUP_ELEV), -std::lround(rec.z * 100));
      EXPECT_EQ(field(th, SEGY_TR_OFFSET), std::lround(std::hypot(rec.x - src.x, rec.y - src.y)));
    }
  }
  EXPECT_EQ(segy_close(fp), SEGY_OK);
}

TEST_F(SegyTest, LayoutIsBigEndianRev1) {
  const std::string p = path("layout.sgy");
  write_shot_gathers_segy(p, traces_.data(), kShots, kRec, kNt, kDt, shots_);
  const std::string bytes = slurp(p);
  ASSERT_EQ(bytes.size(), 3200u + 400u + std::size_t(kShots * kRec) * (240u + 4u * kNt));
  // Textual header in EBCDIC: 'C' is 0xC3.
  EXPECT_EQ(std::uint8_t(bytes[0]), 0xC3);
  // Format code (bytes 3225-3226) and sample interval (3217-3218), big-endian.
  EXPECT_EQ(bytes.substr(3224, 2), std::string("\x00\x05", 2));
  EXPECT_EQ(bytes.substr(3216, 2), std::string("\x07\xd0", 2));
  // First sample of the first trace, IEEE big-endian float.
  const float first = value(0, 0, 0);
  std::uint32_t u = 0;
  std::memcpy(&u, &first, 4);
  const std::string be = {char(u >> 24), char(u >> 16), char(u >> 8), char(u)};
  EXPECT_EQ(bytes.substr(3600 + 240, 4), be);
}

TEST_F(SegyTest, NoTemporaryFileIsLeftBehind) {
  write_shot_gathers_segy(path("a.sgy"), traces_.data(), kShots, kRec, kNt, kDt, shots_);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"a.sgy"});
}

TEST_F(SegyTest, FailedWriteKeepsThePreviousFile) {
  const std::string p = path("keep.sgy");
  write_shot_gathers_segy(p, traces_.data(), kShots, kRec, kNt, kDt, shots_);
  const std::string before = slurp(p);
  std::vector<ShotGeometry> wrong = shots_;
  wrong[1].receivers.push_back(wrong[1].receivers.back());  // more receivers than data rows
  EXPECT_THROW(write_shot_gathers_segy(p, traces_.data(), kShots, kRec, kNt, kDt, wrong),
               pwave::RuntimeError);
  EXPECT_EQ(slurp(p), before);
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir_)) n += (void(e), 1);
  EXPECT_EQ(n, 1u);
}

TEST_F(SegyTest, InvalidArgumentsAreRuntimeErrors) {
  const std::string p = path("bad.sgy");
  EXPECT_THROW(write_shot_gathers_segy(p, traces_.data(), kShots + 1, kRec, kNt, kDt, shots_),
               pwave::RuntimeError);
  EXPECT_THROW(write_shot_gathers_segy(p, traces_.data(), kShots, kRec, kNt, 0.0, shots_),
               pwave::RuntimeError);
  EXPECT_THROW(write_shot_gathers_segy(p, traces_.data(), kShots, kRec, kNt, 1.0, shots_),
               pwave::RuntimeError);  // 10^6 microseconds do not fit 16 bits
  std::vector<float> long_traces(std::size_t(kShots) * kRec * 40000);
  EXPECT_THROW(write_shot_gathers_segy(p, long_traces.data(), kShots, kRec, 40000, kDt, shots_),
               pwave::RuntimeError);
  EXPECT_FALSE(fs::exists(p));
  try {
    write_shot_gathers_segy(path("no/dir/x.sgy"), traces_.data(), kShots, kRec, kNt, kDt, shots_);
    FAIL() << "expected RuntimeError";
  } catch (const pwave::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("no/dir/x.sgy"), std::string::npos) << e.what();
  }
}

}  // namespace
