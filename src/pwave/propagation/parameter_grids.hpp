#pragma once
// One model-grid array per material parameter: how a model's parameters are handed to a
// propagator and how their gradients come back, for any equation.

#include "pwave/core/types.hpp"
#include "pwave/physics/parameter.hpp"

namespace pwave {

/// A [nz][ny nx] device array (model grid) per physics::Parameter, empty for the parameters
/// not given or not wanted.
template <class T>
struct ParameterGrids {
  GridView<T> grids[physics::parameter_count];

  GridView<T>& operator[](physics::Parameter p) { return grids[int(p)]; }
  const GridView<T>& operator[](physics::Parameter p) const { return grids[int(p)]; }
  /// Whether parameter p has an array.
  bool has(physics::Parameter p) const { return grids[int(p)].extent(0) > 0; }
};

}  // namespace pwave
