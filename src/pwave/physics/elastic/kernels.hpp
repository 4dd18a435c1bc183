#pragma once
// Isotropic elastic equation, velocity-stress form on a staggered grid (Virieux 1986 for P-SV,
// Levander 1988 for the higher orders, Graves 1996 in 3D):
//
//   rho dv_i/dt     = sum_j d sigma_ij / dx_j + f_i(t) delta(x - x_s)
//   d sigma_ij / dt = lambda div(v) delta_ij + mu (dv_i/dx_j + dv_j/dx_i)
//                     + m(t) delta_ij delta(x - x_s)
//
// Where each field lives. Index (iz, [iy,] ix) of every field is cell (iz, iy, ix) of the padded
// grid, its value taken half a cell further along some axes (acoustic_vd's convention: index j
// of a half-point field is the point j + 1/2):
//
//   field           point                                 coefficient there (all times dt)
//   sxx, syy, szz   (iz,       iy,       ix)              lambda, mu of the cell
//   vx              (iz,       iy,       ix + 1/2)        bx = (b_ix + b_ix+1) / 2, b = 1/rho
//   vy              (iz,       iy + 1/2, ix)              by (3D)
//   vz              (iz + 1/2, iy,       ix)              bz
//   sxz             (iz + 1/2, iy,       ix + 1/2)        mu_xz = harmonic mean of 4 cells' mu
//   sxy, syz        (iz, iy + 1/2, ix + 1/2), (iz + 1/2, iy + 1/2, ix)   mu_xy, mu_yz (3D)
//
// The averages are those of the variable-density acoustic equation and of Moczo et al. (2002):
// the arithmetic mean of the buoyancy (the harmonic mean of the density) keeps b dsigma/dx
// continuous across an interface; the harmonic mean of mu is the effective shear modulus of
// the four cells in series (stress continuous across them), and it is 0 as soon as one of them
// has mu = 0: a fluid cell (vs = 0) makes the shear stress vanish on every shear point it
// touches, which is the fluid-solid condition (no shear traction), and in a fluid region sxz
// stays 0, so that sxx = szz = -p and the scheme is the variable-density acoustic one exactly
// (tests/physics/test_elastic_kernels.cpp). The last point of an axis (beyond it the halo)
// takes the last cell's values (clamped neighbours), as acoustic_vd's buoyancy does.
//
// One step n -> n+1 is two launches, each over the whole padded grid:
//   UpdateVelocity:  v^{n+1/2}   = v^{n-1/2} + dt b (div sigma^n)          (then force sources)
//   UpdateStress:    sigma^{n+1} = sigma^n + dt (lambda tr(eps) I + 2 mu eps)(v^{n+1/2})
//                                                                          (then explosive ones)
// with D+ (whole points to half points) and D- (half points to whole points) the staggered
// first derivatives of order `Order` (acoustic_vd::d_plus, d_minus):
//   vx += bx (D+x sxx + D-y sxy + D-z sxz)     sxx += lambda tr + 2 mu D-x vx,  tr = D-x vx
//   vy += by (D-x sxy + D+y syy + D-z syz)     syy += lambda tr + 2 mu D-y vy     + D-y vy
//   vz += bz (D-x sxz + D-y syz + D+z szz)     szz += lambda tr + 2 mu D-z vz     + D-z vz
//   sxz += mu_xz (D+z vx + D+x vz)        sxy += mu_xy (D+y vx + D+x vy)
//   syz += mu_yz (D+z vy + D+y vz)
// (2D: no y terms, no vy, syy, sxy, syz).
//
// CPML (Komatitsch & Martin 2007, the first-order C-PML with kappa = 1): in the strips of axis a
// every derivative along a is stretched, D F -> D F + psi, psi^n = a psi^{n-1} + b D F^n, with
// the profile of the point's position along a: physics::cpml_profile's a, b for D- (results at
// whole points), cpml_profile_half's for D+ (results at half points), the layer of the acoustic
// equations. psi is advanced in place by the point that owns it. Memory per axis a (AxisCpml):
// `stress[c]` for D_a sigma_{a c} (the update of v_c) and `velocity[c]` for D_a v_c (the
// stresses'), one per derivative taken along a: 4 per axis in 2D, 6 in 3D (the acoustic
// equations keep 3), stored only on the strips of AcousticState's layout (x strips [shot][nz][ny
// (left + right)], z strips [shot][top + bottom][ny nx], y strips [shot][nz][(front + back) nx]);
// the launches split the grid at the strips (step.hpp) so that no cell tests where it is.
//
// Fields keep pwave's halo layout (Field<T>: [shot][nz + 2 halo][(ny + 2 hy) ys], halo = stencil
// radius, zero and never written): beyond the CPML the boundary is rigid, as for the acoustic
// equations.
//
// The coefficients are built from vp, vs, rho by material.hpp; the sources and receivers are in
// sources_receivers.hpp, the kept update terms of the gradient in update_terms.hpp.

#include "pwave/physics/acoustic_vd/kernels.hpp"
#include "pwave/physics/elastic/kernel_paths.hpp"
#include "pwave/physics/point_sources.hpp"

namespace pwave::physics::elastic {

/// What a derivative does with its CPML memory variable psi (stretched()).
enum class Memory {
  advance,  ///< the step: psi advanced in place, D F + psi^n
  peek,     ///< the imaging of the state the update read: the same value, nothing written
  current   ///< the imaging of the state the update wrote: psi already advanced, D F + psi
};

/// The derivative of f along `Axis` at the accessor's point(s), D+ or D- (`Plus`), with the CPML
/// term when they lie in the axis' strips (`InStrip`), `memory` its psi, used as `Psi` says. The
/// one statement of every derivative of both updates and of the imaging.
template <int Axis, bool Plus, bool InStrip, Memory Psi, class A, class T>
KOKKOS_FORCEINLINE_FUNCTION auto stretched(const A& at, const Field<T>& f, const Field<T>& memory) {
  auto g = at.template stencil<Axis, Plus>(f);
  if constexpr (InStrip && Psi == Memory::current) {
    g = g + at.template load_memory<Axis>(memory);
  } else if constexpr (InStrip) {
    auto m = at.template load_memory<Axis>(memory);
    g = acoustic_vd::cpml_memory(m, at.template profile_a<Axis, Plus>(),
                                 at.template profile_b<Axis, Plus>(), g);
    if constexpr (Psi == Memory::advance) at.template store_memory<Axis>(memory, m);
  }
  return g;
}

/// The staggered derivative along `Axis` at the accessor's point(s), D+ or D- (`Plus`), of the
/// values value(at') computes at each tap's accessor at' (at.moved()): the stencil of a field
/// computed on the fly rather than stored.
template <int Axis, bool Plus, class A, class F>
KOKKOS_FORCEINLINE_FUNCTION auto derivative_of(const A& at, const F& value) {
  return at.template derivative_of<Axis, Plus>(value);
}

/// derivative<> at one point p (tests, the free surface).
template <int Axis, bool Plus, bool InStrip, Memory Psi = Memory::advance, class T, int Order>
KOKKOS_FORCEINLINE_FUNCTION T derivative(const State<T>& st, const Coefficients<T, Order>& c,
                                         const Field<T>& f, const Field<T>& memory,
                                         const Point& p) {
  return stretched<Axis, Plus, InStrip, Psi>(CellAccess<T, Order>{st, c, p}, f, memory);
}

/// The staggered stencil alone (no CPML term): derivative<> outside the strips.
template <int Axis, bool Plus, class T, int Order>
KOKKOS_FORCEINLINE_FUNCTION T stencil(const State<T>& st, const Coefficients<T, Order>& c,
                                      const Field<T>& f, const Point& p) {
  return CellAccess<T, Order>{st, c, p}.template stencil<Axis, Plus>(f);
}

/// The normal stress increment of component i: lambda tr(eps) + 2 mu eps_ii (both times dt).
/// The products are named in order: a sum of two operator calls (Depths) may evaluate them in
/// either order, and the first one computed is the one the compiler fuses into the sum (FMA).
template <class V>
KOKKOS_FORCEINLINE_FUNCTION V normal_stress(V lambda, V mu, V trace, V eps) {
  const V volume = lambda * trace;
  const V shear = (mu + mu) * eps;
  return volume + shear;
}

/// Parts of an update (bitmasks of its outputs, the `Parts` of divergence_of, add_velocity,
/// strains_of, add_stress and the update kernels): the velocity components, and the stresses
/// in four (the normal three, which share the trace, and each shear one). `every`: the whole
/// update, one kernel.
namespace part {
inline constexpr unsigned every = ~0u;
inline constexpr unsigned vx = 1, vy = 2, vz = 4;
inline constexpr unsigned normal = 1, sxz = 2, sxy = 4, syz = 8;
}  // namespace part

/// div(sigma) at the velocity points of p, one component each (the CPML terms included): what
/// UpdateVelocity multiplies by dt b. Components y in 3D only. V: the accessor's Value.
template <class V>
struct Divergence {
  V x{}, y{}, z{};
};

/// div(sigma) of state st at the accessor's point(s): the one statement of the velocity
/// update's right-hand side, for the update and its imaging; the components `Parts` (part::vx,
/// vy, vz) only, each advancing only its own memory variables.
template <int Dim, bool InX, bool InZ, bool InY, Memory Psi, unsigned Parts = part::every, class A,
          class T>
KOKKOS_FORCEINLINE_FUNCTION Divergence<typename A::Value> divergence_of(const A& at,
                                                                        const State<T>& st) {
  const AxisCpml<T>& mx = st.cpml[X];
  const AxisCpml<T>& my = st.cpml[Y];
  const AxisCpml<T>& mz = st.cpml[Z];
  Divergence<typename A::Value> f;
  if constexpr ((Parts & part::vx) != 0) {
    f.x = stretched<X, plus, InX, Psi>(at, st.sxx, mx.stress[X]) +
          stretched<Z, minus, InZ, Psi>(at, st.sxz, mz.stress[X]);
    if constexpr (Dim == 3) f.x += stretched<Y, minus, InY, Psi>(at, st.sxy, my.stress[X]);
  }
  if constexpr ((Parts & part::vz) != 0) {
    f.z = stretched<X, minus, InX, Psi>(at, st.sxz, mx.stress[Z]) +
          stretched<Z, plus, InZ, Psi>(at, st.szz, mz.stress[Z]);
    if constexpr (Dim == 3) f.z += stretched<Y, minus, InY, Psi>(at, st.syz, my.stress[Z]);
  }
  if constexpr (Dim == 3 && (Parts & part::vy) != 0) {
    f.y = stretched<X, minus, InX, Psi>(at, st.sxy, mx.stress[Y]) +
          stretched<Y, plus, InY, Psi>(at, st.syy, my.stress[Y]) +
          stretched<Z, minus, InZ, Psi>(at, st.syz, mz.stress[Y]);
  }
  return f;
}

template <class T, int Order, int Dim, bool InX, bool InZ, bool InY, Memory Psi>
KOKKOS_FORCEINLINE_FUNCTION Divergence<T> divergence(const State<T>& st,
                                                     const Coefficients<T, Order>& c,
                                                     const Point& p) {
  return divergence_of<Dim, InX, InZ, InY, Psi>(CellAccess<T, Order>{st, c, p}, st);
}

/// The strains of v at p (the CPML terms included): the normal ones at the cell (D- of each
/// velocity along its own axis), the shear ones eps_ac = D+_c v_a + D+_a v_c (twice the tensor's)
/// at their shear points. What UpdateStress multiplies by dt lambda, dt mu. y terms in 3D only.
template <class V>
struct Strains {
  V xx{}, yy{}, zz{}, xz{}, xy{}, yz{};
  KOKKOS_INLINE_FUNCTION V trace() const { return xx + yy + zz; }
};

/// The strains of state st at the accessor's point(s): the one statement of the stress
/// update's right-hand side, for the update, its imaging and the free surface; those of the
/// stresses `Parts` (part::normal, sxz, sxy, syz) only.
template <int Dim, bool InX, bool InZ, bool InY, Memory Psi, unsigned Parts = part::every, class A,
          class T>
KOKKOS_FORCEINLINE_FUNCTION Strains<typename A::Value> strains_of(const A& at, const State<T>& st) {
  const AxisCpml<T>& mx = st.cpml[X];
  const AxisCpml<T>& my = st.cpml[Y];
  const AxisCpml<T>& mz = st.cpml[Z];
  Strains<typename A::Value> e;
  if constexpr ((Parts & part::normal) != 0) {
    e.xx = stretched<X, minus, InX, Psi>(at, st.vx, mx.velocity[X]);
    e.zz = stretched<Z, minus, InZ, Psi>(at, st.vz, mz.velocity[Z]);
    if constexpr (Dim == 3) e.yy = stretched<Y, minus, InY, Psi>(at, st.vy, my.velocity[Y]);
  }
  if constexpr ((Parts & part::sxz) != 0) {
    e.xz = stretched<Z, plus, InZ, Psi>(at, st.vx, mz.velocity[X]) +
           stretched<X, plus, InX, Psi>(at, st.vz, mx.velocity[Z]);
  }
  if constexpr (Dim == 3 && (Parts & part::sxy) != 0) {
    e.xy = stretched<Y, plus, InY, Psi>(at, st.vx, my.velocity[X]) +
           stretched<X, plus, InX, Psi>(at, st.vy, mx.velocity[Y]);
  }
  if constexpr (Dim == 3 && (Parts & part::syz) != 0) {
    e.yz = stretched<Z, plus, InZ, Psi>(at, st.vy, mz.velocity[Y]) +
           stretched<Y, plus, InY, Psi>(at, st.vz, my.velocity[Z]);
  }
  return e;
}

template <class T, int Order, int Dim, bool InX, bool InZ, bool InY, Memory Psi>
KOKKOS_FORCEINLINE_FUNCTION Strains<T> strains(const State<T>& st, const Coefficients<T, Order>& c,
                                               const Point& p) {
  return strains_of<Dim, InX, InZ, InY, Psi>(CellAccess<T, Order>{st, c, p}, st);
}

/// Which way in time an update runs: forward, or reversed (the `boundary` storage's rebuild of
/// the interior, the state before a step from the state after it).
enum class Direction { forward, reverse };

/// old + increment forward, old - increment reversed: the one place the direction enters an
/// update.
template <Direction Dir, class V>
KOKKOS_FORCEINLINE_FUNCTION V advanced(V old, V increment) {
  if constexpr (Dir == Direction::forward) {
    return old + increment;
  } else {
    return old - increment;
  }
}

/// v += dt b f at the accessor's point(s) (`Dir`: or -=): the one statement of the velocity
/// update, f its divergence_of(); the components `Parts` only.
template <Direction Dir, int Dim, unsigned Parts = part::every, class A, class T, class F>
KOKKOS_FORCEINLINE_FUNCTION void add_velocity(const A& at, const State<T>& st, const F& f) {
  if constexpr (Dim == 3 && (Parts & part::vy) != 0)
    at.store(st.vy, advanced<Dir>(at.load(st.vy), at.coefficient(st.by) * f.y));
  if constexpr ((Parts & part::vx) != 0)
    at.store(st.vx, advanced<Dir>(at.load(st.vx), at.coefficient(st.bx) * f.x));
  if constexpr ((Parts & part::vz) != 0)
    at.store(st.vz, advanced<Dir>(at.load(st.vz), at.coefficient(st.bz) * f.z));
}

/// sigma += dt (lambda tr(e) I + 2 mu e) at the accessor's point(s) (`Dir`: or -=): the one
/// statement of the stress update, e its strains_of(); the stresses `Parts` only.
template <Direction Dir, int Dim, unsigned Parts = part::every, class A, class T, class E>
KOKKOS_FORCEINLINE_FUNCTION void add_stress(const A& at, const State<T>& st, const E& e) {
  if constexpr ((Parts & part::normal) != 0) {
    const auto lambda = at.coefficient(st.lambda), mu = at.coefficient(st.mu);
    const auto trace = e.trace();
    at.store(st.sxx, advanced<Dir>(at.load(st.sxx), normal_stress(lambda, mu, trace, e.xx)));
    at.store(st.szz, advanced<Dir>(at.load(st.szz), normal_stress(lambda, mu, trace, e.zz)));
    if constexpr (Dim == 3)
      at.store(st.syy, advanced<Dir>(at.load(st.syy), normal_stress(lambda, mu, trace, e.yy)));
  }
  if constexpr ((Parts & part::sxz) != 0)
    at.store(st.sxz, advanced<Dir>(at.load(st.sxz), at.coefficient(st.mu_xz) * e.xz));
  if constexpr (Dim == 3 && (Parts & part::sxy) != 0)
    at.store(st.sxy, advanced<Dir>(at.load(st.sxy), at.coefficient(st.mu_xy) * e.xy));
  if constexpr (Dim == 3 && (Parts & part::syz) != 0)
    at.store(st.syz, advanced<Dir>(at.load(st.syz), at.coefficient(st.mu_yz) * e.yz));
}

/// First launch of a step: v^{n+1/2} = v^{n-1/2} + dt b div(sigma^n) at every point of the
/// launched box, advancing the stress memory variables of the strips it lies in (InX, InZ, InY);
/// the components `Parts` only (part::vx, vy, vz: Step's 3D host path, one after the other).
template <unsigned Parts, class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct UpdateVelocityParts : DepthKernel<UpdateVelocityParts<Parts, T, Order, Dim, InX, InZ, InY>,
                                         T, Order, host_depths<Dim>> {
  State<T> st;
  Coefficients<T, Order> c;

  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const A& at) const {
    add_velocity<Direction::forward, Dim, Parts>(
        at, st, divergence_of<Dim, InX, InZ, InY, Memory::advance, Parts>(at, st));
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return st; }
};

/// Second launch: sigma^{n+1} = sigma^n + dt (lambda tr(eps) I + 2 mu eps)(v^{n+1/2}) at every
/// point of the launched box, advancing the velocity memory variables of its strips; the
/// stresses `Parts` only (part::normal, sxz, sxy, syz).
template <unsigned Parts, class T, int Order, int Dim, bool InX, bool InZ, bool InY>
struct UpdateStressParts : DepthKernel<UpdateStressParts<Parts, T, Order, Dim, InX, InZ, InY>, T,
                                       Order, host_depths<Dim>> {
  State<T> st;
  Coefficients<T, Order> c;

  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION void apply(const A& at) const {
    add_stress<Direction::forward, Dim, Parts>(
        at, st, strains_of<Dim, InX, InZ, InY, Memory::advance, Parts>(at, st));
  }
  KOKKOS_INLINE_FUNCTION const State<T>& grid() const { return st; }
};

/// The whole updates (every part in one kernel) and their parts by name.
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
using UpdateVelocity = UpdateVelocityParts<part::every, T, Order, Dim, InX, InZ, InY>;
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
using UpdateStress = UpdateStressParts<part::every, T, Order, Dim, InX, InZ, InY>;
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
using UpdateVx = UpdateVelocityParts<part::vx, T, Order, Dim, InX, InZ, InY>;
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
using UpdateVy = UpdateVelocityParts<part::vy, T, Order, Dim, InX, InZ, InY>;
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
using UpdateVz = UpdateVelocityParts<part::vz, T, Order, Dim, InX, InZ, InY>;
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
using UpdateNormalStresses = UpdateStressParts<part::normal, T, Order, Dim, InX, InZ, InY>;
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
using UpdateSxz = UpdateStressParts<part::sxz, T, Order, Dim, InX, InZ, InY>;
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
using UpdateSxy = UpdateStressParts<part::sxy, T, Order, Dim, InX, InZ, InY>;
template <class T, int Order, int Dim, bool InX, bool InZ, bool InY>
using UpdateSyz = UpdateStressParts<part::syz, T, Order, Dim, InX, InZ, InY>;

}  // namespace pwave::physics::elastic
