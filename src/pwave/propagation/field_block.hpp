#pragma once
// The views of one state (its wavefields and memory variables, or its material grids) carved
// out of one allocation, view k starting k x backend::field_stagger_bytes() into a 4 KiB page
// (mod 4 KiB). Allocated one by one, every view starts at the same place in a page (the
// allocator's pages plus Kokkos' header), so the loads of a kernel that streams several of them
// alias its stores modulo 4 KiB, which x86 cores resolve slowly (bench/README.md, "4K
// aliasing"). The block owns the memory: whoever keeps the views keeps storage() too.

#include <cstddef>
#include <string>
#include <vector>

#include "backends/launch.hpp"
#include "pwave/core/types.hpp"

namespace pwave::propagation {

/// Extents of one view of a block, [n0][n1][n2] (a GridView: n0 = 1); all 0: an empty view.
struct BlockExtents {
  int n0 = 0, n1 = 0, n2 = 0;
  std::size_t size() const { return std::size_t(n0) * std::size_t(n1) * std::size_t(n2); }
};

template <class T>
class FieldBlock {
 public:
  /// One zeroed allocation labelled `label` holding views of the given extents, in their order.
  FieldBlock(const std::string& label, const std::vector<BlockExtents>& views) : extents_(views) {
    constexpr std::size_t page = 4096;
    const std::size_t stagger = backend::field_stagger_bytes<ExecSpace>() / sizeof(T);
    std::size_t end = 0, k = 0;
    for (const BlockExtents& e : views) {
      const std::size_t page_start = (end * sizeof(T) + page - 1) / page * page / sizeof(T);
      start_.push_back(page_start + (k * stagger) % (page / sizeof(T)));
      if (e.size() > 0) end = start_.back() + e.size(), ++k;
    }
    storage_ = Kokkos::View<T*, MemSpace>(label, end);
  }

  /// View k as a [n0][n1][n2] field (empty where its extents are 0).
  Field<T> field(std::size_t k) const {
    const BlockExtents& e = extents_.at(k);
    if (e.size() == 0) return Field<T>();
    return Field<T>(storage_.data() + start_[k], e.n0, e.n1, e.n2);
  }
  /// View k (n0 = 1) as a [n1][n2] grid (empty where its extents are 0).
  GridView<T> grid(std::size_t k) const {
    const BlockExtents& e = extents_.at(k);
    if (e.size() == 0) return GridView<T>();
    return GridView<T>(storage_.data() + start_[k], e.n1, e.n2);
  }
  /// The allocation the views point into.
  const Kokkos::View<T*, MemSpace>& storage() const { return storage_; }

 private:
  std::vector<BlockExtents> extents_;
  std::vector<std::size_t> start_;  ///< element offset of each view
  Kokkos::View<T*, MemSpace> storage_;
};

}  // namespace pwave::propagation
