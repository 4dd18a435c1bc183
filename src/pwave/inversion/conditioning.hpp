#pragma once
// Gradient conditioning before the optimiser step: a mask (zero in the water layer, tapered to
// zero around the sources, where the gradient is dominated by the source imprint) and a
// Gaussian smoothing. All on the device; the mask is built once.

#include "pwave/core/types.hpp"
#include "pwave/inversion/fwi_config.hpp"

namespace pwave {

template <class T>
class GradientConditioner {
 public:
  /// water_depth and source_taper in metres (0 = off), smoothing sigma in metres (0 = off).
  GradientConditioner(const Grid& grid, const std::vector<ShotGeometry>& shots, double water_depth,
                      double source_taper, double smoothing);

  /// Masks and smooths `grad` [nz][nx] ([nz][ny nx] in 3D) in place.
  void apply(const GridView<T>& grad) const;

  /// The mask (1 = untouched, 0 = removed), for figures and tests.
  const GridView<T>& mask() const { return mask_; }

 private:
  Grid grid_;
  GridView<T> mask_, scratch_;
  Kokkos::View<T*, MemSpace> kernel_z_, kernel_x_, kernel_y_;  // normalised taps, [2 r + 1]
  bool masked_ = false;
};

}  // namespace pwave
