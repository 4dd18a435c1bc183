#pragma once
// Absorbing-boundary settings (CPML added outside the model) and the free surface.

namespace pwave {

/// Sides of a model, in the order used by every per-side array (front/back: the y sides, 3D only).
enum Side { top = 0, bottom = 1, left = 2, right = 3, front = 4, back = 5 };
inline constexpr int num_sides = 6;

/// CPML layers are added OUTSIDE the model; the model is extended into them by its edge values.
struct BoundaryConfig {
  /// CPML cells per side (top, bottom, left, right, front, back); 0 = none. The y sides are
  /// ignored in 2D.
  int width[num_sides] = {20, 20, 20, 20, 20, 20};
  bool free_surface = false;   ///< pressure-release surface at z = 0 (top width must be 0)
  double reflection = 1e-8;    ///< target reflection coefficient R of the CPML profile
  double pml_frequency = 0.0;  ///< Hz for the CPML alpha term; 0 = the wavelet peak frequency
  /// m/s setting the CPML damping d0; 0 = the model's maximum. Inversions fix it (the initial
  /// model's maximum) so that the absorbing layers do not change as the model does: the
  /// gradient treats them as constant.
  double pml_velocity = 0.0;
};

}  // namespace pwave
