#pragma once
// Kokkos aliases used across pwave. Backend-specific choices come from backends/.

#include "pwave/core/kokkos_compat.hpp"

namespace pwave {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using HostSpace = Kokkos::HostSpace;

/// Wavefields of a shot batch: [shot][z][x] in 2D, [shot][z][y x] in 3D (the y and x axes of a
/// z plane flattened into one column index), fastest axis last.
template <class T>
using Field = Kokkos::View<T***, Kokkos::LayoutRight, MemSpace>;
/// One value per grid cell: [z][x] in 2D, [z][y x] in 3D.
template <class T>
using GridView = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace>;
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
  return Kokkos::create_mirror_view(Kokkos::view_alloc(HostSpace(), Kokkos::WithoutInitializing),
                                    v);
}

/// A device copy of host values in precision T (profiles, tables): one host-to-device copy.
template <class T>
Kokkos::View<T*, MemSpace> to_device(const std::vector<double>& v, const std::string& label) {
  Kokkos::View<T*, MemSpace> d(label, v.size());
  auto h = host_mirror_uninit(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = T(v[i]);
  Kokkos::deep_copy(d, h);
  return d;
}

}  // namespace pwave
