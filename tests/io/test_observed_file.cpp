// Observed data files read in place: memory-mapped .npy (float32 and float64, values exact and
// in the file's own dtype), shot by shot reads, page release, the value check split over ranks.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "deck_fixtures.hpp"
#include "pwave/io/deck_observed.hpp"
#include "pwave/io/mapped_file.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::test {
namespace {

constexpr std::size_t kShots = 3, kRec = 4, kNt = 50;

template <class V>
std::vector<V> ramp() {
  std::vector<V> v(kShots * kRec * kNt);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = V(std::sin(0.37 * double(i)) * 1e3);
  return v;
}

template <class V>
void reads_in_place_and_by_shot(const char* name) {
  const auto dir = scratch_dir(name);
  const std::vector<V> v = ramp<V>();
  io::write_npy((dir / "obs.npy").string(), v.data(), {kShots, kRec, kNt});
  const io::DeckObserved o = io::read_observed_file((dir / "obs.npy").string(), "npy", 0.001);
  EXPECT_EQ(o.shape, (std::vector<std::size_t>{kShots, kRec, kNt}));
  ASSERT_TRUE(o.traces);
  const auto* mapped = dynamic_cast<const io::MappedNpyTraces*>(o.traces.get());
  ASSERT_NE(mapped, nullptr);
  EXPECT_EQ(mapped->holds_float64(), sizeof(V) == 8);

  // The values in place, in the file's dtype, [shot][receiver][time].
  const V* in_place = nullptr;
  if constexpr (sizeof(V) == 8) {
    EXPECT_EQ(mapped->float32().data(), nullptr);
    const auto view = mapped->float64();
    ASSERT_EQ(view.extent(0), kShots);
    EXPECT_EQ(view(2, 3, 49), v.back());
    in_place = view.data();
  } else {
    EXPECT_EQ(mapped->float64().data(), nullptr);
    const auto view = mapped->float32();
    ASSERT_EQ(view.extent(1), kRec);
    EXPECT_EQ(view(1, 2, 7), v[(1 * kRec + 2) * kNt + 7]);
    in_place = view.data();
  }
  // A shot read in either precision converts each value once; reading again after the pages
  // were given back gives the same values.
  std::vector<float> f(kRec * kNt);
  std::vector<double> d(kRec * kNt);
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t s = 0; s < kShots; ++s) {
      o.traces->read_shot(s, f.data());
      o.traces->read_shot(s, d.data());
      for (std::size_t i = 0; i < f.size(); ++i) {
        ASSERT_EQ(f[i], float(v[s * kRec * kNt + i])) << s << " " << i;
        ASSERT_EQ(d[i], double(v[s * kRec * kNt + i])) << s << " " << i;
        ASSERT_EQ(in_place[s * kRec * kNt + i], v[s * kRec * kNt + i]);
      }
    }
  }
  EXPECT_THROW(o.traces->read_shot(kShots, f.data()), std::out_of_range);
}

TEST(ObservedFile, Float32NpyIsReadInPlace) {
  reads_in_place_and_by_shot<float>("obs_f32");
}
TEST(ObservedFile, Float64NpyIsReadInPlace) {
  reads_in_place_and_by_shot<double>("obs_f64");
}

TEST(ObservedFile, OtherShapesAreLeftToTheCaller) {
  // The deck reports a shape that does not fit the acquisition, with both shapes.
  const auto dir = scratch_dir("obs_shape");
  const std::vector<float> v(60, 1.0f);
  io::write_npy((dir / "obs.npy").string(), v.data(), {6, 10});
  const io::DeckObserved o = io::read_observed_file((dir / "obs.npy").string(), "npy", 0.001);
  EXPECT_EQ(o.shape, (std::vector<std::size_t>{6, 10}));
  EXPECT_FALSE(o.traces);
}

TEST(ObservedFile, MappedFileErrorsNameThePath) {
  const auto dir = scratch_dir("mapped_file");
  try {
    io::MappedFile f((dir / "missing.npy").string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), (dir / "missing.npy").string());
    EXPECT_NE(std::string(e.what()).find("file not found"), std::string::npos) << e.what();
  }
  EXPECT_THROW(io::MappedFile(dir.string()), InputError);  // a directory
  write_file(dir / "empty.npy", "");
  const io::MappedFile empty((dir / "empty.npy").string());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.data(), nullptr);
  empty.release(0, 10);  // nothing to give back, no fault
  try {
    io::read_observed_file((dir / "empty.npy").string(), "npy", 0.001);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not an .npy file"), std::string::npos) << e.what();
  }
  write_file(dir / "text.npy", "hello, world");
  io::MappedFile text((dir / "text.npy").string());
  io::MappedFile moved(std::move(text));
  EXPECT_EQ(text.data(), nullptr);
  ASSERT_EQ(moved.size(), 12u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(moved.data()), 5), "hello");
  moved.release(3, 4);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(moved.data()), 12), "hello, world");
}

TEST(ObservedFile, ValueCheckSplitOverRanksCoversEveryShot) {
  for (int size : {1, 2, 3, 5}) {
    std::size_t next = 0;
    for (int rank = 0; rank < size; ++rank) {
      const auto [first, last] = io::observed_check_range(4, rank, size);
      EXPECT_EQ(first, next);
      EXPECT_LE(first, last);
      next = last;
    }
    EXPECT_EQ(next, 4u) << size << " ranks";
  }
  const auto dir = scratch_dir("obs_inf");
  std::vector<double> v = ramp<double>();
  v[2 * kRec * kNt + 5] = std::numeric_limits<double>::infinity();
  io::write_npy((dir / "obs.npy").string(), v.data(), {kShots, kRec, kNt});
  io::DeckObserved o = io::read_observed_file((dir / "obs.npy").string(), "npy", 0.001);
  o.where = "deck.yaml:7";
  EXPECT_NO_THROW(io::check_observed_values(o, 0, 2));
  try {
    io::check_observed_values(o, 2, 3);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "observed.file");
    EXPECT_EQ(e.where(), "deck.yaml:7");
    EXPECT_NE(std::string(e.what()).find("value 405 (C order) is not finite"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pwave::test
