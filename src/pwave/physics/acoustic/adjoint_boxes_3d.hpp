#pragma once
// The constant-density 3D backward step's boxes (backends/launch.hpp for_each_box_3d), the
// counterpart of forward_boxes_3d.hpp: the padded grid cut a stencil radius inside the CPML strips,
// so that the inner box's stencils reach no strip and it runs a given interior kernel (the forward
// interior update on G, or that fused with the reversed step), and every other box the adjoint
// kernel of exactly the strips its stencils reach. On host backends the x strips beside the inner
// box run over blocks of depths in its work items (AdjointXStripLines).

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "backends/launch.hpp"
#include "pwave/physics/acoustic/adjoint_x_strip_lines.hpp"

namespace pwave::physics {

/// The cuts of the 3D backward step's boxes: each strip widened by the stencil radius (the
/// boundary storage's frame, propagation::FrameRegion).
template <class T>
backend::BoxCuts adjoint_box_cuts(const AcousticAdjointState<T>& st) {
  const int R = st.halo;
  const auto cut = [R](int strip_lo, int n, int strip_hi, int* c) {
    c[0] = 0;
    c[1] = std::min(strip_lo > 0 ? strip_lo + R : 0, n);
    c[2] = std::max(strip_hi > 0 ? n - strip_hi - R : n, c[1]);
    c[3] = n;
  };
  backend::BoxCuts cuts;
  cut(st.strip_top, st.nz, st.strip_bottom, cuts.z);
  cut(st.strip_front, st.ny, st.strip_back, cuts.y);
  cut(st.strip_left, st.nx, st.strip_right, cuts.x);
  return cuts;
}

/// for_each_box_3d's `make` of the 3D backward step: `interior` in the inner box (Interior
/// std::nullptr_t: a caller that updates the inner box in a launch of its own; the functor
/// returned for it is then never run), the adjoint kernel of the strips the box's stencils
/// reach elsewhere.
template <class T, int Order, class Interior>
struct AdjointBoxes3D {
  const AcousticAdjointState<T>& st;
  const ScaledStencil<T, Order>& coef;
  const Interior& interior;
  template <class InX, class InY, class InZ>
  auto operator()(InX, InY, InZ) const {
    constexpr bool x = InX::value, y = InY::value, z = InZ::value;
    if constexpr (!x && !y && !z) {
      if constexpr (std::is_same_v<Interior, std::nullptr_t>) {
        return InteriorStep<T, Order, 3>(st.as_forward(), coef);  // not run
      } else {
        return interior;
      }
    } else if constexpr (x && !y && !z) {
      return AdjointXStripLines<T, Order>(st, coef);
    } else {
      return AdjointFrameStep<T, Order, x, z, 3, y>(st, coef);
    }
  }
};

}  // namespace pwave::physics
