#pragma once
// A model-grid array onto the padded grid: the model extended into the CPML by its edge values
// (the layers copy the nearest model cell), on the device.

#include "pwave/core/types.hpp"
#include "pwave/propagation/padded_layout.hpp"

namespace pwave::propagation {

/// The value itself (a material copied as it is, e.g. rho).
template <class T>
struct Identity {
  KOKKOS_INLINE_FUNCTION T operator()(T v) const { return v; }
};

/// v^2 * factor (a velocity to v^2 dt^2).
template <class T>
struct SquareTimes {
  T factor;
  KOKKOS_INLINE_FUNCTION T operator()(T v) const { return v * v * factor; }
};

/// out(iz, q) = f(in(mz, my nx + mx)) for every padded cell (iz, q = iy pnx + ix) of `layout`,
/// (mz, my, mx) the model cell it copies: itself inside the model, the nearest edge cell in the
/// CPML layers. `in` is [nz][ny nx] on the model grid, `out` [pnz][pny pnx]; `f` a device
/// functor T -> T (e.g. v -> v^2 dt^2).
template <class T, class F>
void extend_model(const char* label, const PaddedLayout& layout, int nz, int ny, int nx,
                  const GridView<T>& in, const GridView<T>& out, const F& f) {
  const int pt = layout.layer[top], pl = layout.layer[left];
  const int pf = layout.layer[front], pnx = layout.nx;  // layer[front] = 0 in 2D
  Kokkos::parallel_for(
      label,
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {layout.nz, layout.ny * pnx}),
      KOKKOS_LAMBDA(const int iz, const int q) {
        const int iy = q / pnx, ix = q % pnx;
        const int mz = iz - pt < 0 ? 0 : (iz - pt >= nz ? nz - 1 : iz - pt);
        const int my = iy - pf < 0 ? 0 : (iy - pf >= ny ? ny - 1 : iy - pf);
        const int mx = ix - pl < 0 ? 0 : (ix - pl >= nx ? nx - 1 : ix - pl);
        out(iz, q) = f(in(mz, my * nx + mx));
      });
}

}  // namespace pwave::propagation
