// The frame of the boundary storage: its index map is a bijection, in the order the host
// segment launch assumes.

#include <gtest/gtest.h>

#include <vector>

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

}  // namespace
}  // namespace pwave::propagation
