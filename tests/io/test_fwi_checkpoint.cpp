// checkpoint.bin and history.csv: the dead-trace counts of the history rows, and checkpoints
// written before pwave kept them (or before it kept an estimated wavelet) still read.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "deck_fixtures.hpp"
#include "pwave/core/error.hpp"
#include "pwave/io/fwi_checkpoint.hpp"

namespace pwave::test {
namespace {

FwiState two_rows() {
  FwiState st;
  st.fingerprint = "pwave-fwi-1 4 41x61 150 2 adam 0 1 2@0";
  st.iteration = 2;
  st.model = {2000.0, 2100.0, 2200.0};
  st.optimizer = {0.5, -0.25};
  st.history = {HistoryRow{1, 1, 3.5, 0.25, 20.0, 1.5, 3},
                HistoryRow{2, 1, 2.5, 0.125, 10.0, 1.25, 0}};
  return st;
}

// The file as pwave wrote it before the dead-trace block: magic, fingerprint, iteration, model,
// optimiser, rows of 6 doubles, and (from the wavelet estimation on) the wavelet.
void write_old(const std::string& path, const FwiState& st, bool with_wavelet) {
  std::ofstream out(path, std::ios::binary);
  const auto i64 = [&](std::int64_t v) { out.write(reinterpret_cast<const char*>(&v), 8); };
  const auto doubles = [&](const std::vector<double>& v) {
    i64(std::int64_t(v.size()));
    out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 8));
  };
  out.write("PWAVECK1", 8);
  i64(std::int64_t(st.fingerprint.size()));
  out.write(st.fingerprint.data(), std::streamsize(st.fingerprint.size()));
  i64(st.iteration);
  doubles(st.model);
  doubles(st.optimizer);
  std::vector<double> rows;
  for (const HistoryRow& r : st.history) {
    rows.insert(rows.end(), {double(r.iteration), double(r.stage), r.misfit, r.gradient_norm,
                             r.step, r.seconds});
  }
  doubles(rows);
  if (with_wavelet) doubles({0.0, 1.0, 0.0});
}

TEST(FwiCheckpoint, DeadTraceCountsRoundTripAndOlderFilesRead) {
  const auto dir = scratch_dir("fwi_checkpoint");
  const std::string path = (dir / "checkpoint.bin").string();
  io::write_checkpoint(path, two_rows());
  const FwiState back = io::read_checkpoint(path);
  ASSERT_EQ(back.history.size(), 2u);
  EXPECT_EQ(back.history[0].dead_traces, 3);
  EXPECT_EQ(back.history[1].dead_traces, 0);
  EXPECT_EQ(back.history[1].misfit, 2.5);
  EXPECT_EQ(back.model, two_rows().model);
  EXPECT_EQ(io::history_csv(back.history),
            "iteration,stage,misfit,gradient_norm,step,seconds,dead_traces\n"
            "1,1,3.5,0.25,20,1.5000,3\n"
            "2,1,2.5,0.125,10,1.2500,0\n");

  for (const bool with_wavelet : {false, true}) {
    write_old(path, two_rows(), with_wavelet);
    const FwiState old = io::read_checkpoint(path);
    ASSERT_EQ(old.history.size(), 2u) << with_wavelet;
    EXPECT_EQ(old.history[0].dead_traces, -1);  // unknown
    EXPECT_EQ(old.history[1].misfit, 2.5);
    EXPECT_EQ(old.wavelet.size(), with_wavelet ? 3u : 0u);
    EXPECT_EQ(io::history_csv(old.history).substr(62),
              "1,1,3.5,0.25,20,1.5000,\n"
              "2,1,2.5,0.125,10,1.2500,\n");
  }

  // A dead-trace block of another length than the history is a broken file.
  write_old(path, two_rows(), true);
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    const std::int64_t n = 1;
    const double v = 4.0;
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(reinterpret_cast<const char*>(&v), 8);
  }
  EXPECT_THROW(io::read_checkpoint(path), InputError);
}

}  // namespace
}  // namespace pwave::test
