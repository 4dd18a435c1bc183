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
// (u_0 = 0, u_{-k} = -u_k) the z flux is mirrored into the top halo (f_{-1-j} = f_j).

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
/// host row paths alike (the accessor is a view lookup or a raw pointer offset).
template <int R, class T, class U>
KOKKOS_FORCEINLINE_FUNCTION T d_plus(const T* c, const U& u) {
  T g = 0;
  PWAVE_UNROLL
  for (int k = 1; k <= R; ++k) g += c[k] * (u(k) - u(1 - k));
  return g;
}

/// (D- f) at a cell: sum_k c_k (f(k - 1) - f(-k)), f(j) the half point j after the cell's own.
template <int R, class T, class F>
KOKKOS_FORCEINLINE_FUNCTION T d_minus(const T* c, const F& f) {
  T h = 0;
  PWAVE_UNROLL
  for (int k = 1; k <= R; ++k) h += c[k] * (f(k - 1) - f(-k));
  return h;
}

/// The leapfrog update of a cell: 2 u^n - u^{n-1} + w L u^n.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T leapfrog(T u, T u_prev, T w, T lap) {
  return T(2) * u - u_prev + w * lap;
}

/// The CPML memory term of one axis at a point: m <- a m + b g, returns g + m (psi and the
/// flux at a half point, zeta and D- f at a cell). The one formula for cells and rows.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T cpml_memory(T& m, T a, T b, T g) {
  m = a * m + b * g;
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

/// f = beta (D+ u) along one axis at the half points after cells [0, n) of a line: `u` and
/// `beta` at the first cell, `stride` the step of u along the axis (1, a z row or a y line).
/// The interior flux of one axis on the host (Flux's formula without the strip terms).
template <int R, class T>
void flux_axis_row(const T* c, const T* PWAVE_RESTRICT u, long stride, const T* PWAVE_RESTRICT beta,
                   T* PWAVE_RESTRICT f, int n) {
  PWAVE_SIMD
  for (int i = 0; i < n; ++i)
    f[i] = beta[i] * d_plus<R>(c, [&](int j) { return u[i + j * stride]; });
}

/// Host backends, 2D: Flux and Update of the interior box fused per band of rows, so the flux
/// never goes to memory. For each chunk of columns the band's rows are swept top to bottom; the
/// z flux rows sit in a ring of 2R row buffers (row z + R - 1 computed just before row z is
/// updated), the x flux of the row in a line buffer. Each band recomputes the 2R - 1 z flux
/// rows above its first row (the bands are independent work items). The flux is Flux's
/// interior formula, also on the half points within R of the box that lie in the strips: the
/// CPML half-point profile is zero there (a = b = 0 from a layer's inner edge on), so psi is
/// zero and the strip formula gives the same value. Half points outside the padded grid are
/// zero, or with a free surface above row 0 the mirror of the one below (as MirrorFlux).
/// The flux of the strips, and of the ring R cells deep inside the box that the strip
/// updates read, still comes from Flux (propagation::AcousticPropagator::step_vd).
template <class T, int Order>
struct FusedStep {
  static constexpr bool host_lines = true;  ///< promises line()/lines() (backends/launch.hpp)
  static constexpr int R = StaggeredStencil<Order>::radius;
  /// Rows per work item (launch.hpp's lines() interface; iy is 0 in 2D).
  static constexpr int block_lines = 32;
  /// Columns per chunk: the ring (2R rows) and the 2R + 1 u^n rows a z flux row reads stay in
  /// L1/L2.
  static constexpr int chunk = 2048;
  State<T> v;
  Coefficients<T, Order> c;
  bool free_surface = false;

  void lines(int s, int iz, int n, int /*iy*/, int x0, int x1) const {
    const AcousticState<T>& st = v.st;
    const long zs = long(st.u_cur.stride(1));
    const int h = st.halo, nz = st.nz, nx = st.nx;
    alignas(64) T ring[2 * R][chunk];
    alignas(64) T fx[chunk + 2 * R];
    for (int c0 = x0; c0 < x1; c0 += chunk) {
      const int cn = std::min(chunk, x1 - c0);
      const auto slot = [&](int j) -> T* { return ring[((j % (2 * R)) + 2 * R) % (2 * R)]; };
      const auto z_flux = [&](int j) {  // z flux row j, columns [c0, c0 + cn), into its slot
        T* dst = slot(j);
        const int jj = j < 0 && free_surface ? -1 - j : j;
        if (jj < 0 || jj >= nz) {
          for (int i = 0; i < cn; ++i) dst[i] = T(0);
        } else {
          flux_axis_row<R>(c.z, &st.u_cur(s, jj + h, h + c0), zs, &v.beta_z(jj, c0), dst, cn);
        }
      };
      for (int j = iz - R; j < iz + R - 1; ++j) z_flux(j);
      for (int z = iz; z < iz + n; ++z) {
        z_flux(z + R - 1);
        // x flux of half points [c0 - R, c0 + cn + R - 1), at fx[k - (c0 - R)].
        const int lo = std::max(c0 - R, 0), hi = std::min(c0 + cn + R - 1, nx);
        for (int k = c0 - R; k < lo; ++k) fx[k - (c0 - R)] = T(0);
        for (int k = std::max(hi, lo); k < c0 + cn + R - 1; ++k) fx[k - (c0 - R)] = T(0);
        if (hi > lo) {
          flux_axis_row<R>(c.x, &st.u_cur(s, z + h, h + lo), 1, &v.beta_x(z, lo),
                           fx + (lo - (c0 - R)), hi - lo);
        }
        Update<T, Order, 2, false, false, false>::row(
            c, &st.u_cur(s, z + h, h + c0), &st.u_prev(s, z + h, h + c0), &v.w(z, c0), fx + R,
            [&](int j) -> const T* { return slot(z + j); }, nullptr, 0, 0, cn);
      }
    }
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

  /// u^{n-1} = 2 u^n - u^{n+1} + w lap over u^{n+1} (`u_next`), acc += G^{n+1} w lap: the one
  /// formula of cells and rows (the leapfrog's arithmetic, w lap kept for the imaging).
  KOKKOS_FORCEINLINE_FUNCTION static void reverse_leapfrog(T u, T& u_next, T w, T lap, T g,
                                                           T& acc) {
    const T wl = w * lap;
    u_next = T(2) * u - u_next + wl;
    acc += g * wl;
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
