// FieldBlock (propagation/field_block.hpp): one allocation holding a state's views, each view
// its own extents, none overlapping, view k starting k x backend::field_stagger_bytes() into a
// 4 KiB page relative to the first.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdint>

#include "pwave/propagation/field_block.hpp"

namespace pwave::propagation {
namespace {

std::size_t byte_offset(const float* p, const float* base) {
  return std::size_t(reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(base));
}

TEST(FieldBlock, ViewsAreDisjointZeroedAndStaggeredInThePage) {
  // Sizes that are whole pages (the case where views allocated one by one alias) and odd ones.
  const std::vector<BlockExtents> views = {{2, 32, 64}, {},           {2, 32, 64},
                                           {1, 7, 13},  {3, 5, 1024}, {1, 1, 1}};
  const FieldBlock<float> block("test::block", views);
  const std::size_t stagger = backend::field_stagger_bytes<ExecSpace>();
  const float* base = block.storage().data();
  std::size_t k = 0, end = 0;  // k: the non-empty views before this one; end: bytes used
  for (std::size_t v = 0; v < views.size(); ++v) {
    const Field<float> f = block.field(v);
    if (views[v].size() == 0) {
      EXPECT_EQ(f.size(), 0u) << "view " << v;
      continue;
    }
    ASSERT_EQ(int(f.extent(0)), views[v].n0);
    ASSERT_EQ(int(f.extent(1)), views[v].n1);
    ASSERT_EQ(int(f.extent(2)), views[v].n2);
    const std::size_t start = byte_offset(f.data(), base);
    EXPECT_EQ(start % 4096, k * stagger % 4096) << "view " << v;
    EXPECT_GE(start, end) << "view " << v << " overlaps the one before";
    end = start + f.size() * sizeof(float);
    ++k;
  }
  EXPECT_LE(end, block.storage().size() * sizeof(float));

  // Zeroed, and each view's memory its own: filling view v leaves the others 0.
  for (std::size_t v = 0; v < views.size(); ++v) {
    if (views[v].size() == 0) continue;
    Kokkos::deep_copy(block.field(v), float(v + 1));
  }
  for (std::size_t v = 0; v < views.size(); ++v) {
    if (views[v].size() == 0) continue;
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block.field(v));
    for (std::size_t i = 0; i < h.size(); ++i) ASSERT_EQ(h.data()[i], float(v + 1)) << v;
  }
  double total = 0;
  auto all = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block.storage());
  for (std::size_t i = 0; i < all.size(); ++i) total += all(i);
  double expected = 0;
  for (std::size_t v = 0; v < views.size(); ++v) expected += double(v + 1) * views[v].size();
  EXPECT_EQ(total, expected);  // the gaps between views stayed 0
}

TEST(FieldBlock, GridViewsOfOneLayer) {
  const FieldBlock<double> block("test::grids", {{1, 4, 6}, {1, 4, 6}});
  const GridView<double> a = block.grid(0), b = block.grid(1);
  EXPECT_EQ(a.extent(0), 4u);
  EXPECT_EQ(a.extent(1), 6u);
  EXPECT_GE(b.data(), a.data() + a.size());
}

}  // namespace
}  // namespace pwave::propagation
