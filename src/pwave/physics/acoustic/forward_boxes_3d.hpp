#pragma once
// The constant-density 3D forward step's boxes (backends/launch.hpp for_each_box_3d): the padded
// grid cut into 3 x 3 x 3 boxes (CPML | interior | CPML along each axis) and the kernel each box
// runs, that of exactly the strips it lies in, so no cell tests which. On host backends the x
// strips beside the interior run over blocks of depths in the interior's work items
// (XStripLines) and the z and y slabs over whole x lines (SlabLines).

#include "backends/launch.hpp"
#include "pwave/physics/acoustic/slab_lines.hpp"
#include "pwave/physics/acoustic/x_strip_lines.hpp"

namespace pwave::physics {

/// The cuts of the 3D step's boxes.
template <class T>
backend::BoxCuts forward_box_cuts(const AcousticState<T>& st) {
  return {{0, st.strip_top, st.nz - st.strip_bottom, st.nz},
          {0, st.strip_front, st.ny - st.strip_back, st.ny},
          {0, st.strip_left, st.nx - st.strip_right, st.nx}};
}

/// for_each_box_3d's `make` of the 3D step: the kernel of the box outside [lo, hi) along the
/// axes whose flag is true.
template <class T, int Order>
struct ForwardBoxes3D {
  const AcousticState<T>& st;
  const ScaledStencil<T, Order>& coef;
  template <class InX, class InY, class InZ>
  auto operator()(InX, InY, InZ) const {
    constexpr bool x = InX::value, y = InY::value, z = InZ::value;
    if constexpr (!x && !y && !z) {
      return InteriorStep<T, Order, 3>(st, coef);
    } else if constexpr (x && !y && !z) {
      return XStripLines<T, Order>(st, coef);
    } else if constexpr (x) {
      return SlabLines<T, Order, z, y>(st, coef);
    } else {
      return CpmlStep<T, Order, x, z, 3, y>(st, coef);
    }
  }
};

}  // namespace pwave::physics
