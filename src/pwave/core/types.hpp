#pragma once
// Kokkos aliases used across pwave. Backend-specific choices come from backends/.

#include "pwave/core/kokkos_compat.hpp"

namespace pwave {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using HostSpace = Kokkos::HostSpace;

/// Wavefields of a shot batch: [shot][z][x], fastest axis last.
template <class T>
using Field2D = Kokkos::View<T***, Kokkos::LayoutRight, MemSpace>;
/// One value per grid cell: [z][x].
template <class T>
using Grid2DView = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>;
/// Receiver traces of a batch: [shot][receiver][time].
template <class T>
using Traces = Kokkos::View<T***, Kokkos::LayoutRight, MemSpace>;

/// Host-resident counterparts (inputs/outputs), same layouts.
template <class T>
using HostArray3 = Kokkos::View<T***, Kokkos::LayoutRight, HostSpace>;
template <class T>
using HostArray2 = Kokkos::View<T**, Kokkos::LayoutRight, HostSpace>;

/// Uninitialised host mirror of a device view (Kokkos 3.4 .. 5.x).
template <class V>
typename V::host_mirror_type host_mirror_uninit(const V& v) {
  return Kokkos::create_mirror_view(Kokkos::view_alloc(HostSpace(), Kokkos::WithoutInitializing), v);
}

}  // namespace pwave
