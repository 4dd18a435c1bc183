#pragma once
// The exact `full` history of an equation whose imaging multiplies the right-hand sides of its
// updates rather than its fields (the elastic equation: each step's divergence of the stresses
// and its strain rates, physics/elastic UpdateTerms): those terms, every step, written by the
// forward run's updates where they compute them, so that the backward run's imaging is a
// product and no stencil is applied twice.

#include <string>

#include "pwave/core/types.hpp"

namespace pwave::propagation {

/// `terms` fields per step for `steps` steps, each on the padded grid (halo dropped). Also the
/// elastic `checkpoint` storage's segment buffer (the terms of the steps of one recomputed
/// segment, step n in slot n % steps).
template <class T>
struct TermHistory {
  Kokkos::View<T*****, Kokkos::LayoutRight, MemSpace> kept;  ///< [step][term][shot][z][ny nx]

  /// Bytes per shot of `steps` steps of `terms` fields of `cells` padded cells.
  static double bytes_per_shot(int steps, int terms, double cells) {
    return double(steps) * terms * cells * sizeof(T);
  }
  /// Room for `count` shots, uninitialised (each forward step writes its slot whole before the
  /// backward run reads it).
  static TermHistory allocate(int steps, int terms, int count, int nz, int plane) {
    TermHistory h;
    h.kept = decltype(h.kept)(
        Kokkos::view_alloc(std::string("pwave::history_terms"), Kokkos::WithoutInitializing), steps,
        terms, count, nz, plane);
    return h;
  }
  int steps() const { return int(kept.extent(0)); }
  int terms() const { return int(kept.extent(1)); }
  /// Term k of slot n: [shot][z][ny nx].
  Field<T> term(int n, int k) const {
    return Kokkos::subview(kept, n, k, Kokkos::ALL, Kokkos::ALL, Kokkos::ALL);
  }
  /// Whether it has room for the terms of every step of `count` shots of an nt-step run.
  bool holds(int nt, int count) const { return steps() == nt && int(kept.extent(2)) >= count; }
};

}  // namespace pwave::propagation
