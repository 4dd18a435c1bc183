// The frame of the boundary storage: its index map is a bijection, in the order the host
// segment launch assumes; the adjoint's memory variables store exactly the lines the
// frame's stencils reach (physics::StripLines).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pwave/physics/acoustic/adjoint_kernels.hpp"
#include "pwave/propagation/boundary_storage.hpp"

namespace pwave::propagation {
namespace {

void expect_index_inverts_cell(const FrameRegion& region) {
  long inside = 0;
  for (int iz = 0; iz < region.nz; ++iz)
    for (int iy = 0; iy < region.ny; ++iy)
      for (int ix = 0; ix < region.nx; ++ix) inside += region.inside_box(iz, iy, ix) ? 1 : 0;
  ASSERT_EQ(region.size() + inside, long(region.nz) * region.ny * region.nx);
  for (long k = 0; k < region.size(); ++k) {
    int iz = -1, iy = -1, ix = -1;
    region.cell(k, iz, iy, ix);
    ASSERT_FALSE(region.inside_box(iz, iy, ix)) << "k " << k;
    ASSERT_EQ(region.index(iz, iy, ix), k) << "cell (" << iz << ", " << iy << ", " << ix << ")";
  }
}

/// The host segments (the runs for_each_stored_cell hands to segment()) cover every frame index
/// exactly once, each run a contiguous range of indices.
void expect_segments_cover_frame(const FrameRegion& region) {
  std::vector<int> hits(std::size_t(region.size()), 0);
  const auto run = [&](int iz, int iy, int x0, int x1) {
    const long k0 = region.index(iz, iy, x0);
    for (int ix = x0; ix < x1; ++ix) {
      ASSERT_EQ(region.index(iz, iy, ix), k0 + (ix - x0));
      ++hits[std::size_t(k0 + (ix - x0))];
    }
  };
  for (int iz = 0; iz < region.nz; ++iz) {
    for (int iy = 0; iy < region.ny; ++iy) {
      if (region.whole_line(iz, iy)) {
        run(iz, iy, 0, region.nx);
      } else {
        run(iz, iy, 0, region.x_lo);
        run(iz, iy, region.x_hi, region.nx);
      }
    }
  }
  for (long k = 0; k < region.size(); ++k) ASSERT_EQ(hits[std::size_t(k)], 1) << "k " << k;
}

TEST(FrameRegion, IndexInvertsCell2D) {
  const FrameRegion region(30, 41, 6, 5, 7, 3, 4);  // nz, nx, top, bottom, left, right, band
  expect_index_inverts_cell(region);
  expect_segments_cover_frame(region);
  const FrameRegion free_top(30, 41, 0, 5, 7, 3, 4);  // free surface: no band at the top
  expect_index_inverts_cell(free_top);
  expect_segments_cover_frame(free_top);
  const FrameRegion strips(30, 41, 6, 5, 7, 3, 0);  // no band (the elastic frame)
  EXPECT_EQ(strips.size(), 30L * 41 - (30L - 11) * (41 - 10));
  expect_index_inverts_cell(strips);
  expect_segments_cover_frame(strips);
}

TEST(FrameRegion, IndexInvertsCell3D) {
  const FrameRegion region(17, 19, 3, 2, 4, 3, 2, 23, 5, 3);
  expect_index_inverts_cell(region);
  expect_segments_cover_frame(region);
  const FrameRegion no_y(17, 19, 3, 2, 4, 3, 2, 23, 0, 0);
  expect_index_inverts_cell(no_y);
  expect_segments_cover_frame(no_y);
}

/// One axis of n cells, halo h (the stencil radius), CPML strips lo_strip and hi_strip cells
/// wide (0: none, as under a free surface) and the band h: StripLines::of over the frame's
/// bounds maps every halo-layout index that a frame cell's stencil reaches (within h of the
/// cell) to its own storage index below the stored count, and stores nothing else.
void expect_strip_lines_store_what_the_frame_reaches(int n, int h, int lo_strip, int hi_strip) {
  const FrameRegion region(n, 1, lo_strip, hi_strip, 0, 0, h);
  const physics::StripLines s = physics::StripLines::of(n, h, region.z_lo, region.z_hi);
  const int indices = n + 2 * h, stored = indices - s.gap;
  const std::string where = "n " + std::to_string(n) + ", h " + std::to_string(h) + ", strips " +
                            std::to_string(lo_strip) + "/" + std::to_string(hi_strip);
  std::vector<bool> reached(std::size_t(indices), false);
  for (int c = 0; c < n; ++c) {
    if (c >= region.z_lo && c < region.z_hi) continue;                    // not a frame cell
    for (int i = c; i <= c + 2 * h; ++i) reached[std::size_t(i)] = true;  // halo index c + h +- h
  }
  std::vector<int> owner(std::size_t(std::max(stored, 0)), -1);
  int count = 0;
  for (int i = 0; i < indices; ++i) {
    if (!reached[std::size_t(i)]) continue;
    ++count;
    const int k = s(i);
    ASSERT_TRUE(k >= 0 && k < stored) << where << ": index " << i << " stored at " << k;
    ASSERT_EQ(owner[std::size_t(k)], -1) << where << ": indices " << owner[std::size_t(k)]
                                         << " and " << i << " both stored at " << k;
    owner[std::size_t(k)] = i;
  }
  EXPECT_EQ(stored, count) << where << ": lines stored that no stencil reaches";
}

TEST(StripLines, StoreExactlyTheLinesTheFramesStencilsReach) {
  for (int h : {1, 2, 4}) {
    expect_strip_lines_store_what_the_frame_reaches(40, h, 6, 5);
    expect_strip_lines_store_what_the_frame_reaches(40, h, 0, 5);  // free surface: no top strip
    expect_strip_lines_store_what_the_frame_reaches(40, h, 7, 0);
    expect_strip_lines_store_what_the_frame_reaches(40, h, 0, 0);  // no strips: nothing stored
    expect_strip_lines_store_what_the_frame_reaches(12, h, 3, 3);  // reaches meet or overlap
    expect_strip_lines_store_what_the_frame_reaches(9, h, 4, 4);   // the frame is every cell
  }
  // 160 + a 20-cell CPML, order 8: strips of 24 (the layer and a stencil radius), 36 halo rows
  // stored on either side of 208.
  const FrameRegion r(200, 1, 24, 24, 0, 0, 4);
  EXPECT_EQ(208 - physics::StripLines::of(200, 4, r.z_lo, r.z_hi).gap, 72);
}

}  // namespace
}  // namespace pwave::propagation
