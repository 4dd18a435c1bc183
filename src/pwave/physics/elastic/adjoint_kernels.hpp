#pragma once
// The exact discrete adjoint of the elastic step (kernels.hpp), its imaging (the gradient with
// respect to the step's coefficient arrays) and the chain rule of those to vp, vs and rho.
//
// Derivation. A forward step n is, on the state x = (v, sigma, psi) and in this order,
//   R_n   record:          d_n = P v^{n-1/2} + Q sigma^n              (receivers)
//   V     velocity update: g_ac = D_a sigma_ac (D+ if a = c, else D-) at the v_c points;
//                          in a strip of a: psi <- a psi + b g, g <- g + psi;
//                          v_c += B_c sum_a g_ac                      (B_c = dt b_c)
//   S_f   force:           v_c += B_c f_n h / V
//   E     stress update:   e_ac = D_a v_c (D- if a = c, else D+); in a strip the same psi term;
//                          sigma_cc += lambda tr(e) + 2 mu e_cc, sigma_ac += mu_ac (e_ac + e_ca)
//   S_m   explosive:       sigma_cc += dt m_n h / V
// all linear in x. The adjoint of the nt steps applies the transposes in reverse order; the
// adjoint state xbar = (vbar, sigmabar, psibar) has the forward's layout (a State<T> whose
// fields are the adjoints and whose coefficients and profiles are the forward ones):
//   S_m^T  mbar_n = dt h / V sum_c sigmabar_cc
//   E^T    StressBar (each cell):  ebar_cc = lambda tr(sigmabar) + 2 mu sigmabar_cc (the same
//          form: the stress-strain map is symmetric), ebar_ac = ebar_ca = mu_ac sigmabar_ac;
//          StressGather (each velocity point): vbar_c -= D+_c ebar_cc + sum_{a != c} D-_a ebar_ac
//   S_f^T  fbar_n = h / V B_c vbar_c
//   V^T    VelocityBar: gbar_ac = B_c vbar_c;  VelocityGather: sigmabar_cc -= D-_c gbar_cc,
//          sigmabar_ac -= D+_a gbar_ac + D+_c gbar_ca
//   R_n^T  vbar += P^T (d_n - d_obs_n), sigmabar += Q^T (d_n - d_obs_n)
// with D+^T = -D- and D-^T = -D+ (the stencils' antisymmetry: sum_k c_k (u(j + k) - u(j + 1 - k))
// transposed is -sum_k c_k (w(j + k - 1) - w(j - k))), the halo's zeros making them exact at the
// grid's edges (the halo is not state: it is 0 before and after every step).
//
// The CPML. Per derivative the forward maps (g, psi) -> (y, psi') with psi' = a psi + b g and
// y = g + psi' = (1 + b) g + a psi. Its transpose maps (ybar, psibar') -> (gbar, psibar):
//   gbar = (1 + b) ybar + b psibar',  psibar = a (ybar + psibar')
// (acoustic_vd::psi_transpose): the adjoint memory variable is advanced with the same a but is
// fed ybar + psibar, and it enters gbar through b rather than the derivative through 1 + b: the
// one place where the adjoint is not the forward operator applied to the adjoint fields. The
// transposed psibar lives at the same strip points as psi (same storage), so each Bar kernel is
// launched with the strip flags of its box, as the forward updates, and each Gather over the
// whole grid without them (a gather of stencils, no memory).
//
// Imaging. With the coefficients as variables, V adds B_c F_c (F = divergence(), the stretched
// div sigma^n) and E adds lambda tr(e) I + 2 mu e and mu_ac e_ac (e = strains(), of v^{n+1/2}).
// So, summed over the steps,
//   dJ/dB_c(p)     = sum_n vbar_c^{n+1/2}(p) (F_c^n(p) + [source] f_n h / V)
//   dJ/dlambda(c)  = sum_n tr(sigmabar^{n+1})(c) tr(e^{n+1/2})(c)
//   dJ/dmu(c)      = sum_n 2 sum_c sigmabar_cc^{n+1} e_cc^{n+1/2}
//   dJ/dmu_ac(p)   = sum_n sigmabar_ac^{n+1}(p) e_ac^{n+1/2}(p)
// where vbar^{n+1/2} is the adjoint after E^T of step n and sigmabar^{n+1} the one before it.
// F^n and e^{n+1/2} are the forward update's own values. ImageVelocity takes F^n from the state
// before step n (divergence_of with Memory::peek: sigma^n, and the psi term from a copy of the
// stress memory variable, nothing written); ImageStress takes e^{n+1/2} from the state after
// step n (strains_of with Memory::current: v^{n+1/2} and the velocity memory variables the
// stress update advanced). The forward history must thus give, per step n, the states before
// and after it (State::checkpointed()); away from the strips only sigma^n and v^{n+1/2}.
//
// MaterialGradient chains the five (2D) or eight (3D) images through BuildMaterial to dJ/dvp,
// dJ/dvs and dJ/drho at each cell of the padded grid.

#include "pwave/physics/acoustic_vd/adjoint_kernels.hpp"
#include "pwave/physics/elastic/material.hpp"
#include "pwave/physics/elastic/update_terms.hpp"

namespace pwave::physics::elastic {

/// The image channels: one per coefficient array of the step, the order of
/// Physics::model_arrays_of (dt lambda, dt mu, dt b_x, dt b_z, dt mu_xz; 3D: dt b_y, dt mu_xy,
/// dt mu_yz).
enum Channel : int { lambda_ch = 0, mu_ch, bx_ch, bz_ch, mu_xz_ch, by_ch, mu_xy_ch, mu_yz_ch };

/// Device data of the backward run.
template <class T>
struct AdjointState {
  /// The adjoint fields (vbar, sigmabar, psibar, in the forward's layouts) with the forward's
  /// coefficients, profiles and geometry.
  State<T> st;
  /// [axis a][component c]: the adjoint of the stretched derivative along a of sigma_ac (during
  /// V^T, at the v_c points) or of v_c (during E^T, at the cells for a = c, else at the shear
  /// points). Halo layout, halo zero (the Gathers read it there); y entries 3D only.
  Field<T> bar[3][3];
};

/// ybar through the transpose of the CPML term of a derivative along `Axis` (D+ if `Plus`) at
/// the accessor's point(s): ybar itself outside the axis' strips, else (1 + b) ybar + b psibar,
/// advancing psibar.
template <int Axis, bool Plus, bool InStrip, class A, class V, class T>
KOKKOS_FORCEINLINE_FUNCTION V transposed(const A& at, V ybar, const Field<T>& memory) {
  if constexpr (InStrip) {
    auto m = at.template load_memory<Axis>(memory);
    const V g = acoustic_vd::psi_transpose(ybar, m, at.template profile_a<Axis, Plus>(),
                                           at.template profile_b<Axis, Plus>());
    at.template store_memory<Axis>(memory, m);
    return g;
  } else {
    return ybar;
  }
}

/// The kernels below state their arithmetic in apply(at) for an accessor (kernels.hpp:
/// CellAccess, LineAccess), and run it cell by cell (operator()) or by host x lines (line()).

/// E^T's products at the accessor's point(s) of the adjoint fields `st` (sigmabar^{n+1}), before
/// the CPML's transposes: ebar_cc = lambda tr(sigmabar) + 2 mu sigmabar_cc at the cells (the
/// stress-strain map is symmetric), ebar_ac = mu_ac sigmabar_ac at the shear points. y terms 3D.
template <class V>
struct StressBars {
  V xx{}, yy{}, zz{}, xz{}, xy{}, yz{};
};
template <int Dim, class At, class T>
KOKKOS_FORCEINLINE_FUNCTION StressBars<typename At::Value> stress_bars_of(const At& at,
                                                                          const State<T>& st) {
  StressBars<typename At::Value> b;
  const auto sxx = at.load(st.sxx), szz = at.load(st.szz);
  typename At::Value syy{};
  if constexpr (Dim == 3) syy = at.load(st.syy);
  const auto lambda = at.coefficient(st.lambda), mu = at.coefficient(st.mu);
  const auto trace = sxx + syy + szz;
  b.xx = normal_stress(lambda, mu, trace, sxx);
  b.zz = normal_stress(lambda, mu, trace, szz);
  b.xz = at.coefficient(st.mu_xz) * at.load(st.sxz);
  if constexpr (Dim == 3) {
    b.yy = normal_stress(lambda, mu, trace, syy);
    b.xy = at.coefficient(st.mu_xy) * at.load(st.sxy);
    b.yz = at.coefficient(st.mu_yz) * at.load(st.syz);
  }
  return b;
}
/// The product whose derivative along A enters vbar_c (bar[A][C] outside the strips).
template <int A, int C, class V>
KOKKOS_FORCEINLINE_FUNCTION V stress_bar(const StressBars<V>& b) {
  if constexpr (A == C) {
    return A == X ? b.xx : A == Y ? b.yy : b.zz;
  } else if constexpr (A + C == X + Z) {
    return b.xz;
  } else if constexpr (A + C == X + Y) {
    return b.xy;
  } else {
    return b.yz;
  }
}

/// V^T's products at the accessor's point(s) of the adjoint fields `st` (vbar^{n+1/2}), before
/// the CPML's transposes: gbar_ac = B_c vbar_c at the v_c points, for every axis a. vy 3D.
template <class V>
struct VelocityBars {
  V x{}, y{}, z{};
};
template <int Dim, class At, class T>
KOKKOS_FORCEINLINE_FUNCTION VelocityBars<typename At::Value> velocity_bars_of(const At& at,
                                                                              const State<T>& st) {
  VelocityBars<typename At::Value> b;
  b.x = at.coefficient(st.bx) * at.load(st.vx);
  b.z = at.coefficient(st.bz) * at.load(st.vz);
  if constexpr (Dim == 3) b.y = at.coefficient(st.by) * at.load(st.vy);
  return b;
}
/// The product whose derivative along A enters sigmabar_ac (bar[A][C] outside the strips).
template <int A, int C, class V>
KOKKOS_FORCEINLINE_FUNCTION V velocity_bar(const VelocityBars<V>& b) {
  return C == X ? b.x : C == Y ? b.y : b.z;
}

/// E^T, first launch: the strains' adjoints bar[a][c] from sigmabar^{n+1} (StressBars through
/// the CPML's transposes), stored for the gathers.
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct AdjointStressBar
    : PointwiseKernel<AdjointStressBar<T, Order, Dim, InX, InZ, InY>, T, Order> {
  AdjointState<T> a;
  Coefficients<T, Order> c;

  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    const State<T>& st = a.st;
    const AxisCpml<T>& mx = st.cpml[X];
    const AxisCpml<T>& my = st.cpml[Y];
    const AxisCpml<T>& mz = st.cpml[Z];
    const auto b = stress_bars_of<Dim>(at, st);
    at.store(a.bar[X][X], transposed<X, minus, InX>(at, b.xx, mx.velocity[X]));
    at.store(a.bar[Z][Z], transposed<Z, minus, InZ>(at, b.zz, mz.velocity[Z]));
    at.store(a.bar[Z][X], transposed<Z, plus, InZ>(at, b.xz, mz.velocity[X]));
    at.store(a.bar[X][Z], transposed<X, plus, InX>(at, b.xz, mx.velocity[Z]));
    if constexpr (Dim == 3) {
      at.store(a.bar[Y][Y], transposed<Y, minus, InY>(at, b.yy, my.velocity[Y]));
      at.store(a.bar[Y][X], transposed<Y, plus, InY>(at, b.xy, my.velocity[X]));
      at.store(a.bar[X][Y], transposed<X, plus, InX>(at, b.xy, mx.velocity[Y]));
      at.store(a.bar[Z][Y], transposed<Z, plus, InZ>(at, b.yz, mz.velocity[Y]));
      at.store(a.bar[Y][Z], transposed<Y, plus, InY>(at, b.yz, my.velocity[Z]));
    }
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return a.st; }
};

/// E^T, second launch: vbar_c -= D+_c ebar_cc + sum_{a != c} D-_a ebar_ac (the transposes of
/// the strains' D- and D+). `Inline` false: of the AdjointStressBar arrays; true: of the
/// StressBars computed at each tap, which equal them where no tap lies in a strip or in the
/// rows the free surface's transposes read (AdjointStep's inline box): E^T in one pass, 10
/// arrays per point in 2D instead of the two launches' 18. On the 2D host paths the inline
/// gathers run host_depths<2> rows per work item (DepthsAccess::derivative_of: each tapped row's
/// products computed once for all of them).
template <class T, int Order, int Dim, bool Inline>
struct AdjointStressGather : DepthKernel<AdjointStressGather<T, Order, Dim, Inline>, T, Order,
                                         Inline ? host_depths<Dim> : 1> {
  AdjointState<T> a;
  Coefficients<T, Order> c;

  /// The derivative along A, D+ or D-, of the product bar[A][C].
  template <int A, int C, bool Plus, class At>
  KOKKOS_FORCEINLINE_FUNCTION auto d(const At& at) const {
    if constexpr (Inline) {
      return derivative_of<A, Plus>(
          at, [&](const auto& tap) { return stress_bar<A, C>(stress_bars_of<Dim>(tap, a.st)); });
    } else {
      return at.template stencil<A, Plus>(a.bar[A][C]);
    }
  }
  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    const State<T>& st = a.st;
    auto vx = d<X, X, plus>(at) + d<Z, X, minus>(at);
    auto vz = d<Z, Z, plus>(at) + d<X, Z, minus>(at);
    if constexpr (Dim == 3) {
      vx += d<Y, X, minus>(at);
      vz += d<Y, Z, minus>(at);
      at.store(st.vy,
               at.load(st.vy) - (d<Y, Y, plus>(at) + d<X, Y, minus>(at) + d<Z, Y, minus>(at)));
    }
    at.store(st.vx, at.load(st.vx) - vx);
    at.store(st.vz, at.load(st.vz) - vz);
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return a.st; }
};

/// V^T, first launch: the adjoints of the stretched stress derivatives bar[a][c] from
/// vbar^{n+1/2} (VelocityBars through the CPML's transposes), stored for the gathers.
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct AdjointVelocityBar
    : PointwiseKernel<AdjointVelocityBar<T, Order, Dim, InX, InZ, InY>, T, Order> {
  AdjointState<T> a;
  Coefficients<T, Order> c;

  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    const State<T>& st = a.st;
    const AxisCpml<T>& mx = st.cpml[X];
    const AxisCpml<T>& my = st.cpml[Y];
    const AxisCpml<T>& mz = st.cpml[Z];
    const auto w = velocity_bars_of<Dim>(at, st);
    at.store(a.bar[X][X], transposed<X, plus, InX>(at, w.x, mx.stress[X]));
    at.store(a.bar[Z][X], transposed<Z, minus, InZ>(at, w.x, mz.stress[X]));
    at.store(a.bar[X][Z], transposed<X, minus, InX>(at, w.z, mx.stress[Z]));
    at.store(a.bar[Z][Z], transposed<Z, plus, InZ>(at, w.z, mz.stress[Z]));
    if constexpr (Dim == 3) {
      at.store(a.bar[Y][X], transposed<Y, minus, InY>(at, w.x, my.stress[X]));
      at.store(a.bar[Y][Z], transposed<Y, minus, InY>(at, w.z, my.stress[Z]));
      at.store(a.bar[X][Y], transposed<X, minus, InX>(at, w.y, mx.stress[Y]));
      at.store(a.bar[Y][Y], transposed<Y, plus, InY>(at, w.y, my.stress[Y]));
      at.store(a.bar[Z][Y], transposed<Z, minus, InZ>(at, w.y, mz.stress[Y]));
    }
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return a.st; }
};

/// V^T, second launch: sigmabar_cc -= D-_c gbar_cc, sigmabar_ac -= D+_a gbar_ac + D+_c gbar_ca,
/// of the AdjointVelocityBar arrays (`Inline` false) or of the VelocityBars computed at each tap
/// (true, AdjointStep's inline box, as AdjointStressGather).
template <class T, int Order, int Dim, bool Inline>
struct AdjointVelocityGather : DepthKernel<AdjointVelocityGather<T, Order, Dim, Inline>, T, Order,
                                           Inline ? host_depths<Dim> : 1> {
  AdjointState<T> a;
  Coefficients<T, Order> c;

  template <int A, int C, bool Plus, class At>
  KOKKOS_FORCEINLINE_FUNCTION auto d(const At& at) const {
    if constexpr (Inline) {
      return derivative_of<A, Plus>(at, [&](const auto& tap) {
        return velocity_bar<A, C>(velocity_bars_of<Dim>(tap, a.st));
      });
    } else {
      return at.template stencil<A, Plus>(a.bar[A][C]);
    }
  }
  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    const State<T>& st = a.st;
    at.store(st.sxx, at.load(st.sxx) - d<X, X, minus>(at));
    at.store(st.szz, at.load(st.szz) - d<Z, Z, minus>(at));
    at.store(st.sxz, at.load(st.sxz) - (d<Z, X, plus>(at) + d<X, Z, plus>(at)));
    if constexpr (Dim == 3) {
      at.store(st.syy, at.load(st.syy) - d<Y, Y, minus>(at));
      at.store(st.sxy, at.load(st.sxy) - (d<Y, X, plus>(at) + d<X, Y, plus>(at)));
      at.store(st.syz, at.load(st.syz) - (d<Z, Y, plus>(at) + d<Y, Z, plus>(at)));
    }
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return a.st; }
};

/// The forward state an update read and the adjoint of what it wrote, with the image sums.
template <class T>
struct ImagingState {
  State<T> forward;   ///< sigma^n, psi_sigma^{n-1} (ImageVelocity); v^{n+1/2}, psi_v^{n-1}
  State<T> adjoint;   ///< vbar^{n+1/2} (ImageVelocity); sigmabar^{n+1} (ImageStress)
  Field<T> image[8];  ///< [shot][nz][ny nx] by Channel (5 in 2D)
};

/// dJ/dB_c += vbar_c^{n+1/2} f_c at the accessor's point(s), f = F^n (divergence_of()): the one
/// statement of the velocity imaging.
template <int Dim, class At, class T, class F>
KOKKOS_FORCEINLINE_FUNCTION void image_velocity_at(const At& at, const ImagingState<T>& i,
                                                   const F& f) {
  const State<T>& adj = i.adjoint;
  at.add_image(i.image[bx_ch], at.load(adj.vx) * f.x);
  at.add_image(i.image[bz_ch], at.load(adj.vz) * f.z);
  if constexpr (Dim == 3) at.add_image(i.image[by_ch], at.load(adj.vy) * f.y);
}

/// dJ/dlambda, dJ/dmu, dJ/dmu_ac += sigmabar^{n+1} . e at the accessor's point(s), e the strains
/// of v^{n+1/2} (strains_of()): the one statement of the stress imaging.
template <int Dim, class At, class T, class E>
KOKKOS_FORCEINLINE_FUNCTION void image_stress_at(const At& at, const ImagingState<T>& i,
                                                 const E& e) {
  const State<T>& adj = i.adjoint;
  const auto sxx = at.load(adj.sxx), szz = at.load(adj.szz);
  auto trace = sxx + szz, work = sxx * e.xx + szz * e.zz;
  if constexpr (Dim == 3) {
    const auto syy = at.load(adj.syy);
    trace += syy, work += syy * e.yy;
    at.add_image(i.image[mu_xy_ch], at.load(adj.sxy) * e.xy);
    at.add_image(i.image[mu_yz_ch], at.load(adj.syz) * e.yz);
  }
  at.add_image(i.image[lambda_ch], trace * e.trace());
  at.add_image(i.image[mu_ch], work + work);  // 2 work
  at.add_image(i.image[mu_xz_ch], at.load(adj.sxz) * e.xz);
}

/// dJ/dB_c += vbar_c^{n+1/2} F_c^n at the velocity points (F: divergence_of() of the state the
/// velocity update read, its memory variables not advanced).
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct ImageVelocity : PointwiseKernel<ImageVelocity<T, Order, Dim, InX, InZ, InY>, T, Order> {
  ImagingState<T> i;
  Coefficients<T, Order> c;

  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    image_velocity_at<Dim>(at, i, divergence_of<Dim, InX, InZ, InY, Memory::peek>(at, i.forward));
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return i.forward; }
};

/// dJ/dlambda, dJ/dmu at the cells and dJ/dmu_ac at the shear points from sigmabar^{n+1} and the
/// strains of v^{n+1/2} (strains_of() of the state the stress update wrote, its memory variables
/// as they are).
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct ImageStress : PointwiseKernel<ImageStress<T, Order, Dim, InX, InZ, InY>, T, Order> {
  ImagingState<T> i;
  Coefficients<T, Order> c;

  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    image_stress_at<Dim>(at, i, strains_of<Dim, InX, InZ, InY, Memory::current>(at, i.forward));
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return i.forward; }
};

/// ImageVelocity from the F^n its forward step kept (KeptUpdateVelocity): a product at every
/// point, no stencil. `kept` set per step (Imaging).
template <class T, int Order, int Dim>
struct ImageKeptVelocity : PointwiseKernel<ImageKeptVelocity<T, Order, Dim>, T, Order> {
  ImagingState<T> i;
  Coefficients<T, Order> c;
  UpdateTerms<T> kept = {};  ///< set per step

  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    image_velocity_at<Dim>(at, i, kept_divergence<Dim>(at, kept));
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return i.forward; }
};

/// ImageStress from the e^{n+1/2} its forward step kept (KeptUpdateStress).
template <class T, int Order, int Dim>
struct ImageKeptStress : PointwiseKernel<ImageKeptStress<T, Order, Dim>, T, Order> {
  ImagingState<T> i;
  Coefficients<T, Order> c;
  UpdateTerms<T> kept = {};  ///< set per step

  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    image_stress_at<Dim>(at, i, kept_strains<Dim>(at, kept));
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return i.forward; }
};

/// First's apply(), then Second's, at each point of one launch, with First's layout and
/// coefficients: a backward pass and an imaging that reads what the pass reads at the same
/// point (AdjointStep: the inline gathers with the kept-term images, the adjoint fields loaded
/// once for both). Neither may write what the other reads at another point.
template <class T, int Order, class First, class Second>
struct Then : PointwiseKernel<Then<T, Order, First, Second>, T, Order> {
  First first;
  Second second;
  Coefficients<T, Order> c;

  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    first.apply(at);
    second.apply(at);
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return first.grid(); }
};

/// `boundary` storage, between the strips: the stress update of the state after step n reversed
/// (sigma^{n+1} -> sigma^n, in place) and ImageStress, from one evaluation of the strains of
/// v^{n+1/2} (no memory variable there). `i.forward` is the state being run backwards.
template <class T, int Order, int Dim>
struct ReverseStressImage : PointwiseKernel<ReverseStressImage<T, Order, Dim>, T, Order> {
  ImagingState<T> i;
  Coefficients<T, Order> c;

  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    const auto e = strains_of<Dim, false, false, false, Memory::current>(at, i.forward);
    image_stress_at<Dim>(at, i, e);
    add_stress<Direction::reverse, Dim>(at, i.forward, e);
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return i.forward; }
};

/// `boundary` storage, between the strips: the velocity update reversed (v^{n+1/2} -> v^{n-1/2},
/// in place) and ImageVelocity, from one evaluation of div sigma^n.
template <class T, int Order, int Dim>
struct ReverseVelocityImage : PointwiseKernel<ReverseVelocityImage<T, Order, Dim>, T, Order> {
  ImagingState<T> i;
  Coefficients<T, Order> c;

  template <class At>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const At& at) const {
    const auto f = divergence_of<Dim, false, false, false, Memory::peek>(at, i.forward);
    image_velocity_at<Dim>(at, i, f);
    add_velocity<Direction::reverse, Dim>(at, i.forward, f);
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return i.forward; }
};

/// The force source's share of dJ/dB_c: vbar_c^{n+1/2} f_n h_k / V at its taps (InjectForce
/// multiplies by B_c too). Launched over (shot, tap, n) after E^T of step n.
template <class T>
struct ImageForce {
  Field<T> image;        ///< the channel of the force's component
  Field<T> vbar;         ///< the adjoint of that component
  PointTaps<T> source;   ///< [shot][0][tap]
  SlotWavelets<T> wave;  ///< [shot][time]: f(t_n) / cell volume
  ColumnMap column;
  int first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int k, int n) const {
    const GridTap<T> t = source.at(first_shot + s, 0, k, column);
    if (t.h == T(0)) return;
    image(s, t.iz, t.q) += vbar(s, t.z, t.x) * wave(first_shot + s, n) * t.h;
  }
};

/// The transpose of a source: dJ/d(wavelet_n / V) = sum_k h_k `scale` at tap k of `sum` (the
/// adjoint fields it was added to: B_c vbar_c for a force, dt sum_c sigmabar_cc for an explosive
/// source). Launched over (shot, 0, n): one thread sums a source's taps.
template <class T, int Dim>
struct SourceGradient {
  Kokkos::View<T**, Kokkos::LayoutRight, MemSpace> gradient;  ///< [shot][time]
  Field<T> f0, f1, f2;  ///< the adjoint fields summed (f1, f2 empty: force)
  GridView<T> scale;    ///< B_c at the component's points (force); empty: use `dt`
  PointTaps<T> source;
  ColumnMap column;
  int first_shot;
  T dt;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int, int n) const {
    T sum = 0;
    for (int k = 0; k < source.taps(); ++k) {
      const GridTap<T> t = source.at(first_shot + s, 0, k, column);
      if (t.h == T(0)) continue;
      if (scale.extent(0) > 0) {
        sum += t.h * scale(t.iz, t.q) * f0(s, t.z, t.x);
      } else {
        T trace = f0(s, t.z, t.x) + f2(s, t.z, t.x);
        if constexpr (Dim == 3) trace += f1(s, t.z, t.x);
        sum += t.h * dt * trace;
      }
    }
    gradient(s, n) = sum;
  }
};

/// R_n^T: the residuals of receivers recording a velocity component added to its adjoint
/// (several receivers may share a tap: atomic). Launched over (shot, receiver, n).
template <class T>
struct InjectVelocityResidual {
  Field<T> vbar;
  Traces<T> residual;  ///< [shot][receiver][time]
  PointTaps<T> receiver;
  ColumnMap column;
  int first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int r, int n) const {
    const T d = residual(s, r, n);
    for (int k = 0; k < receiver.taps(); ++k) {
      const GridTap<T> t = receiver.at(first_shot + s, r, k, column);
      Kokkos::atomic_add(&vbar(s, t.z, t.x), t.h * d);
    }
  }
};

/// R_n^T of RecordPressure: -h_k r / Dim added to each normal stress's adjoint at tap k.
template <class T, int Dim>
struct InjectPressureResidual {
  Field<T> sxx, syy, szz;  ///< adjoints
  Traces<T> residual;
  PointTaps<T> receiver;
  ColumnMap column;
  int first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int r, int n) const {
    const T d = residual(s, r, n);
    for (int k = 0; k < receiver.taps(); ++k) {
      const GridTap<T> t = receiver.at(first_shot + s, r, k, column);
      const T add = -t.h * d / T(Dim);
      Kokkos::atomic_add(&sxx(s, t.z, t.x), add);
      Kokkos::atomic_add(&szz(s, t.z, t.x), add);
      if constexpr (Dim == 3) Kokkos::atomic_add(&syy(s, t.z, t.x), add);
    }
  }
};

/// R_n^T by cell, for the propagator: each cell the receivers' taps touch (a cell of one
/// field: CellTaps::field, int(Component)) gets the sum of its contributions, h r^n in ascending
/// receiver order (fused multiply-adds, no atomics: bitwise the same on every backend and thread
/// count), added to the adjoint of what those receivers read: the velocity component's (field
/// 1, 2, 3: vx, vy, vz), or -1/Dim of it to each normal stress's (field 0, the pressure: the
/// transpose of RecordPressure). Launched over (shot, cell, n).
template <class T, int Dim>
struct InjectResidualByCell {
  Field<T> v[3];           ///< vbar x, y, z (y empty in 2D)
  Field<T> sxx, syy, szz;  ///< sigmabar's normal components (syy empty in 2D)
  Traces<T> residual;      ///< [shot][receiver][time]
  CellTaps<T> receiver;
  ColumnMap column;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int c, int n) const {
    const int begin = receiver.start(s, c), end = receiver.start(s, c + 1);
    if (begin == end) return;
    T acc = 0;
    for (int i = begin; i < end; ++i) {
      acc = math::fma(residual(s, receiver.point(s, i), n), receiver.weight(s, i), acc);
    }
    const int z = receiver.cell(s, c, 0) + column.halo, x = column(receiver.cell(s, c, 1));
    const int f = receiver.field(s, c);
    if (f > 0) {
      v[f - 1](s, z, x) += acc;
    } else {
      const T add = -acc / T(Dim);
      sxx(s, z, x) += add;
      szz(s, z, x) += add;
      if constexpr (Dim == 3) syy(s, z, x) += add;
    }
  }
};

/// dJ/dvp, dJ/dvs, dJ/drho at each cell of the padded grid from the images (the derivatives of
/// J with respect to the step's coefficient arrays), through BuildMaterial: with m = rho vs^2
/// (mu) and b = 1 / rho at the cells,
///   dJ/dm_c    = dt (I_mu(c) - 2 I_lambda(c)) + sum_P dt I_P dH_P/dm_c   (shear points P
///                touching c; H = harmonic_mean4, dH/dm_k = H^2 / (4 m_k^2), 0 if H = 0)
///   dJ/db_c    = sum_P dt I_P / 2 per mean term of P that is c           (velocity points P)
///   dJ/dvp     = 2 rho vp dt I_lambda(c),  dJ/dvs = 2 rho vs dJ/dm_c,
///   dJ/drho    = vp^2 dt I_lambda(c) + vs^2 dJ/dm_c - dJ/db_c / rho^2;
/// with a free surface, row 0's image is of surface_lambda(lambda, mu): I_lambda there is that
/// image times d lambda'/d lambda, and dJ/dm_c gains it times d lambda'/d mu.
/// A cell's points are gathered (no atomics): P runs over c minus each combination of the
/// mean's offsets, and counts each of its (clamped) terms that is c. Launched over
/// (shot, iz, q) of the padded grid.
template <class T, int Dim>
struct MaterialGradient {
  BuildMaterial<T> material;  ///< the model (padded grid), its geometry, dt
  Field<T> image[8];          ///< [shot][nz][ny nx] by Channel
  Field<T> vp, vs, rho;       ///< [shot][nz][ny nx] the gradients (written)

  /// dJ/d(term) summed over the points of `ch` whose mean (offsets 0, u [, w, u + w]) has cell
  /// (iz, iy, ix) as a term: sum_P I_ch(P) sum_{terms t of P that are the cell} weight(P, t).
  template <class Weight>
  KOKKOS_INLINE_FUNCTION T gather(int s, int ch, int iz, int iy, int ix, const int* u, const int* w,
                                  const Weight& weight) const {
    const State<T>& st = material.st;
    const int terms = w ? 4 : 2;
    T sum = 0;
    for (int k = 0; k < terms; ++k) {  // P = cell - offset k
      const int pz = iz - ((k & 1) ? u[0] : 0) - ((k & 2) ? w[0] : 0);
      const int py = iy - ((k & 1) ? u[1] : 0) - ((k & 2) ? w[1] : 0);
      const int px = ix - ((k & 1) ? u[2] : 0) - ((k & 2) ? w[2] : 0);
      if (pz < 0 || py < 0 || px < 0) continue;
      T share = 0;
      for (int t = 0; t < terms; ++t) {  // term t of P: P + offset t, clamped
        const int tz =
            BuildMaterial<T>::clamp(pz + ((t & 1) ? u[0] : 0) + ((t & 2) ? w[0] : 0), st.nz);
        const int ty =
            BuildMaterial<T>::clamp(py + ((t & 1) ? u[1] : 0) + ((t & 2) ? w[1] : 0), st.ny);
        const int tx =
            BuildMaterial<T>::clamp(px + ((t & 1) ? u[2] : 0) + ((t & 2) ? w[2] : 0), st.nx);
        if (tz == iz && ty == iy && tx == ix) share += weight(pz, py, px);
      }
      if (share != T(0)) sum += share * image[ch](s, pz, st.plane(py, px));
    }
    return sum;
  }

  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int q) const {
    const State<T>& st = material.st;
    const int iy = q / st.nx, ix = q % st.nx;
    const T dt = material.dt;
    const int ex[3] = {0, 0, 1}, ey[3] = {0, 1, 0}, ez[3] = {1, 0, 0};  // unit offsets (z, y, x)
    const auto half = [](int, int, int) { return T(0.5); };
    const T m = material.mu_at(iz, iy, ix);
    // dH/dm of the cell for the shear point P whose four terms start at P + (0, u, w, u + w).
    const auto harmonic = [&](const int* u, const int* w) {
      return [=](int pz, int py, int px) {
        const T h = harmonic_mean4(
            material.mu_at(pz, py, px), material.mu_at(pz + u[0], py + u[1], px + u[2]),
            material.mu_at(pz + w[0], py + w[1], px + w[2]),
            material.mu_at(pz + u[0] + w[0], py + u[1] + w[1], px + u[2] + w[2]));
        return h > T(0) ? h * h / (T(4) * m * m) : T(0);
      };
    };
    T i_lambda = dt * image[lambda_ch](s, iz, q), dm_surface = 0;
    if (material.free_surface && iz == 0) {  // row 0's image is of surface_lambda(lambda, mu)
      const auto d = surface_lambda_partials(material.lambda_at(iz, q, m), m);
      dm_surface = d.mu * i_lambda;
      i_lambda *= d.lambda;
    }
    T dm = dt * image[mu_ch](s, iz, q) - T(2) * i_lambda +
           dt * gather(s, mu_xz_ch, iz, iy, ix, ex, ez, harmonic(ex, ez)) + dm_surface;
    T db = dt * (gather(s, bx_ch, iz, iy, ix, ex, nullptr, half) +
                 gather(s, bz_ch, iz, iy, ix, ez, nullptr, half));
    if constexpr (Dim == 3) {
      dm += dt * (gather(s, mu_xy_ch, iz, iy, ix, ex, ey, harmonic(ex, ey)) +
                  gather(s, mu_yz_ch, iz, iy, ix, ey, ez, harmonic(ey, ez)));
      db += dt * gather(s, by_ch, iz, iy, ix, ey, nullptr, half);
    }
    const T r = material.rho(iz, q), p = material.vp(iz, q), v = material.vs(iz, q);
    vp(s, iz, q) = T(2) * r * p * i_lambda;
    vs(s, iz, q) = T(2) * r * v * dm;
    rho(s, iz, q) = p * p * i_lambda + v * v * dm - db / (r * r);
  }
};

}  // namespace pwave::physics::elastic
