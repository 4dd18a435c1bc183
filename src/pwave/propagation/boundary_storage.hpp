#pragma once
// The `boundary` storage strategy, its history (FrameHistory) and kernels: the frame (CPML strips +
// a radius-wide band inside them) is saved every forward step; going backwards, the interior is
// rebuilt by running the leapfrog step in reverse, u^{n-1} = 2 u^n - u^{n+1} + w (D2 u^n + f^n),
// and the frame is restored from storage.

#include <string>
#include <utility>
#include <vector>

#include "backends/launch.hpp"
#include "pwave/physics/acoustic/kernels.hpp"
#include "pwave/physics/point_sources.hpp"

namespace pwave::propagation {

/// The frame: padded-grid cells outside the box [z_lo, z_hi) x [y_lo, y_hi) x [x_lo, x_hi). The
/// box is the model minus a stencil radius next to each CPML layer; sides without a layer
/// (rigid or free surface) need no band, their boundary condition being reversible. In 2D
/// ny = 1 and the box spans y = [0, 1).
struct FrameRegion {
  int nz = 0, nx = 0, z_lo = 0, z_hi = 0, x_lo = 0, x_hi = 0;
  int ny = 1, y_lo = 0, y_hi = 1;
  int halo = 0, hy = 0, ys = 0;  ///< wavefield column map (see AcousticState::column)

  FrameRegion() = default;
  /// The frame of the strips pad_* wide and a band `band` cells wide inside them. Its wavefield
  /// column map is zero (counting only) until on_columns() gives one.
  FrameRegion(int nz_, int nx_, int pad_top, int pad_bottom, int pad_left, int pad_right, int band,
              int ny_ = 1, int pad_front = 0, int pad_back = 0)
      : nz(nz_), nx(nx_), ny(ny_) {
    z_lo = pad_top > 0 ? std::min(pad_top + band, nz) : 0;
    z_hi = pad_bottom > 0 ? std::max(nz - pad_bottom - band, z_lo) : nz;
    x_lo = pad_left > 0 ? std::min(pad_left + band, nx) : 0;
    x_hi = pad_right > 0 ? std::max(nx - pad_right - band, x_lo) : nx;
    y_lo = pad_front > 0 ? std::min(pad_front + band, ny) : 0;
    y_hi = pad_back > 0 ? std::max(ny - pad_back - band, y_lo) : ny;
  }
  /// The same frame of wavefields with column map (halo, hy, ys) (see AcousticState::column).
  FrameRegion on_columns(int halo_, int hy_, int ys_) const {
    FrameRegion r = *this;
    r.halo = halo_, r.hy = hy_, r.ys = ys_;
    return r;
  }
  KOKKOS_INLINE_FUNCTION long plane() const { return long(ny) * nx; }
  KOKKOS_INLINE_FUNCTION long top_cells() const { return long(z_lo) * plane(); }
  KOKKOS_INLINE_FUNCTION long bottom_cells() const { return long(nz - z_hi) * plane(); }
  /// Frame cells of one depth inside [z_lo, z_hi): front and back slabs, left and right strips.
  KOKKOS_INLINE_FUNCTION long ring_cells() const {
    return long(y_lo) * nx + long(ny - y_hi) * nx + long(y_hi - y_lo) * (x_lo + nx - x_hi);
  }
  KOKKOS_INLINE_FUNCTION long size() const {
    return top_cells() + bottom_cells() + long(z_hi - z_lo) * ring_cells();
  }
  /// Cell k of the frame: the top slab, the bottom slab, then depth by depth the front slab,
  /// the back slab, and the left and right strips line by line.
  KOKKOS_INLINE_FUNCTION void cell(long k, int& iz, int& iy, int& ix) const {
    if (k < top_cells() + bottom_cells()) {
      const bool top = k < top_cells();
      if (!top) k -= top_cells();
      iz = (top ? 0 : z_hi) + int(k / plane());
      const long r = k % plane();
      iy = int(r / nx), ix = int(r % nx);
      return;
    }
    k -= top_cells() + bottom_cells();
    const long ring = ring_cells();
    iz = z_lo + int(k / ring);
    long r = k % ring;
    const long front = long(y_lo) * nx, back = long(ny - y_hi) * nx;
    if (r < front) {
      iy = int(r / nx), ix = int(r % nx);
      return;
    }
    r -= front;
    if (r < back) {
      iy = y_hi + int(r / nx), ix = int(r % nx);
      return;
    }
    r -= back;
    const int w = x_lo + nx - x_hi;  // frame cells of one line: left then right strip
    iy = y_lo + int(r / w);
    const int c = int(r % w);
    ix = c < x_lo ? c : x_hi + (c - x_lo);
  }
  /// The inverse of cell(): the frame index of frame cell (iz, iy, ix).
  KOKKOS_INLINE_FUNCTION long index(int iz, int iy, int ix) const {
    if (iz < z_lo) return long(iz) * plane() + long(iy) * nx + ix;
    if (iz >= z_hi) return top_cells() + long(iz - z_hi) * plane() + long(iy) * nx + ix;
    long k = top_cells() + bottom_cells() + long(iz - z_lo) * ring_cells();
    if (iy < y_lo) return k + long(iy) * nx + ix;
    k += long(y_lo) * nx;
    if (iy >= y_hi) return k + long(iy - y_hi) * nx + ix;
    k += long(ny - y_hi) * nx + long(iy - y_lo) * (x_lo + nx - x_hi);
    return k + (ix < x_lo ? ix : x_lo + (ix - x_hi));
  }
  /// Whether the whole x line (iz, iy) is frame (else only [0, x_lo) and [x_hi, nx) are).
  KOKKOS_INLINE_FUNCTION bool whole_line(int iz, int iy) const {
    return iz < z_lo || iz >= z_hi || iy < y_lo || iy >= y_hi;
  }
  /// Halo-layout wavefield column, and the [nz][ny nx] plane index, of padded cell (iy, ix).
  KOKKOS_INLINE_FUNCTION int column(int iy, int ix) const { return (iy + hy) * ys + ix + halo; }
  KOKKOS_INLINE_FUNCTION int plane_index(int iy, int ix) const { return iy * nx + ix; }
  KOKKOS_INLINE_FUNCTION bool inside_box(int iz, int iy, int ix) const {
    return iz >= z_lo && iz < z_hi && iy >= y_lo && iy < y_hi && ix >= x_lo && ix < x_hi;
  }
};

/// The `boundary` history: the frame of u^n for n = 0..nt of every shot. Memory: nt + 1 frames
/// per shot, which grows with the perimeter of the grid, not its area. An equation whose state
/// has several fields keeps the frame of each (`fields`, side by side in a frame slot), and one
/// whose CPML memory variables cannot be run backwards (the elastic equation's: psi^{n-1} =
/// (psi^n - b g) / a grows without bound) keeps them whole (`memory`, one per variable, in its
/// strip layout) every step too.
template <class T>
struct FrameHistory {
  using Frames = Kokkos::View<T***, Kokkos::LayoutRight, MemSpace>;   ///< [n][shot][frame cell]
  using Memory = Kokkos::View<T****, Kokkos::LayoutRight, MemSpace>;  ///< [n][shot][rows][cols]
  Frames frames;               ///< field j's frame at [j size, (j + 1) size) of a slot
  std::vector<Memory> memory;  ///< whole memory variables (none for the acoustic equations)

  /// Bytes per shot for the frame `region` of `fields` fields and memory variables of
  /// `memory_cells` cells in all: nt + 1 of each.
  static double bytes_per_shot(const FrameRegion& region, int nt, int fields = 1,
                               double memory_cells = 0) {
    const double cells = double(region.size()) * fields + memory_cells;
    return (nt + 1) * cells * sizeof(T);
  }
  /// Room for `count` shots of an nt-step run, uninitialised (forward() writes every frame before
  /// the backward run reads it); `memory`: the memory variables to keep whole.
  static FrameHistory allocate(const FrameRegion& region, int nt, int count, int fields = 1,
                               const std::vector<Field<T>>& memory = {}) {
    const auto uninit = [](const std::string& name) {
      return Kokkos::view_alloc(name, Kokkos::WithoutInitializing);
    };
    FrameHistory h;
    h.frames = Frames(uninit("pwave::history_frame"), nt + 1, count, region.size() * fields);
    for (const Field<T>& m : memory) {
      h.memory.emplace_back(uninit("pwave::history_memory"), nt + 1, count, m.extent(1),
                            m.extent(2));
    }
    return h;
  }
  /// Whether it has room for the nt + 1 frames of `count` shots.
  bool holds(int nt, int count) const {
    return frames.extent(0) == std::size_t(nt) + 1 && int(frames.extent(1)) >= count;
  }
  /// Copies the memory variables `fields` (allocate()'s), shots [0, count), into slot n
  /// (`Restore` false) or from it (true).
  template <bool Restore>
  void copy_memory(const ExecSpace& exec, const std::vector<Field<T>>& fields, int n,
                   int count) const {
    const auto shots = std::make_pair(0, count);
    for (std::size_t k = 0; k < fields.size(); ++k) {
      const auto slot = Kokkos::subview(memory[k], n, shots, Kokkos::ALL, Kokkos::ALL);
      const auto field = Kokkos::subview(fields[k], shots, Kokkos::ALL, Kokkos::ALL);
      if constexpr (Restore) {
        Kokkos::deep_copy(exec, field, slot);
      } else {
        Kokkos::deep_copy(exec, slot, field);
      }
    }
  }
};

/// Host: f.segment(s, iz, iy, x0, x1, k0) for the frame cells of x line (iz, iy) of shot s, the
/// whole line or its left and right strips, in the order they are stored.
template <class F>
void stored_segments_of_line(const FrameRegion& region, const F& f, int s, int iz, int iy) {
  if (region.whole_line(iz, iy)) {
    f.segment(s, iz, iy, 0, region.nx, region.index(iz, iy, 0));
    return;
  }
  if (region.x_lo > 0) f.segment(s, iz, iy, 0, region.x_lo, region.index(iz, iy, 0));
  if (region.x_hi < region.nx) {
    f.segment(s, iz, iy, region.x_hi, region.nx, region.index(iz, iy, region.x_hi));
  }
}

/// Calls f(s, k) for every shot s in [0, ns) and frame cell k. GPUs launch it cell by cell;
/// host backends call f.segment(s, iz, iy, x0, x1, k0) once per run of frame cells along an x
/// line (cells [x0, x1) of line (iz, iy) are frame cells k0, k0 + 1, ...): the frame is stored
/// in that order, so a segment is a contiguous copy, with no index decoding per cell.
template <class Exec, class F>
void for_each_stored_cell(const char* name, const Exec& exec, int ns, const FrameRegion& region,
                          const F& f) {
  if (ns <= 0 || region.size() <= 0) return;
  if constexpr (backend::uses_row_paths<Exec>()) {
    const long lines = long(region.nz) * region.ny;
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Exec>(exec, 0, long(ns) * lines),
                         [=](const long item) {
                           const int s = int(item / lines), iz = int(item % lines / region.ny);
                           stored_segments_of_line(region, f, s, iz, int(item % region.ny));
                         });
  } else {
    using Policy = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Kokkos::IndexType<long>>;
    Kokkos::parallel_for(
        name, Policy(exec, {0, 0}, {long(ns), region.size()}),
        KOKKOS_LAMBDA(const long s, const long k) { f(int(s), k); });
  }
}

/// The frame of up to 9 fields (halo layout) copied into slot n of a history (`Restore` false)
/// or back from it (true): field j's frame cells at [(first + j) size, (first + j + 1) size) of
/// the slot, size = region.size(). Launched with for_each_stored_cell.
template <class T, bool Restore>
struct FrameFields {
  typename FrameHistory<T>::Frames frames;
  Field<T> field[9];
  int fields = 0, first = 0;
  FrameRegion region;
  int n = 0;

  KOKKOS_INLINE_FUNCTION void operator()(int s, long k) const {
    int iz, iy, ix;
    region.cell(k, iz, iy, ix);
    const int z = iz + region.halo, x = region.column(iy, ix);
    const long size = region.size();
    for (int j = 0; j < fields; ++j) {
      T& slot = frames(n, s, (first + j) * size + k);
      if constexpr (Restore) {
        field[j](s, z, x) = slot;
      } else {
        slot = field[j](s, z, x);
      }
    }
  }
  /// Host path: frame cells k0.. are cells [x0, x1) of line (iz, iy).
  void segment(int s, int iz, int iy, int x0, int x1, long k0) const {
    const long size = region.size();
    for (int j = 0; j < fields; ++j) {
      T* PWAVE_RESTRICT u = &field[j](s, iz + region.halo, region.column(iy, x0));
      T* PWAVE_RESTRICT h = &frames(n, s, (first + j) * size + k0);
      for (int i = 0; i < x1 - x0; ++i) {
        if constexpr (Restore) {
          u[i] = h[i];
        } else {
          h[i] = u[i];
        }
      }
    }
  }
};

/// A state's share of a FrameHistory: the frame of its `fields` (at most 9) and its `memory`
/// variables whole, the state before step n in slot n. Fields [0, split) and [split, size)
/// restore separately (an equation undoing its step in two halves: the elastic velocities, then
/// the stresses with every memory variable). Its launches are built once (the slot is their one
/// per-step value).
template <class T>
class StateFrames {
 public:
  StateFrames(const FrameHistory<T>& history, const std::vector<Field<T>>& fields,
              const std::vector<Field<T>>& memory, const FrameRegion& region, int split = 0)
      : history_(history), memory_(memory), region_(region) {
    const int size = int(fields.size());
    all_ = copy<false>(fields, 0, size);
    leading_ = copy<true>(fields, 0, split);
    trailing_ = copy<true>(fields, split, size);
  }
  /// The state (shots [0, count)) into slot n.
  void store(const ExecSpace& exec, int count, int n) const {
    launch("pwave::propagation::store_frame", exec, count, all_, n);
    history_.template copy_memory<false>(exec, memory_, n, count);
  }
  /// Whether store_rows() keeps everything store() keeps: no memory variables kept whole.
  bool stores_by_rows() const { return memory_.empty(); }
  /// Host wavefronts (one shot's on one thread): the frame cells of rows [z0, z1) of shot s
  /// into slot n. Only for a state that stores_by_rows() (the acoustic equations').
  void store_rows(int s, int n, int z0, int z1) const {
    FrameFields<T, false> f = all_;
    f.n = n;
    for (int iz = z0; iz < z1; ++iz) {
      for (int iy = 0; iy < region_.ny; ++iy) stored_segments_of_line(region_, f, s, iz, iy);
    }
  }
  /// The frames of fields [0, split) from slot n.
  void restore_leading(const ExecSpace& exec, int count, int n) const {
    launch("pwave::propagation::restore_frame", exec, count, leading_, n);
  }
  /// The frames of fields [split, size) and every memory variable from slot n.
  void restore_trailing(const ExecSpace& exec, int count, int n) const {
    launch("pwave::propagation::restore_frame", exec, count, trailing_, n);
    history_.template copy_memory<true>(exec, memory_, n, count);
  }

 private:
  /// The copy of fields w[j0, j1).
  template <bool Restore>
  FrameFields<T, Restore> copy(const std::vector<Field<T>>& w, int j0, int j1) const {
    FrameFields<T, Restore> f;
    f.frames = history_.frames, f.region = region_, f.first = j0, f.fields = j1 - j0;
    for (int j = j0; j < j1; ++j) f.field[j - j0] = w[std::size_t(j)];
    return f;
  }
  template <class F>
  void launch(const char* label, const ExecSpace& exec, int count, F f, int n) const {
    if (f.fields == 0) return;
    f.n = n;
    for_each_stored_cell(label, exec, count, region_, f);
  }

  FrameHistory<T> history_;
  std::vector<Field<T>> memory_;
  FrameRegion region_;
  FrameFields<T, false> all_;
  FrameFields<T, true> leading_, trailing_;
};

/// The forward loop's keeper of a FrameHistory (forward_loop.hpp): the frames of the state each
/// step starts from (`steps.frame_fields(p)`, `steps.frame_memory(p)`: the equation's fields
/// kept on the frame, and its memory variables kept whole) in slot n, the state after the last
/// step in slot nt.
template <class T>
class KeepFrames {
 public:
  template <class Steps>
  KeepFrames(const FrameHistory<T>& history, const Steps& steps, const FrameRegion& region,
             int count)
      : parity_{{history, steps.frame_fields(0), steps.frame_memory(0), region},
                {history, steps.frame_fields(1), steps.frame_memory(1), region}},
        count_(count) {}
  void before(const ExecSpace& exec, int p, int n) const { parity_[p].store(exec, count_, n); }
  void after(const ExecSpace&, int, int) const {}
  void finish(const ExecSpace& exec, int p, int n) const { parity_[p].store(exec, count_, n); }
  /// Whether before_rows() can stand for before(): the state keeps no memory variables whole.
  bool keeps_by_rows() const { return parity_[0].stores_by_rows() && parity_[1].stores_by_rows(); }
  /// Host wavefronts: before() for rows [z0, z1) of shot s, as the sweep reaches them. Only
  /// where keeps_by_rows().
  void before_rows(int p, int s, int n, int z0, int z1) const {
    parity_[p].store_rows(s, n, z0, z1);
  }

 private:
  const StateFrames<T> parity_[2];
  const int count_;
};

/// On the frame at backward step n: adds G^{n+1} (u^{n+1} - 2 u^n + u^{n-1}) to the per-shot
/// imaging sum (see AccumulateGradient), then overwrites u^{n+1} (in `u_next`) with the stored
/// u^{n-1}.
template <class T>
struct FrameImageRestore {
  typename FrameHistory<T>::Frames frames;
  Field<T> u_next, u_cur, g, acc;  ///< acc: [shot][nz][ny nx], no halo
  FrameRegion region;
  int n, halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, long k) const {
    int iz, iy, ix;
    region.cell(k, iz, iy, ix);
    const int z = iz + halo, x = region.column(iy, ix);
    const T older = n > 0 ? frames(n - 1, s, k) : T(0);
    acc(s, iz, region.plane_index(iy, ix)) +=
        g(s, z, x) * (u_next(s, z, x) - T(2) * u_cur(s, z, x) + older);
    u_next(s, z, x) = older;
  }
  /// Host path: frame cells k0.. are cells [x0, x1) of line (iz, iy).
  void segment(int s, int iz, int iy, int x0, int x1, long k0) const {
    const int z = iz + halo, x = region.column(iy, x0);
    T* PWAVE_RESTRICT un = &u_next(s, z, x);
    const T* PWAVE_RESTRICT uc = &u_cur(s, z, x);
    const T* PWAVE_RESTRICT gg = &g(s, z, x);
    T* PWAVE_RESTRICT aa = &acc(s, iz, region.plane_index(iy, x0));
    const T* PWAVE_RESTRICT older = n > 0 ? &frames(n - 1, s, k0) : nullptr;
    PWAVE_SIMD
    for (int i = 0; i < x1 - x0; ++i) {
      const T o = older ? older[i] : T(0);
      aa[i] += gg[i] * (un[i] - T(2) * uc[i] + o);
      un[i] = o;
    }
  }
};

/// In the box: rebuilds u^{n-1} = 2 u^n - u^{n+1} + w D2 u^n over u^{n+1}, and adds the
/// imaging term G^{n+1} w D2 u^n (= G (u^{n+1} - 2u^n + u^{n-1}) there without the source term,
/// added separately; computed from the Laplacian to avoid the cancellation of the difference).
/// The cell-wise form (GPUs); hosts run it as InteriorStep::rows_imaging / lines_imaging, through
/// ReverseStepBox.
template <class T, int Order, int Dim = 2>
struct ReconstructImage {
  static constexpr int R = physics::Stencil<Order>::radius;
  static constexpr int radius = R;
  using value_type = T;
  Field<T> u_next, u_cur, g, acc;
  GridView<T> w;
  physics::ScaledStencil<T, Order> c;
  int halo;
  int hy = 0, ys = 0, nx = 0;  ///< 3D: y halo, column stride of y, padded nx

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const int z = iz + halo, x = (iy + hy) * ys + ix + halo;
    update(s, iz, iy, ix, physics::ViewTaps<T, Field<T>>{u_cur, s, z, x, ys});
  }
  /// The cell's update with u^n's taps from `t` (operator(): from u_cur; the z-marching launch,
  /// backends/z_march.hpp: from registers and team scratch).
  template <class Taps>
  KOKKOS_INLINE_FUNCTION void update(int s, int iz, int iy, int ix, const Taps& t) const {
    const int z = iz + halo, x = (iy + hy) * ys + ix + halo, q = iy * nx + ix;
    const T wlap = w(iz, q) * c.template laplacian_of<Dim>(t);
    u_next(s, z, x) = T(2) * t.center() - u_next(s, z, x) + wlap;
    acc(s, iz, q) += g(s, z, x) * wlap;
  }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
};

/// The box of a backward step under boundary storage in one sweep: the reversed forward step
/// with its imaging term (ReconstructImage, on u) and the adjoint step there (the forward
/// interior update on G). Neither reads what the other writes (u^{n-1} over u^{n+1}, G^n over
/// G^{n+2}; both read G^{n+1}, which neither writes), so the cell order is free: hosts run both
/// on each block of rows (2D) or x lines (3D) while its v^2 dt^2 and G^{n+1} are in cache,
/// GPUs both in each cell's thread.
template <class T, int Order, int Dim = 2>
struct ReverseStepBox {
  static constexpr bool host_rows = true;   ///< promises row()/rows() (backends/launch.hpp)
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  using Step = physics::InteriorStep<T, Order, Dim>;
  static constexpr int block_rows = Step::block_rows;
  static constexpr int block_lines = Step::block_lines;
  ReconstructImage<T, Order, Dim> rebuild;
  Step adjoint;
  Step rebuild_rows;  ///< rebuild's update, for the host row/line paths

  /// `r.g` is not read: the imaging's G^{n+1} is the adjoint step's current field, set here so
  /// that the cell-wise and host paths cannot image with different fields.
  ReverseStepBox(const ReconstructImage<T, Order, Dim>& r, const Step& a)
      : rebuild(r),
        adjoint(a),
        rebuild_rows(r.u_next, r.u_cur, r.w, r.c, r.halo, r.hy, r.ys, r.nx) {
    rebuild.g = adjoint.u_cur;
  }

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    rebuild(s, iz, ix);
    adjoint(s, iz, ix);
  }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    rebuild(s, iz, iy, ix);
    adjoint(s, iz, iy, ix);
  }
  /// Host path (2D): rows [iz, iz + n), both updates in one pass (the imaging's G^{n+1} is the
  /// adjoint step's current field: InteriorStep::rows_reverse_and_adjoint).
  void rows(int s, int iz, int n, int x0, int x1) const {
    rebuild_rows.rows_reverse_and_adjoint(s, iz, n, x0, x1, adjoint, rebuild.acc);
  }
  /// Host path (3D): the x lines (iz + r, iy), r < n.
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    rebuild_rows.lines_imaging(s, iz, n, iy, x0, x1, adjoint.u_cur, rebuild.acc);
    adjoint.lines(s, iz, n, iy, x0, x1);
  }
};

/// The source term of the reversed step and of the imaging condition at source taps inside the
/// box (taps in the frame are covered by the stored values). One thread per shot.
template <class T>
struct ReconstructSource {
  Field<T> u_next, g, acc;
  GridView<T> w;
  physics::PointTaps<T> source;      ///< [shot][0][tap]
  physics::SlotWavelets<T> wavelet;  ///< [shot][time]: s(t_n) / cell volume
  FrameRegion region;
  int n, halo, first_shot;
  KOKKOS_INLINE_FUNCTION void operator()(int s) const {
    for (int k = 0; k < source.taps(); ++k) tap(s, k);
  }
  /// Tap k of shot s (host wavefronts: the taps of each group of rows as the sweep reaches it).
  KOKKOS_INLINE_FUNCTION void tap(int s, int k) const {
    const physics::ColumnMap column{region.nx, region.hy, region.ys, halo};
    const physics::GridTap<T> t = source.at(first_shot + s, 0, k, column);
    const int iy = t.q / region.nx, ix = t.q % region.nx;
    if (t.h == T(0) || !region.inside_box(t.iz, iy, ix)) return;
    const T wf = w(t.iz, t.q) * wavelet(first_shot + s, n) * t.h;
    u_next(s, t.z, t.x) += wf;
    acc(s, t.iz, t.q) += g(s, t.z, t.x) * wf;
  }
};

}  // namespace pwave::propagation
