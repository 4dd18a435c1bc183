#pragma once
// Variable-density acoustic equation, second-order form in the pressure-like field u:
//
//   u_tt = K div(b grad u) + v^2 s(t) delta(x - x_s),   K = rho v^2,  b = 1/rho
//
// on the padded grid of the constant-density scheme (same wavefields, halo, strips, history):
//
//   u^{n+1} = 2 u^n - u^{n-1} + w sum_a L_a u^n + v^2 dt^2 s^n / V,   w = K dt^2
//   L_a u   = D-_a f_a + zeta_a,   f_a = beta_a (D+_a u + psi_a)       (a = x, z [, y])
//
// D+ takes cells to the half points x_{j+1/2} (stored at index j), D- half points back to cells,
// both the staggered order-`Order` first derivative (StaggeredStencil):
//   (D+ u)_j = sum_k c_k (u_{j+k} - u_{j+1-k}) / h,   (D- f)_i = sum_k c_k (f_{i+k-1} - f_{i-k}) /
//   h
// so that D-^T = -D+ and L is symmetric: the adjoint in G = w lambda is the same update.
// beta_a = (b_j + b_{j+1}) / 2 at half point j (the harmonic mean of the density; the last half
// point takes b of the last cell). CPML (strips only, same profile as the constant-density
// scheme): psi^n = a_h psi^{n-1} + b_h D+ u^n at half points, zeta^n = a zeta^{n-1} + b D- f at
// cells: the two recursive convolutions of d/dx (1/s) beta d/dx (1/s) u.
//
// A step is two launches: `Flux` computes every axis' f on the whole padded grid (buffers in the
// wavefield's halo layout, halo zero), `Update` the new u. With a free surface at padded row 0
// (u_0 = 0, u_{-k} = -u_k) the z flux is mirrored into the top halo (f_{-1-j} = f_j). Host
// backends in 2D launch them on the z strips only and update the rows between them (the x
// strips included) with `FusedStep`, whose flux stays in registers and row buffers.

#include <algorithm>
#include <array>

#include "pwave/physics/acoustic/kernels.hpp"

namespace pwave::physics::acoustic_vd {

/// Staggered coefficients divided by the spacing, per axis (y zero in 2D).
template <class T, int Order>
struct Coefficients {
  static constexpr int radius = StaggeredStencil<Order>::radius;
  T x[radius + 1], z[radius + 1], y[radius + 1];
  Coefficients(double dz, double dx, double dy = 0.0) {
    for (int k = 0; k <= radius; ++k) {
      const double c = k == 0 ? 0.0 : StaggeredStencil<Order>::c(k);
      x[k] = T(c / dx);
      z[k] = T(c / dz);
      y[k] = dy > 0 ? T(c / dy) : T(0);
    }
  }
};

/// Device data of the variable-density scheme on top of the shared acoustic state: `st.v2dt2`
/// is v^2 dt^2 (the source scale), `w` = rho v^2 dt^2 (the operator's), st.psi_* hold psi at
/// half points and st.zeta_* zeta at cells (both in the strip layouts).
template <class T>
struct State {
  AcousticState<T> st;
  GridView<T> w;                       ///< [nz][ny nx] rho v^2 dt^2
  GridView<T> beta_x, beta_z, beta_y;  ///< [nz][ny nx] buoyancy at the half point after a cell
  CpmlAxis<T> hx, hz, hy;              ///< a, b at half points (ab, db unused)
  Field<T> flux_x, flux_z, flux_y;     ///< halo layout, as u
};

/// Index of cell (iy, ix)'s x-strip memory variable (the cell must lie in an x strip).
template <class T>
KOKKOS_INLINE_FUNCTION int x_strip_index(const AcousticState<T>& st, int iy, int ix) {
  return iy * (st.strip_left + st.strip_right) + x_strip_column(st, ix);
}

/// (D+ u) at the half point after a cell: sum_k c_k (u(k) - u(1 - k)), where u(j) is the value
/// j cells further along the axis. The one formula of the flux, for the cell operators and the
/// host row paths alike (the accessor is a view lookup or a raw pointer offset; T a scalar, or
/// on the host vector paths a host vector with the coefficients broadcast).
template <int R, class T, class U>
KOKKOS_FORCEINLINE_FUNCTION T d_plus(const T* c, const U& u) {
  T g{};
  PWAVE_UNROLL
  for (int k = 1; k <= R; ++k) g += c[k] * (u(k) - u(1 - k));
  return g;
}

/// (D- f) at a cell: sum_k c_k (f(k - 1) - f(-k)), f(j) the half point j after the cell's own.
template <int R, class T, class F>
KOKKOS_FORCEINLINE_FUNCTION T d_minus(const T* c, const F& f) {
  T h{};
  PWAVE_UNROLL
  for (int k = 1; k <= R; ++k) h += c[k] * (f(k - 1) - f(-k));
  return h;
}

/// The leapfrog update of a cell: 2 u^n - u^{n-1} + w L u^n (T a scalar or a host vector: the
/// literal 2 converts to either).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T leapfrog(T u, T u_prev, T w, T lap) {
  return 2 * u - u_prev + w * lap;
}

/// The leapfrog run backwards (boundary storage's reversed step): u^{n-1} = 2 u^n - u^{n+1} +
/// w L u^n written over u^{n+1} (`u_next`), the forward's arithmetic with the product w L u^n
/// kept for the imaging term of dJ/dw, acc += G^{n+1} w L u^n. The one formula of cells, rows
/// and the fused rows (T a scalar or a host vector).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void reverse_leapfrog(T u, T& u_next, T w, T lap, T g, T& acc) {
  const T wl = w * lap;
  u_next = 2 * u - u_next + wl;
  acc += g * wl;
}

/// The CPML memory term of one axis at a point: m <- a m + b g, returns g + m (psi and the
/// flux at a half point, zeta and D- f at a cell). The one formula for cells and rows. The
/// products are named in order (see elastic::normal_stress: the FMA the compiler forms takes the
/// first one computed).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T cpml_memory(T& m, T a, T b, T g) {
  const T decay = a * m;
  const T gain = b * g;
  m = decay + gain;
  return g + m;
}

/// The memory variables and CPML profile of one x line of a strip box (host row paths): m_a at
/// grid column ix of the line is m_a[ix]; the x profile varies along the line, the z and y
/// ones are the line's values. Null / zero for the axes whose strips the box is not in.
template <class T>
struct StripLine {
  T *mx = nullptr, *mz = nullptr, *my = nullptr;
  const T *ax = nullptr, *bx = nullptr;
  T az = 0, bz = 0, ay = 0, by = 0;

  /// Line (iz, iy) of shot s, cells from x0 on (all in one box: for InX, all in the left or
  /// all in the right strip): memory variables `mx`, `mz`, `my` (psi or zeta, in the strip
  /// layouts of AcousticState), profiles `px`, `pz`, `py` (a, b).
  template <bool InX, bool InZ, bool InY>
  static StripLine at(const AcousticState<T>& st, const Field<T>& mx, const Field<T>& mz,
                      const Field<T>& my, const CpmlAxis<T>& px, const CpmlAxis<T>& pz,
                      const CpmlAxis<T>& py, int s, int iz, int iy, int x0) {
    StripLine l;
    if constexpr (InX) {
      l.mx = &mx(s, iz, iy * (st.strip_left + st.strip_right) + x_strip_column(st, x0)) - x0;
      l.ax = px.a.data();
      l.bx = px.b.data();
    }
    if constexpr (InZ) {
      l.mz = &mz(s, z_strip_row(st, iz), st.plane(iy, 0));
      l.az = pz.a(iz), l.bz = pz.b(iz);
    }
    if constexpr (InY) {
      l.my = &my(s, iz, y_strip_line(st, iy) * st.nx);
      l.ay = py.a(iy), l.by = py.b(iy);
    }
    return l;
  }
};

/// First launch of a step: f_a = beta_a (D+_a u^n + psi_a^n) at every half point after a cell
/// of the launched box, advancing psi in the strips the box lies in (InX, InZ, InY).
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct Flux {
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static constexpr int R = StaggeredStencil<Order>::radius;
  /// Rows (3D: depths) one lines() call takes.
  static constexpr int block_lines = 4;
  State<T> v;
  Coefficients<T, Order> c;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const AcousticState<T>& st = v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys, q = st.plane(iy, ix);
    const auto& u = st.u_cur;
    T gx = d_plus<R>(c.x, [&](int j) { return u(s, z, x + j); });
    T gz = d_plus<R>(c.z, [&](int j) { return u(s, z + j, x); });
    T gy = 0;
    if constexpr (Dim == 3) gy = d_plus<R>(c.y, [&](int j) { return u(s, z, x + j * ys); });
    if constexpr (InX)
      gx = cpml_memory(st.psi_x(s, iz, x_strip_index(st, iy, ix)), v.hx.a(ix), v.hx.b(ix), gx);
    if constexpr (InZ)
      gz = cpml_memory(st.psi_z(s, z_strip_row(st, iz), q), v.hz.a(iz), v.hz.b(iz), gz);
    if constexpr (InY) {
      gy = cpml_memory(st.psi_y(s, iz, y_strip_line(st, iy) * st.nx + ix), v.hy.a(iy), v.hy.b(iy),
                       gy);
    }
    v.flux_x(s, z, x) = v.beta_x(iz, q) * gx;
    v.flux_z(s, z, x) = v.beta_z(iz, q) * gz;
    if constexpr (Dim == 3) v.flux_y(s, z, x) = v.beta_y(iz, q) * gy;
  }

  /// Host path (backends/launch.hpp): the x lines (iz + r, iy), r < n, cells [x0, x1) (all in
  /// one box): operator()'s formula on raw pointers in a contiguous x loop, the strip lookups
  /// resolved once per line (StripLine).
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    const AcousticState<T>& st = v.st;
    const int col = st.column(iy, 0), q = st.plane(iy, 0);
    for (int r = iz; r < iz + n; ++r) {
      const int z = r + st.halo;
      T* fy = nullptr;
      const T* by = nullptr;
      if constexpr (Dim == 3) fy = &v.flux_y(s, z, col), by = &v.beta_y(r, q);
      StripLine<T> m;
      if constexpr (InX || InZ || InY) {
        m = StripLine<T>::template at<InX, InZ, InY>(st, st.psi_x, st.psi_z, st.psi_y, v.hx, v.hz,
                                                     v.hy, s, r, iy, x0);
      }
      row(c, &st.u_cur(s, z, col), &v.flux_x(s, z, col), &v.flux_z(s, z, col), fy, &v.beta_x(r, q),
          &v.beta_z(r, q), by, long(st.u_cur.stride(1)), long(st.ys), x0, x1, m);
    }
  }

  /// The flux of cells [x0, x1) of one x line: u, f_a at grid column 0 of the line (halo
  /// layout), beta_a at column 0 of its [z][ny nx] row; zs, ys the strides of a z and a y step
  /// of u; `m` psi and the profile of the strips the line lies in.
  static void row(const Coefficients<T, Order>& c, const T* PWAVE_RESTRICT u, T* PWAVE_RESTRICT fx,
                  T* PWAVE_RESTRICT fz, T* PWAVE_RESTRICT fy, const T* PWAVE_RESTRICT bx,
                  const T* PWAVE_RESTRICT bz, const T* PWAVE_RESTRICT by, long zs, long ys, int x0,
                  int x1, const StripLine<T>& m = {}) {
    T* PWAVE_RESTRICT mx = m.mx;
    T* PWAVE_RESTRICT mz = m.mz;
    T* PWAVE_RESTRICT my = m.my;
    PWAVE_SIMD
    for (int i = x0; i < x1; ++i) {
      const T* p = u + i;
      T gx = d_plus<R>(c.x, [&](int j) { return p[j]; });
      T gz = d_plus<R>(c.z, [&](int j) { return p[j * zs]; });
      if constexpr (InX) gx = cpml_memory(mx[i], m.ax[i], m.bx[i], gx);
      if constexpr (InZ) gz = cpml_memory(mz[i], m.az, m.bz, gz);
      fx[i] = bx[i] * gx;
      fz[i] = bz[i] * gz;
      if constexpr (Dim == 3) {
        T gy = d_plus<R>(c.y, [&](int j) { return p[j * ys]; });
        if constexpr (InY) gy = cpml_memory(my[i], m.ay, m.by, gy);
        fy[i] = by[i] * gy;
      }
    }
  }
};

/// Second launch: u^{n+1} = 2 u^n - u^{n-1} + w sum_a (D-_a f_a + zeta_a), written over u^{n-1},
/// advancing zeta in the strips the box lies in.
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct Update {
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static constexpr int R = StaggeredStencil<Order>::radius;
  static constexpr int block_lines = 4;
  State<T> v;
  Coefficients<T, Order> c;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const AcousticState<T>& st = v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys, q = st.plane(iy, ix);
    T hx = d_minus<R>(c.x, [&](int j) { return v.flux_x(s, z, x + j); });
    T hz = d_minus<R>(c.z, [&](int j) { return v.flux_z(s, z + j, x); });
    T hy = 0;
    if constexpr (Dim == 3) hy = d_minus<R>(c.y, [&](int j) { return v.flux_y(s, z, x + j * ys); });
    if constexpr (InX)
      hx = cpml_memory(st.zeta_x(s, iz, x_strip_index(st, iy, ix)), st.cx.a(ix), st.cx.b(ix), hx);
    if constexpr (InZ)
      hz = cpml_memory(st.zeta_z(s, z_strip_row(st, iz), q), st.cz.a(iz), st.cz.b(iz), hz);
    if constexpr (InY) {
      hy = cpml_memory(st.zeta_y(s, iz, y_strip_line(st, iy) * st.nx + ix), st.cy.a(iy),
                       st.cy.b(iy), hy);
    }
    T lap = hx + hz;
    if constexpr (Dim == 3) lap += hy;
    st.u_prev(s, z, x) = leapfrog(st.u_cur(s, z, x), st.u_prev(s, z, x), v.w(iz, q), lap);
  }

  /// Host path, as Flux::lines(): the leapfrog of each line's cells.
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    const AcousticState<T>& st = v.st;
    lines_with(s, iz, n, iy, x0, x1, [&](int r, int z, int col, int q) {
      const T* PWAVE_RESTRICT uc = &st.u_cur(s, z, col);
      T* PWAVE_RESTRICT un = &st.u_prev(s, z, col);
      const T* PWAVE_RESTRICT w = &v.w(r, q);
      return [=](int i, T lap) { un[i] = leapfrog(uc[i], un[i], w[i], lap); };
    });
  }

  /// The x lines (iz + r, iy), r < n, cells [x0, x1): the operator of each line (row_with, the
  /// strip terms resolved once per line) handed to the cell function `make_cell(r, z, col, q)`
  /// returns for the line (row r, halo row z, grid column and plane index of column 0).
  template <class MakeCell>
  void lines_with(int s, int iz, int n, int iy, int x0, int x1, const MakeCell& make_cell) const {
    const AcousticState<T>& st = v.st;
    const int col = st.column(iy, 0), q = st.plane(iy, 0);
    const long zs = long(st.u_cur.stride(1));
    for (int r = iz; r < iz + n; ++r) {
      const int z = r + st.halo;
      const T* fy = nullptr;
      if constexpr (Dim == 3) fy = &v.flux_y(s, z, col);
      const T* fz = &v.flux_z(s, z, col);
      StripLine<T> m;
      if constexpr (InX || InZ || InY) {
        m = StripLine<T>::template at<InX, InZ, InY>(st, st.zeta_x, st.zeta_z, st.zeta_y, st.cx,
                                                     st.cz, st.cy, s, r, iy, x0);
      }
      row_with(
          c, &v.flux_x(s, z, col), [&](int j) { return fz + j * zs; }, fy, long(st.ys), x0, x1, m,
          make_cell(r, z, col, q));
    }
  }

  /// The update of cells [x0, x1) of one x line: u^n, u^{n-1} (overwritten by u^{n+1}) and f_a
  /// at grid column 0 of the line, w at column 0 of its [z][ny nx] row. `fz_row(j)` is the z
  /// flux row j half points after the line's own (at grid column 0): the halo-layout rows of
  /// Update, or the row buffers of FusedStep. `m`: zeta and the profile of the strips the line
  /// lies in.
  template <class ZRow>
  static void row(const Coefficients<T, Order>& c, const T* PWAVE_RESTRICT uc, T* PWAVE_RESTRICT un,
                  const T* PWAVE_RESTRICT w, const T* PWAVE_RESTRICT fx, const ZRow& fz_row,
                  const T* PWAVE_RESTRICT fy, long ys, int x0, int x1, const StripLine<T>& m = {}) {
    row_with(c, fx, fz_row, fy, ys, x0, x1, m,
             [=](int i, T lap) { un[i] = leapfrog(uc[i], un[i], w[i], lap); });
  }

  /// The operator sum_a (D-_a f_a + zeta_a) of cells [x0, x1) of one x line (arguments as
  /// row()), handed to `cell(i, lap)` with the cell's grid column: row()'s leapfrog, or the
  /// reversed step's (ReverseUpdate).
  template <class ZRow, class Cell>
  static void row_with(const Coefficients<T, Order>& c, const T* PWAVE_RESTRICT fx,
                       const ZRow& fz_row, const T* PWAVE_RESTRICT fy, long ys, int x0, int x1,
                       const StripLine<T>& m, const Cell& cell) {
    const T* fzr[2 * R];  // rows -R .. R - 1
    for (int j = -R; j < R; ++j) fzr[j + R] = fz_row(j);
    T* PWAVE_RESTRICT mx = m.mx;
    T* PWAVE_RESTRICT mz = m.mz;
    T* PWAVE_RESTRICT my = m.my;
    PWAVE_SIMD
    for (int i = x0; i < x1; ++i) {
      T hx = d_minus<R>(c.x, [&](int j) { return fx[i + j]; });
      T hz = d_minus<R>(c.z, [&](int j) { return fzr[j + R][i]; });
      if constexpr (InX) hx = cpml_memory(mx[i], m.ax[i], m.bx[i], hx);
      if constexpr (InZ) hz = cpml_memory(mz[i], m.az, m.bz, hz);
      T lap = hx + hz;
      if constexpr (Dim == 3) {
        T hy = d_minus<R>(c.y, [&](int j) { return fy[i + j * ys]; });
        if constexpr (InY) hy = cpml_memory(my[i], m.ay, m.by, hy);
        lap += hy;
      }
      cell(i, lap);
    }
  }
};

/// Host backends, 2D: Flux and Update of the rows between the z strips fused per band of rows,
/// whole rows (the x strips' cells included), so the flux never goes to memory. The flux is
/// Flux's formula: the interior one, and at the x strips' half points psi advanced (Flux's
/// strip formula) in the row pass, as zeta at their cells before the update. The z flux rows
/// above and below the box (in the z strips) take the interior formula: the CPML half-point
/// profile is zero within R of a layer's inner edge (a = b = 0), so psi is zero there and the
/// strip formula gives the same value. Half points outside the padded grid are zero, or with a
/// free surface above row 0 the mirror of the one below (as MirrorFlux). The z strips' flux
/// comes from Flux; the z flux inside the box that their updates read (its first R - 1 and last
/// R rows) is written to the flux array from the buffers here
/// (propagation::AcousticPropagator::step_vd). Rows wider than a chunk are cut R half points
/// clear of the x strips (fits()), so that a chunk's psi are advanced by that chunk alone.
///
/// For each chunk of columns a band's rows are updated top to bottom in blocks of block_rows,
/// on host vectors (backends/host_vector.hpp) aligned on u^n:
///  - the x term D-_x f_x of each row of the block into a row buffer, through the row's x flux
///    in a line buffer; both take their taps from aligned vectors by lane shifts (host::Taps),
///    a tap load at an offset not a multiple of the width spanning two cache lines;
///  - then one vector of columns at a time, the z flux and the update of the block's rows: the
///    u^n rows and the z flux rows move down the block in registers, so each u^n vector is
///    loaded once per block (not 2R times per row) and each z flux value computed once and
///    read from registers by its 2R cells. The last 2R - 1 z flux rows of a block stay in row
///    buffers (the ring) for the next; each band computes the 2R - 1 rows above its first row
///    itself (the bands are independent work items).
/// Every value comes from the cell operator's formulas (d_plus, d_minus, leapfrog) on the same
/// operands, rounded where the cell path stores them (the flux), so the cell path's results
/// to the bit. The passes prefetch what they stream from memory, which the hardware
/// prefetchers fetch too late: the update pass a few vectors ahead (its block's rows are many
/// streams), the x term pass a row ahead (its rows are short).
///
/// `Imaging`: the reversed step of boundary storage in the box inside the frame (rows and
/// columns a stencil radius clear of the strips, so no CPML term is met): u^{n-1} over u^{n+1}
/// with the imaging term of dJ/dw (reverse_leapfrog; `g` = G^{n+1}, `acc` the per-shot image),
/// the arithmetic of Flux + ReverseUpdate, so their bits.
template <class T, int Order, bool Imaging = false>
struct FusedStep {
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static constexpr int R = StaggeredStencil<Order>::radius;
  /// Rows per work item (launch.hpp's lines() interface; iy is 0 in 2D). Each band recomputes
  /// the 2R - 1 z flux rows above it.
  static constexpr int block_lines = 64;
  /// Rows updated together, one vector of columns at a time: the 2R - 1 u^n rows and z flux
  /// rows a block loads beside its own are spread over this many.
  static constexpr int block_rows = 8;
  /// Most columns per chunk: a block's rows and the row buffers stay in L2. A wider box is cut
  /// into equal chunks.
  static constexpr int chunk = 2048;
  /// Prefetch distances in vectors: the update pass (block_rows rows of four streams), and the
  /// x term pass (u^n and beta_x, in the next row).
  static constexpr int prefetch_update = 4, prefetch_x = 2;
  /// Length of a row buffer: a chunk, and the lanes before and after it that align it as u^n
  /// and hold the x flux's R half points on each side and the vectors host::Taps loads around
  /// an aligned one; an odd number of cache lines.
  static constexpr int lanes = backend::host::Native<T>::width;
  static constexpr int lead = lanes + (R + lanes - 1) / lanes * lanes;
  static constexpr int buffer = backend::host::odd_line_length<T>(lead + chunk + lanes);
  /// z flux rows carried from a block to the next.
  static constexpr int Q = 2 * R - 1;
  State<T> v;
  Coefficients<T, Order> c;
  bool free_surface = false;
  int z0 = 0, z1 = 0;  ///< the box's rows (its columns are those lines() is given)
  Field<T> g, acc;     ///< Imaging: G^{n+1} (halo layout), dJ/dw per shot [shot][nz][ny nx]

  /// Whether the fused step can run the rows of `st` whole (x strips included): a grid wider
  /// than a chunk is cut R half points clear of the x strips (a chunk advances the strips' psi
  /// on its own half points and computes the R on each side of it with the interior formula),
  /// which needs an interior wide enough and strips narrower than a chunk.
  static bool fits(const AcousticState<T>& st) {
    return st.nx <= chunk || (cut_range(st)[0] <= cut_range(st)[1] &&
                              st.strip_left + R + lanes <= chunk && st.strip_right + R <= chunk);
  }

  /// Rows [iz, iz + n) of the box, columns [x0, x1) = [0, nx) (the whole rows).
  void lines(int s, int iz, int n, int /*iy*/, int x0, int x1) const {
    alignas(backend::host::cache_line) T ring[Q][buffer];
    alignas(backend::host::cache_line) T hx[block_rows][buffer];
    alignas(backend::host::cache_line) T fx[buffer];
    const AcousticState<T>& st = v.st;
    // Chunks after the first start where u^n's rows are aligned on a vector, within cut_range.
    const int chunks = (x1 - x0 + chunk - 1) / chunk;
    const auto range = cut_range(st);
    const T* const row = &st.u_cur(s, iz + st.halo, st.halo);
    const auto cut = [&](int k) {
      if (k == 0 || k == chunks) return k == 0 ? x0 : x1;
      const int x = std::clamp(x0 + int(long(x1 - x0) * k / chunks), range[0], range[1]);
      return x - int((reinterpret_cast<std::uintptr_t>(row + x) / sizeof(T)) % lanes);
    };
    for (int k = 0; k < chunks; ++k) {
      const int c0 = cut(k), cn = cut(k + 1) - c0;
      if (cn >= lanes) {
        band<backend::host::Native<T>>(s, iz, n, c0, cn, ring[0], hx[0], fx);
      } else if (cn > 0) {
        band<backend::host::Lane<T>>(s, iz, n, c0, cn, ring[0], hx[0], fx);
      }
    }
  }

 private:
  /// The columns a chunk may start at (before aligning down on a vector): R half points and a
  /// vector clear of the x strips.
  static std::array<int, 2> cut_range(const AcousticState<T>& st) {
    return {st.strip_left + R + lanes, st.nx - st.strip_right - R};
  }

  /// The rows of a chunk: fields and material at (row 0, column c0), row z at + z zs (fields)
  /// and + z ms (material); the row buffers at column c0.
  struct Rows {
    const T* u;
    T* un;
    const T *w, *bx, *bz;
    long zs, ms;
    int c0, cn, nz, nx;
    T* ring;               ///< z flux rows, the q-th above the next block's own at + q buffer
    T* hx;                 ///< D-_x f_x of the block's rows, row r at + r buffer
    T* fx;                 ///< x flux of a row, from R half points before column c0
    T* flux_z;             ///< the z flux array at (row 0, column c0)
    const T* g = nullptr;  ///< Imaging: G^{n+1} at (row 0, column c0), rows as u
    T* acc = nullptr;      ///< Imaging: the image at (row 0, column c0), rows as w
    /// The x strips: psi and zeta of grid row 0 (row z at + z ps), the left strip's column
    /// ix at [ix], the right one's at [ix - right_shift]; the profiles by grid column.
    T *psi = nullptr, *zeta = nullptr;
    long ps = 0;
    int left = 0, right = 0, right_shift = 0;  ///< the strips' columns [0, left), [right, nx)
    const T *pa = nullptr, *pb = nullptr;      ///< a, b at half points (psi)
    const T *ca = nullptr, *cb = nullptr;      ///< a, b at cells (zeta)
  };

  /// Rows [iz, iz + n), columns [c0, c0 + cn) on vectors of type H (cn >= H::width, or H one
  /// lane); the buffers as lines() lays them out.
  template <class H>
  void band(int s, int iz, int n, int c0, int cn, T* ring, T* hx, T* fx) const {
    const AcousticState<T>& st = v.st;
    const int h = st.halo;
    Rows p;
    p.u = &st.u_cur(s, h, h + c0);
    p.un = &st.u_prev(s, h, h + c0);
    p.w = &v.w(0, c0), p.bx = &v.beta_x(0, c0), p.bz = &v.beta_z(0, c0);
    p.zs = long(st.u_cur.stride(1)), p.ms = long(v.w.stride(0));
    p.c0 = c0, p.cn = cn, p.nz = st.nz, p.nx = st.nx;
    p.flux_z = &v.flux_z(s, h, h + c0);
    if constexpr (Imaging) p.g = &g(s, h, h + c0), p.acc = &acc(s, 0, c0);
    p.left = st.strip_left, p.right = st.nx - st.strip_right;
    p.right_shift = p.right - st.strip_left;
    if (st.strip_left + st.strip_right > 0) {
      p.psi = &st.psi_x(s, 0, 0), p.zeta = &st.zeta_x(s, 0, 0);
      p.ps = long(st.psi_x.stride(1));
      p.pa = v.hx.a.data(), p.pb = v.hx.b.data(), p.ca = st.cx.a.data(), p.cb = st.cx.b.data();
    }
    // The buffers hold column c0 + i at index i past an origin in u^n's alignment (vectors
    // aligned on u^n are aligned on them), at least a vector into the buffer.
    const int mis = int((reinterpret_cast<std::uintptr_t>(p.u) / sizeof(T)) % H::width);
    p.ring = ring + mis;
    p.hx = hx + mis;
    p.fx = fx + lead - H::width + mis;
    for (int q = 0; q < Q; ++q) z_flux_row<H>(p, iz - R + q, p.ring + q * buffer);
    // The z flux the top strip's updates read: rows [z0, z0 + R - 1) of the box, in the ring.
    // (The reversed step's box has no strip updates beside it.)
    if (!Imaging && iz == z0) {
      for (int j = z0; j < std::min(z0 + R - 1, z1); ++j)
        store_row(p, p.ring + (j - iz + R) * buffer, j);
    }
    int z = iz;
    for (; z + block_rows <= iz + n && z + block_rows + R - 2 < p.nz; z += block_rows) {
      block<block_rows, H>(p, z, z + 2 * block_rows <= iz + n);
    }
    for (; z < iz + n; ++z) block<1, H>(p, z, z + 1 < iz + n);
    // The bottom strip's: rows [z1 - R, z1), the ring's first R rows after the last block.
    if (!Imaging && iz + n == z1) {
      for (int j = std::max(z1 - R, z0); j < z1; ++j)
        store_row(p, p.ring + (j - z1 + R) * buffer, j);
    }
  }

  /// Writes z flux row j (the chunk's columns) from `src` to the flux array.
  static void store_row(const Rows& p, const T* src, int j) {
    T* const d = p.flux_z + j * p.zs;
    for (int i = 0; i < p.cn; ++i) d[i] = src[i];
  }

  /// z flux row j (all columns of the chunk) into `dst`: zero off the grid, or above row 0
  /// with a free surface the mirror of the row below.
  template <class H>
  void z_flux_row(const Rows& p, int j, T* dst) const {
    const int jj = j < 0 && free_surface ? -1 - j : j;
    if (jj < 0 || jj >= p.nz) {
      for (int i = 0; i < p.cn; ++i) dst[i] = T(0);
      return;
    }
    typename H::type cz[R + 1];
    for (int k = 0; k <= R; ++k) cz[k] = H::splat(c.z[k]);
    const T* const u = p.u + jj * p.zs;
    const T* const b = p.bz + jj * p.ms;
    backend::host::for_each_vector<H>(u, 0, p.cn, [&](int i, int, int, auto) {
      H::store(dst + i,
               H::load(b + i) * d_plus<R>(cz, [&](int k) { return H::load(u + i + k * p.zs); }));
    });
  }

  /// D-_x f_x of row z (all columns of the chunk) into `dst`, through the x flux of the row's
  /// half points [c0 - R, c0 + cn + R - 1) in the line buffer (zero off the grid). The end
  /// vectors, not aligned, load their taps.
  template <class H>
  void x_term_row(const Rows& p, int z, T* dst) const {
    namespace host = backend::host;
    typename H::type cx[R + 1];
    for (int k = 0; k <= R; ++k) cx[k] = H::splat(c.x[k]);
    const int lo = std::max(p.c0 - R, 0) - p.c0, hi = std::min(p.c0 + p.cn + R - 1, p.nx) - p.c0;
    T* const f = p.fx;
    for (int k = -R; k < lo; ++k) f[k] = T(0);
    for (int k = hi; k < p.cn + R - 1; ++k) f[k] = T(0);
    const T* const u = p.u + z * p.zs;
    const T* const bx = p.bx + z * p.ms;
    // The next row (this one on the last row of the grid).
    const long next = z + 1 < p.nz ? 1 : 0;
    const T* const next_u = u + next * p.zs;
    const T* const next_bx = bx + next * p.ms;
    host::for_each_vector<H>(u, lo, hi, [&](int i, int, int, auto partial) {
      // The next row's lines, a row ahead: x_term_row runs row after row, and each row is
      // too short for the hardware prefetchers to be ahead of it at its start.
      const int ahead = std::min(i + prefetch_x * H::width, hi - H::width);
      host::prefetch<false>(next_u + ahead), host::prefetch<false>(next_bx + ahead);
      if constexpr (decltype(partial)::value) {
        H::store(f + i, H::load(bx + i) * d_plus<R>(cx, [&](int k) { return H::load(u + i + k); }));
      } else {
        H::store(f + i, H::load(bx + i) * d_plus<R>(cx, host::Taps<H, T>(u + i)));
      }
    });
    // The x strips' half points: Flux's formula, advancing psi.
    T* const psi = p.psi + z * p.ps;
    x_strip_parts(p, lo, hi, psi, [&](int i, T* m) {
      const T g = d_plus<R>(c.x, [&](int k) { return u[i + k]; });
      f[i] = bx[i] * cpml_memory(*m, p.pa[p.c0 + i], p.pb[p.c0 + i], g);
    });
    host::for_each_vector<H>(u, 0, p.cn, [&](int i, int, int, auto partial) {
      if constexpr (decltype(partial)::value) {
        H::store(dst + i, d_minus<R>(cx, [&](int k) { return H::load(f + i + k); }));
      } else {
        H::store(dst + i, d_minus<R>(cx, host::Taps<H, T>(f + i)));
      }
    });
    // The x strips' cells: Update's, advancing zeta.
    T* const zeta = p.zeta + z * p.ps;
    x_strip_parts(p, 0, p.cn, zeta, [&](int i, T* m) {
      dst[i] = cpml_memory(*m, p.ca[p.c0 + i], p.cb[p.c0 + i], dst[i]);
    });
  }

  /// `f(i, m)` for each point i (chunk-relative column) of [lo, hi) in an x strip, with m its
  /// memory variable in the strip row `strip` (psi or zeta of one grid row).
  template <class F>
  static void x_strip_parts(const Rows& p, int lo, int hi, T* strip, const F& f) {
    for (int i = std::max(lo, -p.c0); i < std::min(hi, p.left - p.c0); ++i) f(i, strip + p.c0 + i);
    for (int i = std::max(lo, p.right - p.c0); i < std::min(hi, p.nx - p.c0); ++i)
      f(i, strip + p.c0 + i - p.right_shift);
  }

  /// Rows [z0, z0 + NR): their x terms, then the z flux and the update one vector at a time.
  /// `more`: the band has a block of NR rows after this one.
  template <int NR, class H>
  void block(const Rows& p, int z0, bool more) const {
    namespace host = backend::host;
    using V = typename H::type;
    const long zs = p.zs, ms = p.ms;
    for (int r = 0; r < NR; ++r) x_term_row<H>(p, z0 + r, p.hx + r * buffer);
    V cz[R + 1];
    for (int k = 0; k <= R; ++k) cz[k] = H::splat(c.z[k]);
    // Whether the block's last new z flux row lies on the grid (else it is zero: only a
    // one-row block at the bottom of the grid, with no strip below, has one that does not).
    const bool last_on_grid = z0 + NR + R - 2 < p.nz;
    const T* const u = p.u + z0 * zs;
    T* const un = p.un + z0 * zs;
    const T* const w = p.w + z0 * ms;
    const T* const bz = p.bz + (z0 + R - 1) * ms;  // the block's first new z flux row
    const T* const ring = p.ring;
    const T* const hx = p.hx;
    const T* const g = Imaging ? p.g + z0 * zs : nullptr;
    T* const acc = Imaging ? p.acc + z0 * ms : nullptr;
    host::for_each_vector<H>(u, 0, p.cn, [&](int i, int lo, int hi, auto partial) {
      constexpr bool part = decltype(partial)::value;
      {  // The rows this pass streams from memory: u^n's new rows, u^{n-1}, w, beta_z.
        // From the end of the rows on, the next block's rows' first lines (`more`: there is
        // one in this band).
        int ahead = i + prefetch_update * H::width;
        long rows = 0;
        if (ahead >= p.cn) {
          if (more) {
            ahead -= p.cn, rows = NR;
          } else {
            ahead = p.cn - H::width;
          }
        }
        const T *pu = u + (Q + rows) * zs + ahead, *pn = un + rows * zs + ahead;
        const T *pw = w + rows * ms + ahead, *pb = bz + rows * ms + ahead;
        const T *pg = nullptr, *pa = nullptr;
        if constexpr (Imaging) pg = g + rows * zs + ahead, pa = acc + rows * ms + ahead;
        PWAVE_UNROLL
        for (int r = 0; r < NR; ++r) {
          host::prefetch<false>(pu), host::prefetch<true>(pn);
          host::prefetch<false>(pw), host::prefetch<false>(pb);
          pu += zs, pn += zs, pw += ms, pb += ms;
          if constexpr (Imaging) {
            host::prefetch<false>(pg), host::prefetch<true>(pa);
            pg += zs, pa += ms;
          }
        }
      }
      // Registers: u^n rows z0 + q (uw[q]) and z flux rows z0 - R + q (fzw[q]).
      V uw[Q + NR], fzw[Q + NR];
      const T* ur = u + i;
      PWAVE_UNROLL
      for (int q = 0; q < Q; ++q) {
        uw[q] = H::load(ur);
        ur += zs;
        fzw[q] = H::load(ring + q * buffer + i);
      }
      const T* br = bz + i;
      const T* wr = w + i;
      T* o = un + i;
      const T* gr = Imaging ? g + i : nullptr;
      T* ar = Imaging ? acc + i : nullptr;
      PWAVE_UNROLL
      for (int r = 0; r < NR; ++r) {
        // z flux row z0 + r + R - 1 from u^n rows z0 + r .. z0 + r + 2R - 1, rounded as the
        // cell path's, which goes through memory.
        if (NR > 1 || last_on_grid) {
          uw[Q + r] = H::load(ur);
          fzw[Q + r] =
              host::rounded(H::load(br) * d_plus<R>(cz, [&](int k) { return uw[r + R - 1 + k]; }));
        } else {
          fzw[Q + r] = H::splat(T(0));
        }
        // The update of row z0 + r from z flux rows z0 + r - R .. z0 + r + R - 1.
        const V hz = d_minus<R>(cz, [&](int k) { return fzw[r + R + k]; });
        const V old = H::load(o);
        const V lap = H::load(hx + r * buffer + i) + hz;
        V next;
        if constexpr (Imaging) {
          next = old;
          const V old_acc = H::load(ar);
          V sum = old_acc;
          reverse_leapfrog(uw[r], next, H::load(wr), lap, H::load(gr), sum);
          H::store(ar, part ? H::lanes_from(hi, old_acc, H::lanes_from(lo, sum, old_acc)) : sum);
          gr += zs, ar += ms;
        } else {
          next = leapfrog(uw[r], old, H::load(wr), lap);
        }
        H::store(o, part ? H::lanes_from(hi, old, H::lanes_from(lo, next, old)) : next);
        ur += zs, o += zs, br += ms, wr += ms;
      }
      // The ring: z flux rows z0 + NR - R .. z0 + NR + R - 2, for the next block. The end
      // vectors store their own lanes only: the others' ring values are already the next's.
      PWAVE_UNROLL
      for (int q = 0; q < Q; ++q) {
        T* const d = p.ring + q * buffer + i;
        if constexpr (part) {
          const V old = H::load(d);
          H::store(d, H::lanes_from(hi, old, H::lanes_from(lo, fzw[NR + q], old)));
        } else {
          H::store(d, fzw[NR + q]);
        }
      }
    });
  }
};

/// Free surface: the z flux of the half points above row 0 mirrors the one below,
/// f_{-1-j} = f_j (D+ of a field odd about row 0 is even about it). Launched over (shot, column).
template <class T>
struct MirrorFlux {
  Field<T> flux_z;
  int halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int x) const {
    for (int j = 0; j < halo; ++j) flux_z(s, halo - 1 - j, x) = flux_z(s, halo + j, x);
  }
};

/// Interior-only flux of a reversed step (boundary storage): f_a = beta_a D+_a u with no CPML
/// term, over a box that stays a stencil radius clear of the strips.
template <class T, int Order, int Dim>
using InteriorFlux = Flux<T, Order, Dim, false, false, false>;

/// The reversed step in the box (boundary storage): u^{n-1} = 2 u^n - u^{n+1} + w sum_a D-_a f_a
/// over u^{n+1}, and the imaging term G^{n+1} w L u^n of dJ/dw added into `acc`.
template <class T, int Order, int Dim>
struct ReverseUpdate {
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static constexpr int R = StaggeredStencil<Order>::radius;
  static constexpr int block_lines = 4;
  State<T> v;  ///< st.u_cur = u^n, st.u_prev = u^{n+1} (becomes u^{n-1})
  Coefficients<T, Order> c;
  Field<T> g, acc;  ///< G^{n+1} (halo layout), per-shot dJ/dw imaging [shot][nz][ny nx]

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const { (*this)(s, iz, 0, ix); }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int iy, int ix) const {
    const AcousticState<T>& st = v.st;
    const int z = iz + st.halo, x = st.column(iy, ix), ys = st.ys, q = st.plane(iy, ix);
    T lap = d_minus<R>(c.x, [&](int j) { return v.flux_x(s, z, x + j); }) +
            d_minus<R>(c.z, [&](int j) { return v.flux_z(s, z + j, x); });  // as Update
    if constexpr (Dim == 3)
      lap += d_minus<R>(c.y, [&](int j) { return v.flux_y(s, z, x + j * ys); });
    reverse_leapfrog(st.u_cur(s, z, x), st.u_prev(s, z, x), v.w(iz, q), lap, g(s, z, x),
                     acc(s, iz, q));
  }

  /// Host path: the forward's interior update lines (Update::lines_with) with the reversed
  /// leapfrog and the imaging.
  void lines(int s, int iz, int n, int iy, int x0, int x1) const {
    const AcousticState<T>& st = v.st;
    Update<T, Order, Dim, false, false, false>{v, c}.lines_with(
        s, iz, n, iy, x0, x1, [&](int r, int z, int col, int q) {
          const T* PWAVE_RESTRICT uc = &st.u_cur(s, z, col);
          T* PWAVE_RESTRICT un = &st.u_prev(s, z, col);
          const T* PWAVE_RESTRICT w = &v.w(r, q);
          const T* PWAVE_RESTRICT gr = &g(s, z, col);
          T* PWAVE_RESTRICT ac = &acc(s, r, q);
          return [=](int i, T lap) { reverse_leapfrog(uc[i], un[i], w[i], lap, gr[i], ac[i]); };
        });
  }
};

}  // namespace pwave::physics::acoustic_vd
