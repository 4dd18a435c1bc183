#pragma once
// How a cell-wise kernel is launched on each backend. The physics defines what a cell does
// (`f(shot, iz, ix)`); this header decides how cells map to threads, which is all that differs:
//  - host backends (Serial, OpenMP, Threads): one work item per row (or block of rows), an inner
//    contiguous x loop the functor's host row method vectorises, rows streaming through cache;
//  - GPU backends: a 3D MDRange with tiles long in x (coalesced) and short in z.
// Backend names may appear here and nowhere else in shared code.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace pwave::backend {

/// Tile shape (z, x) used for MDRange launches on GPUs.
template <class Exec>
struct StencilTile {
  static constexpr int z = 4;
  static constexpr int x = 64;
};

/// Tile shape (z, y, x) of the MDRange launches of 3D grids on GPUs: long in x (coalesced),
/// a few y lines and depths per block so the neighbours' lines are shared in cache.
template <class Exec>
struct StencilTile3 {
  static constexpr int z = 2;
  static constexpr int y = 4;
  static constexpr int x = 32;
};

/// True where the execution space runs on the host (row loops), false on GPUs.
template <class Exec>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
}

/// True where kernels take the host row paths (the functors' row()/rows() methods); false
/// where they are launched cell by cell through operator() (MDRange), as on GPUs. A build with
/// PWAVE_HOST_CELLWISE (CMake option) sends host backends down the GPU path too, so that the
/// GPU code can be run and tested on a CPU.
template <class Exec>
constexpr bool uses_row_paths() {
#ifdef PWAVE_HOST_CELLWISE
  return false;
#else
  return runs_on_host<Exec>();
#endif
}

/// Allocated length of a wavefield row of `n` values of `bytes` bytes each (the x extent of
/// [shot][z][x] views). Host backends round it up to whole 64-byte cache lines and then to an
/// odd number of lines: rows then start on a line boundary, and a stencil's rows z +- j fall in
/// different L1 sets. A stride that is a multiple of 4 KiB (2048 floats: nx = 2000 with a
/// 20-cell CPML and an order-8 halo) puts them all in one set and halves the throughput.
/// GPUs get whole 128-byte segments.
template <class Exec>
int padded_row_length(int n, int bytes) {
  if constexpr (runs_on_host<Exec>()) {
    long lines = (long(n) * bytes + 63) / 64;
    if (lines % 2 == 0) ++lines;
    return int(lines * 64 / bytes);
  } else {
    return int((long(n) * bytes + 127) / 128 * 128 / bytes);
  }
}

/// How far apart in a 4 KiB page the views a kernel streams together start
/// (propagation::FieldBlock): host backends give view k the offset k x this (mod 4 KiB), so that
/// a load of one field and a pending store of another at the same index differ in their low 12
/// address bits. Views allocated one by one are page aligned (plus the same header), which makes
/// every load of a kernel 4K-alias the stores before it (x86 blocks the load until the store's
/// whole address is known). GPUs get whole 128-byte segments.
template <class Exec>
constexpr std::size_t field_stagger_bytes() {
  if constexpr (runs_on_host<Exec>()) {
    return 64;
  } else {
    return 128;
  }
}

/// Detects a functor's optional host row method `f.row(shot, iz, x0, x1)` (a hand-vectorised
/// path over one row); functors without it are called cell by cell.
template <class F, class = void>
struct has_row : std::false_type {};
template <class F>
struct has_row<F, std::void_t<decltype(std::declval<const F&>().row(0, 0, 0, 0))>>
    : std::true_type {};

/// Detects `f.rows(shot, iz, n, x0, x1)` with `F::block_rows`: n <= block_rows rows at once.
template <class F, class = void>
struct has_rows : std::false_type {};
template <class F>
struct has_rows<
    F, std::void_t<decltype(std::declval<const F&>().rows(0, 0, 0, 0, 0)), decltype(F::block_rows)>>
    : std::true_type {};

/// Detects `f.line(shot, iz, iy, x0, x1)`: a host path over one x line of a 3D grid.
template <class F, class = void>
struct has_line : std::false_type {};
template <class F>
struct has_line<F, std::void_t<decltype(std::declval<const F&>().line(0, 0, 0, 0, 0))>>
    : std::true_type {};

/// Detects `f.lines(shot, iz, n, iy, x0, x1)` with `F::block_lines`: the x lines (iz + r, iy),
/// r < n <= block_lines, of a 3D grid at once.
template <class F, class = void>
struct has_lines : std::false_type {};
template <class F>
struct has_lines<F, std::void_t<decltype(std::declval<const F&>().lines(0, 0, 0, 0, 0, 0)),
                                decltype(F::block_lines)>> : std::true_type {};

/// Detects `f.slab_line(shot, iz, iy, x0, x1, x2, x3)`: a host path over a whole x line of a 3D
/// slab (for_each_box_3d): cells [x0, x1) and [x2, x3) of its two strip boxes (f's own kernel)
/// and [x1, x2) of its inner box (the kernel the slab's inner box has, which f runs too).
template <class F, class = void>
struct has_slab_line : std::false_type {};
template <class F>
struct has_slab_line<F,
                     std::void_t<decltype(std::declval<const F&>().slab_line(0, 0, 0, 0, 0, 0, 0))>>
    : std::true_type {};

/// A functor's promise of host paths: `static constexpr bool host_rows = true` (2D rows:
/// row() or rows()) and `host_lines = true` (3D x lines: line() or lines()). A functor that
/// promises one and does not provide it (a misspelt name, a changed signature) is a compile
/// error in the launch below, not a silent fallback to the cell-by-cell loop on the host.
template <class F, class = void>
struct promises_rows : std::false_type {};
template <class F>
struct promises_rows<F, std::void_t<decltype(F::host_rows)>> : std::bool_constant<F::host_rows> {};
template <class F, class = void>
struct promises_lines : std::false_type {};
template <class F>
struct promises_lines<F, std::void_t<decltype(F::host_lines)>> : std::bool_constant<F::host_lines> {
};

/// Host: cells [x0, x1) of rows [iz, iz + n) through the best interface f has.
template <class F>
void host_rows(const F& f, int s, int iz, int n, int x0, int x1) {
  static_assert(!promises_rows<F>::value || has_rows<F>::value || has_row<F>::value,
                "the functor promises a host row path (host_rows) but has no row()/rows()");
  if (x1 <= x0) return;
  if constexpr (has_rows<F>::value) {
    f.rows(s, iz, n, x0, x1);
  } else {
    for (int r = iz; r < iz + n; ++r) {
      if constexpr (has_row<F>::value) {
        f.row(s, r, x0, x1);
      } else {
        for (int ix = x0; ix < x1; ++ix) f(s, r, ix);
      }
    }
  }
}

/// Calls f(shot, iz, ix) for shot in [0, ns), iz in [z0, z1), ix in [x0, x1).
template <class Exec, class F>
void for_each_cell(const char* name, const Exec& exec, int ns, int z0, int z1, int x0, int x1,
                   const F& f) {
  if (ns <= 0 || z1 <= z0 || x1 <= x0) return;
  if constexpr (uses_row_paths<Exec>()) {
    // One work item per block of F::block_rows rows when f has rows() (its u^n loads then serve
    // several rows), else per row. A host lambda: the row methods are host functions.
    int block = 1;
    if constexpr (has_rows<F>::value) block = F::block_rows;
    const int nblocks = (z1 - z0 + block - 1) / block;
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Exec>(exec, 0, long(ns) * nblocks),
                         [=](const long k) {
                           const int s = int(k / nblocks);
                           const int iz = z0 + int(k % nblocks) * block;
                           host_rows(f, s, iz, std::min(block, z1 - iz), x0, x1);
                         });
  } else {
    using Policy = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3>>;
    Kokkos::parallel_for(
        name,
        Policy(exec, {0, z0, x0}, {ns, z1, x1}, {1, StencilTile<Exec>::z, StencilTile<Exec>::x}),
        KOKKOS_LAMBDA(const int s, const int iz, const int ix) { f(s, iz, ix); });
  }
}

/// A box of a 3D padded grid: [z0, z1) x [y0, y1) x [x0, x1).
struct Box {
  int z0 = 0, z1 = 0, y0 = 0, y1 = 0, x0 = 0, x1 = 0;
  bool empty() const { return z1 <= z0 || y1 <= y0 || x1 <= x0; }
};

/// Calls f(shot, iz, iy, ix) for shot in [0, ns) and every cell of box b. Host backends run one
/// work item per block of depths of an x line when f has lines(), else per x line (f.line()
/// when f has it, else a cell loop); GPUs a 4D MDRange.
template <class Exec, class F>
void for_each_cell_3d(const char* name, const Exec& exec, int ns, const Box& b, const F& f) {
  static_assert(!promises_lines<F>::value || has_lines<F>::value || has_line<F>::value,
                "the functor promises a host line path (host_lines) but has no line()/lines()");
  if (ns <= 0 || b.empty()) return;
  if constexpr (uses_row_paths<Exec>() && has_lines<F>::value) {
    // One work item per block of F::block_lines depths of one y line, y varying fastest: the
    // u^n lines the y taps of a block read were loaded by the blocks of the y lines before.
    const int block = F::block_lines;
    const long ny = b.y1 - b.y0, items = long((b.z1 - b.z0 + block - 1) / block) * ny;
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Exec>(exec, 0, long(ns) * items),
                         [=](const long k) {
                           const int s = int(k / items);
                           const long l = k % items;
                           const int iz = b.z0 + int(l / ny) * block, iy = b.y0 + int(l % ny);
                           f.lines(s, iz, std::min(block, b.z1 - iz), iy, b.x0, b.x1);
                         });
  } else if constexpr (uses_row_paths<Exec>()) {
    const long ny = b.y1 - b.y0, lines = long(b.z1 - b.z0) * ny;
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Exec>(exec, 0, long(ns) * lines),
                         [=](const long k) {
                           const int s = int(k / lines);
                           const long l = k % lines;
                           const int iz = b.z0 + int(l / ny), iy = b.y0 + int(l % ny);
                           if constexpr (has_line<F>::value) {
                             f.line(s, iz, iy, b.x0, b.x1);
                           } else {
                             for (int ix = b.x0; ix < b.x1; ++ix) f(s, iz, iy, ix);
                           }
                         });
  } else {
    using Policy = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<4>>;
    using Tile = StencilTile3<Exec>;
    Kokkos::parallel_for(
        name,
        Policy(exec, {0, b.z0, b.y0, b.x0}, {ns, b.z1, b.y1, b.x1}, {1, Tile::z, Tile::y, Tile::x}),
        KOKKOS_LAMBDA(const int s, const int iz, const int iy, const int ix) { f(s, iz, iy, ix); });
  }
}

/// A 3D grid cut into 3 x 3 x 3 boxes by two planes per axis: {0, lo, hi, n} along z, y, x.
struct BoxCuts {
  int z[4], y[4], x[4];
};

/// Whether host backends can run a slab of for_each_box_3d (the boxes of one z and y range:
/// strip, inner, strip along x) as x lines, given the strip boxes' functor type S and the inner
/// box's I: S has slab_line() (the whole line, the inner box's cells too), or both have lines()
/// (blocks of depths, the same block_lines), or both line() and neither lines().
template <class S, class I>
constexpr bool runs_slab_lines() {
  if constexpr (has_slab_line<S>::value) {
    return true;
  } else if constexpr (has_lines<S>::value && has_lines<I>::value) {
    static_assert(S::block_lines == I::block_lines,
                  "the strips' lines join the inner box's blocks of depths");
    return true;
  } else {
    return has_line<S>::value && has_line<I>::value && !has_lines<S>::value && !has_lines<I>::value;
  }
}

/// Depths per work item of a slab that runs_slab_lines(): block_lines where both have lines().
template <class S, class I>
constexpr int slab_block_lines() {
  if constexpr (!has_slab_line<S>::value && has_lines<S>::value && has_lines<I>::value) {
    return S::block_lines;
  } else {
    return 1;
  }
}

/// Host: the x lines (iz + r, iy), r < n <= slab_block_lines(), of a slab that
/// runs_slab_lines(), through its three boxes in turn (left strip, inner, right strip; x cuts
/// `x`), or each line whole where the strip functor has slab_line().
template <class S, class I>
void host_slab_lines(const S& strip, const I& inner, int s, int iz, int n, int iy, const int* x,
                     bool inner_too) {
  if constexpr (has_slab_line<S>::value) {
    for (int r = 0; r < n; ++r) strip.slab_line(s, iz + r, iy, x[0], x[1], x[2], x[3]);
  } else if constexpr (has_lines<S>::value && has_lines<I>::value) {
    if (x[1] > x[0]) strip.lines(s, iz, n, iy, x[0], x[1]);
    if (inner_too && x[2] > x[1]) inner.lines(s, iz, n, iy, x[1], x[2]);
    if (x[3] > x[2]) strip.lines(s, iz, n, iy, x[2], x[3]);
  } else {
    for (int r = 0; r < n; ++r) {
      if (x[1] > x[0]) strip.line(s, iz + r, iy, x[0], x[1]);
      if (inner_too && x[2] > x[1]) inner.line(s, iz + r, iy, x[1], x[2]);
      if (x[3] > x[2]) strip.line(s, iz + r, iy, x[2], x[3]);
    }
  }
}

/// f(in_y, in_z, bz, by) for each of the 3 x 3 slabs of `cuts` with depths and y lines, with
/// in_y and in_z (std::integral_constant<bool, ...>) saying whether it lies in a y or z strip.
/// !YStrips: the y strips of `cuts` must be empty (2D), and f is never instantiated for a y
/// strip (half the kernels of a 2D grid compiled otherwise).
template <bool YStrips = true, class F>
void for_each_slab(const BoxCuts& cuts, const F& f) {
  using No = std::false_type;
  using Yes = std::true_type;
  if constexpr (!YStrips) {
    if (cuts.y[1] > cuts.y[0] || cuts.y[3] > cuts.y[2]) {
      throw std::logic_error("pwave::backend::for_each_slab: y strips on a grid without them");
    }
  }
  const auto slab = [&](auto in_y, auto in_z, int bz, int by) {
    if (cuts.z[bz + 1] > cuts.z[bz] && cuts.y[by + 1] > cuts.y[by]) f(in_y, in_z, bz, by);
  };
  const auto depths = [&](auto in_z, int bz) {  // the slabs of depths [z[bz], z[bz + 1])
    if constexpr (YStrips) slab(Yes{}, in_z, bz, 0);
    slab(No{}, in_z, bz, 1);
    if constexpr (YStrips) slab(Yes{}, in_z, bz, 2);
  };
  depths(Yes{}, 0);
  depths(No{}, 1);
  depths(Yes{}, 2);
}

/// One launch per non-empty box of `cuts`, each with the functor `make(in_x, in_y, in_z)`
/// returns for that box: the flags (std::integral_constant<bool, ...>) say whether the box lies
/// outside [lo, hi) along x, y and z, so the caller picks, at compile time, the kernel of
/// exactly the strips the box is in. `skip_center`: leave the inner box (no strip) out, for a
/// caller that updates it in another launch. `YStrips`: false for a 2D grid, whose y strips are
/// empty, so that no kernel of a y strip is compiled (for_each_slab; for_each_box<Dim> below).
///
/// Host backends, where a slab runs_slab_lines() (and where its inner box is run, if the strip
/// functor's slab_line() runs it too): one launch per slab (the boxes of one z and y
/// range), each x line of it run through its three boxes in turn (left strip, inner, right
/// strip), per block of depths of a y line where the functors have lines(), or whole where the
/// strip boxes' functor has slab_line(). The strips' short lines are then read in the stream of
/// their row, not in sweeps of their own down the grid where every line waits on memory
/// (measured: the elastic x strips took 5 times the time per cell of the z strips). The cells
/// and their arithmetic are those of the box-by-box launches.
template <bool YStrips = true, class Exec, class Make>
void for_each_box_3d(const char* name, const Exec& exec, int ns, const BoxCuts& cuts,
                     const Make& make, bool skip_center = false) {
  using F = std::false_type;
  using T = std::true_type;
  if (ns <= 0) return;
  for_each_slab<YStrips>(cuts, [&](auto in_y, auto in_z, int bz, int by) {
    const int z0 = cuts.z[bz], z1 = cuts.z[bz + 1], y0 = cuts.y[by], y1 = cuts.y[by + 1];
    const bool inner_too = !(skip_center && bz == 1 && by == 1);
    using Strip = std::decay_t<decltype(make(T{}, in_y, in_z))>;
    using Inner = std::decay_t<decltype(make(F{}, in_y, in_z))>;
    if constexpr (uses_row_paths<Exec>() && runs_slab_lines<Strip, Inner>()) {
      if (inner_too || !has_slab_line<Strip>::value) {  // slab_line() runs the inner box too
        const Strip strip = make(T{}, in_y, in_z);
        const Inner inner = make(F{}, in_y, in_z);
        const int x[4] = {cuts.x[0], cuts.x[1], cuts.x[2], cuts.x[3]};
        constexpr int block = slab_block_lines<Strip, Inner>();
        const long ny = y1 - y0, items = long((z1 - z0 + block - 1) / block) * ny;
        Kokkos::parallel_for(
            name, Kokkos::RangePolicy<Exec>(exec, 0, long(ns) * items), [=](const long k) {
              const int s = int(k / items);
              const long l = k % items;
              const int iz = z0 + int(l / ny) * block, iy = y0 + int(l % ny);
              host_slab_lines(strip, inner, s, iz, std::min(block, z1 - iz), iy, x, inner_too);
            });
        return;
      }
    }
    for (int bx = 0; bx < 3; ++bx) {
      const Box b{z0, z1, y0, y1, cuts.x[bx], cuts.x[bx + 1]};
      if (b.empty() || (bx == 1 && !inner_too)) continue;
      if (bx == 1) {
        for_each_cell_3d(name, exec, ns, b, make(F{}, in_y, in_z));
      } else {
        for_each_cell_3d(name, exec, ns, b, make(T{}, in_y, in_z));
      }
    }
  });
}

/// for_each_box_3d on a grid of Dim dimensions: a 2D grid (one y line, no y strips) compiles no
/// kernel of a y strip.
template <int Dim, class Exec, class Make>
void for_each_box(const char* name, const Exec& exec, int ns, const BoxCuts& cuts, const Make& make,
                  bool skip_center = false) {
  static_assert(Dim == 2 || Dim == 3);
  for_each_box_3d<Dim == 3>(name, exec, ns, cuts, make, skip_center);
}

/// Host: what for_each_box_3d does for shot s at depths [za, zb) only, on the calling thread
/// (one group of a host wavefront, backends/wavefront.hpp): each slab's lines there, blocks of
/// depths from za (each cell's arithmetic is that of any blocking). Every slab must
/// runs_slab_lines(). `YStrips` as for_each_box_3d's (host_boxes_depths<Dim> below).
template <bool YStrips = true, class Make>
void host_boxes_3d_depths(const BoxCuts& cuts, const Make& make, int s, int za, int zb) {
  using F = std::false_type;
  using T = std::true_type;
  for_each_slab<YStrips>(cuts, [&](auto in_y, auto in_z, int bz, int by) {
    const int z0 = std::max(za, cuts.z[bz]), z1 = std::min(zb, cuts.z[bz + 1]);
    if (z1 <= z0) return;
    using Strip = std::decay_t<decltype(make(T{}, in_y, in_z))>;
    using Inner = std::decay_t<decltype(make(F{}, in_y, in_z))>;
    static_assert(runs_slab_lines<Strip, Inner>(), "a slab without host lines");
    const Strip strip = make(T{}, in_y, in_z);
    const Inner inner = make(F{}, in_y, in_z);
    constexpr int block = slab_block_lines<Strip, Inner>();
    for (int iz = z0; iz < z1; iz += block) {
      for (int iy = cuts.y[by]; iy < cuts.y[by + 1]; ++iy) {
        host_slab_lines(strip, inner, s, iz, std::min(block, z1 - iz), iy, cuts.x, true);
      }
    }
  });
}

/// host_boxes_3d_depths on a grid of Dim dimensions, as for_each_box<Dim>.
template <int Dim, class Make>
void host_boxes_depths(const BoxCuts& cuts, const Make& make, int s, int za, int zb) {
  static_assert(Dim == 2 || Dim == 3);
  host_boxes_3d_depths<Dim == 3>(cuts, make, s, za, zb);
}

/// The padded grid [0, nz) x [0, nx) cut into an interior [z0, z1) x [x0, x1) and the frame
/// around it: left/right strips (rows [z0, z1)), top/bottom bands (columns [x0, x1)), corners.
struct Frame {
  int nz = 0, nx = 0, z0 = 0, z1 = 0, x0 = 0, x1 = 0;
};

/// The host sweep of a frame step (for_each_frame_cell) as a sequence of units, top to bottom:
/// each top band row, the interior rows in blocks of `block` (FI::block_rows when the interior
/// functor has rows(), else 1), each bottom band row. Unit u covers rows [first_row(u),
/// first_row(u + 1)).
struct FrameUnits {
  Frame g;
  int block = 1;
  int top() const { return g.z0; }
  int blocks() const { return (g.z1 - g.z0 + block - 1) / block; }
  int count() const { return top() + blocks() + (g.nz - g.z1); }
  int first_row(int u) const {
    if (u <= top()) return u;
    if (u >= top() + blocks()) return g.z1 + (u - top() - blocks());
    return g.z0 + (u - top()) * block;
  }
};

/// The host sweep's units of frame g for an interior functor of type FI.
template <class FI>
FrameUnits frame_units(const Frame& g) {
  FrameUnits units{g, 1};
  if constexpr (has_rows<FI>::value) units.block = FI::block_rows;
  return units;
}

/// Host: unit u (FrameUnits) of shot s of one frame step: a band row with its corners, or a
/// block of interior rows with the strip cells of its rows right after it while they are in
/// cache.
template <class FI, class FS, class FB, class FC>
void host_frame_unit(const FrameUnits& units, int s, int u, const FI& inner, const FS& side,
                     const FB& band, const FC& corner) {
  const Frame& g = units.g;
  if (u < units.top() || u >= units.top() + units.blocks()) {  // a band row with its corners
    const int iz = units.first_row(u);
    host_rows(corner, s, iz, 1, 0, g.x0);
    host_rows(band, s, iz, 1, g.x0, g.x1);
    host_rows(corner, s, iz, 1, g.x1, g.nx);
    return;
  }
  const int iz = units.first_row(u), n = std::min(units.block, g.z1 - iz);
  host_rows(inner, s, iz, n, g.x0, g.x1);
  if constexpr (has_rows<FS>::value) {
    if (n <= FS::block_rows) {
      host_rows(side, s, iz, n, 0, g.x0);
      host_rows(side, s, iz, n, g.x1, g.nx);
      return;
    }
  }
  for (int r = iz; r < iz + n; ++r) {
    host_rows(side, s, r, 1, 0, g.x0);
    host_rows(side, s, r, 1, g.x1, g.nx);
  }
}

/// One step over the whole padded grid: `inner` on the interior, `side` on the strips, `band`
/// on the bands, `corner` on the corners, for shots [0, ns).
///
/// Host backends sweep the grid once per step, top to bottom, unit by unit (FrameUnits):
/// interior rows in blocks of `FI::block_rows` (when FI has rows()), each block with the strip
/// cells of its rows right after it while they are in cache, band rows one at a time with their
/// corners. The separate launches GPUs use would stream every row a second time for its 2 x 20
/// strip cells and run them at a fraction of the interior rate. GPU backends launch one MDRange
/// per region.
template <class Exec, class FI, class FS, class FB, class FC>
void for_each_frame_cell(const char* name, const Exec& exec, int ns, const Frame& g,
                         const FI& inner, const FS& side, const FB& band, const FC& corner) {
  if (ns <= 0 || g.nz <= 0 || g.nx <= 0) return;
  if constexpr (uses_row_paths<Exec>()) {
    const FrameUnits units = frame_units<FI>(g);
    const int per_shot = units.count();
    Kokkos::parallel_for(
        name, Kokkos::RangePolicy<Exec>(exec, 0, long(ns) * per_shot), [=](const long k) {
          host_frame_unit(units, int(k / per_shot), int(k % per_shot), inner, side, band, corner);
        });
  } else {
    for_each_cell(name, exec, ns, g.z0, g.z1, g.x0, g.x1, inner);
    for_each_cell(name, exec, ns, g.z0, g.z1, 0, g.x0, side);
    for_each_cell(name, exec, ns, g.z0, g.z1, g.x1, g.nx, side);
    for_each_cell(name, exec, ns, 0, g.z0, g.x0, g.x1, band);
    for_each_cell(name, exec, ns, g.z1, g.nz, g.x0, g.x1, band);
    for_each_cell(name, exec, ns, 0, g.z0, 0, g.x0, corner);
    for_each_cell(name, exec, ns, 0, g.z0, g.x1, g.nx, corner);
    for_each_cell(name, exec, ns, g.z1, g.nz, 0, g.x0, corner);
    for_each_cell(name, exec, ns, g.z1, g.nz, g.x1, g.nx, corner);
  }
}

}  // namespace pwave::backend
