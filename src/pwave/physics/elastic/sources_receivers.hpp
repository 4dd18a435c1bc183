#pragma once
// The elastic sources and receivers: force (InjectForce) and explosive (InjectExplosive) sources,
// pressure (RecordPressure) and mixed-component (RecordComponents) receivers, each launched over
// (shot, tap or receiver, n) like physics::InjectSource and physics::RecordReceivers. The
// reverse-direction sources undo a step's injection (the boundary strategy's backward run).

#include "pwave/physics/elastic/kernels.hpp"

namespace pwave::physics::elastic {

/// A force along one axis: adds dt b f(t_n) h_k / V at each tap k of each shot's source to the
/// velocity component of that axis (after UpdateVelocity of step n: part of v^{n+1/2}), the
/// discrete rho v_t = ... + f(t) delta(x - x_s), delta spread over the taps' weights h_k.
/// The taps are points of that component (its half points). Launched over (shot, tap, n), as
/// physics::InjectSource.
template <class T, Direction Dir = Direction::forward>
struct InjectForce {
  Field<T> v;            ///< the component the force acts along
  GridView<T> b;         ///< dt b at that component's points (State::bx, by or bz)
  PointTaps<T> source;   ///< [shot][0][tap]
  SlotWavelets<T> wave;  ///< [shot][time]: f(t_n) / cell volume (N/m per m^2 in 2D)
  ColumnMap column;
  int first_shot;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int k, int n) const {
    const GridTap<T> t = source.at(first_shot + s, 0, k, column);
    if (t.h == T(0)) return;
    T& at = v(s, t.z, t.x);
    at = advanced<Dir>(at, b(t.iz, t.q) * wave(first_shot + s, n) * t.h);
  }
};

/// An explosive source (isotropic moment): adds dt m(t_{n+1/2}) h_k / V to every normal stress
/// at each tap k (after UpdateStress of step n: part of sigma^{n+1}), the discrete
/// sigma_t = ... + m(t) I delta(x - x_s). The pressure p = -tr(sigma) / Dim then falls by
/// dt m / V. Launched over (shot, tap, n).
template <class T, int Dim, Direction Dir = Direction::forward>
struct InjectExplosive {
  Field<T> sxx, syy, szz;
  PointTaps<T> source;   ///< [shot][0][tap], at cells
  SlotWavelets<T> wave;  ///< [shot][time]: m(t_{n+1/2}) / cell volume
  ColumnMap column;
  int first_shot;
  T dt;

  KOKKOS_INLINE_FUNCTION void operator()(int s, int k, int n) const {
    const GridTap<T> t = source.at(first_shot + s, 0, k, column);
    if (t.h == T(0)) return;
    const T add = dt * wave(first_shot + s, n) * t.h;
    sxx(s, t.z, t.x) = advanced<Dir>(sxx(s, t.z, t.x), add);
    szz(s, t.z, t.x) = advanced<Dir>(szz(s, t.z, t.x), add);
    if constexpr (Dim == 3) syy(s, t.z, t.x) = advanced<Dir>(syy(s, t.z, t.x), add);
  }
};

/// traces(shot, receiver, n) = sum over the receiver's taps of h_k p(x_k), p = -tr(sigma) / Dim
/// the pressure at the cells (sigma^n before step n: the sample at t_n). Velocities are
/// recorded with physics::RecordReceivers on the component's field (v^{n-1/2} before step n:
/// the sample at t_{n-1/2}).
template <class T, int Dim>
struct RecordPressure {
  Traces<T> traces;
  Field<T> sxx, syy, szz;
  PointTaps<T> receiver;  ///< [shot][receiver][tap], at cells
  ColumnMap column;
  int first_shot;

  KOKKOS_INLINE_FUNCTION T tap(int s, int r, int k) const {
    const GridTap<T> t = receiver.at(first_shot + s, r, k, column);
    T trace = sxx(s, t.z, t.x) + szz(s, t.z, t.x);
    if constexpr (Dim == 3) trace += syy(s, t.z, t.x);
    return -t.h * trace / T(Dim);
  }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int r, int n) const {
    T sum = tap(s, r, 0);
    for (int k = 1; k < receiver.taps(); ++k) sum += tap(s, r, k);
    traces(s, r, n) = sum;
  }
};

/// traces(shot, receiver, n) of receivers that record different components: each its own,
/// `component`(shot, receiver) = int(Component): 0 the pressure (RecordPressure), 1, 2, 3 the
/// velocity along x, y, z (physics::RecordReceivers on vx, vy, vz). Launched over (shot,
/// receiver, n).
template <class T, int Dim>
struct RecordComponents {
  RecordPressure<T, Dim> pressure;
  RecordReceivers<T> velocity[3];           ///< on vx, vy, vz (vy empty in 2D)
  Kokkos::View<int**, MemSpace> component;  ///< [shot][receiver]

  KOKKOS_INLINE_FUNCTION T tap(int c, int s, int r, int k) const {
    return c == 0 ? pressure.tap(s, r, k) : velocity[c - 1].tap(s, r, k);
  }
  KOKKOS_INLINE_FUNCTION void operator()(int s, int r, int n) const {
    const int c = component(s, r);
    T sum = tap(c, s, r, 0);
    for (int k = 1; k < pressure.receiver.taps(); ++k) sum += tap(c, s, r, k);
    pressure.traces(s, r, n) = sum;
  }
};

}  // namespace pwave::physics::elastic
