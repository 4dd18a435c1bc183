#pragma once
// How a cell-wise kernel is launched on each backend. The physics defines what a cell does
// (`f(shot, iz, ix)`); this header decides how cells map to threads, which is all that differs:
//  - host backends (Serial, OpenMP, Threads): one work item per row, an inner contiguous x loop
//    the compiler vectorises, rows streaming through cache;
//  - GPU backends: a 3D MDRange with tiles long in x (coalesced) and short in z.
// Backend names may appear here and nowhere else in shared code.

#include <Kokkos_Core.hpp>
#include <type_traits>
#include <utility>

namespace pwave::backend {

/// Tile shape (z, x) used for MDRange launches on GPUs.
template <class Exec>
struct StencilTile {
  static constexpr int z = 4;
  static constexpr int x = 64;
};

/// True where the execution space runs on the host (row loops), false on GPUs.
template <class Exec>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
}

/// Detects a functor's optional row method `f.row(shot, iz, x0, x1)` (a hand-vectorised host
/// path over one row); functors without it are called cell by cell.
template <class F, class = void>
struct has_row : std::false_type {};
template <class F>
struct has_row<F, std::void_t<decltype(std::declval<const F&>().row(0, 0, 0, 0))>>
    : std::true_type {};

/// Calls f(shot, iz, ix) for shot in [0, ns), iz in [z0, z1), ix in [x0, x1).
template <class Exec, class F>
void for_each_cell(const char* name, const Exec& exec, int ns, int z0, int z1, int x0, int x1,
                   const F& f) {
  if (ns <= 0 || z1 <= z0 || x1 <= x0) return;
  if constexpr (runs_on_host<Exec>()) {
    const int nrows = z1 - z0;
    Kokkos::parallel_for(
        name, Kokkos::RangePolicy<Exec>(exec, 0, long(ns) * nrows), KOKKOS_LAMBDA(const long k) {
          const int s = int(k / nrows);
          const int iz = z0 + int(k % nrows);
          if constexpr (has_row<F>::value) {
            f.row(s, iz, x0, x1);
          } else {
            for (int ix = x0; ix < x1; ++ix) f(s, iz, ix);
          }
        });
  } else {
    using Policy = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3>>;
    Kokkos::parallel_for(name,
                         Policy(exec, {0, z0, x0}, {ns, z1, x1},
                                {1, StencilTile<Exec>::z, StencilTile<Exec>::x}),
                         KOKKOS_LAMBDA(const int s, const int iz, const int ix) { f(s, iz, ix); });
  }
}

}  // namespace pwave::backend
