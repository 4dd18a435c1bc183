#pragma once
// Off-grid sources and receivers: Hicks (2002), "Arbitrary source and receiver positioning in
// finite-difference schemes using Kaiser windowed sinc functions", Geophysics 67(1), 156-166.
// A point between grid points acts on the grid points around it with weights
// sinc(x - x_p) K(x - x_p) per axis (K the Kaiser window of half-width r cells), the product
// of the axes' weights in 2D and 3D. The same weights inject a source and record a receiver, so
// the two stay exact adjoints of each other.

#include <vector>

namespace pwave {

/// Smallest and largest Kaiser half-widths (grid cells per side) pwave has a window for.
constexpr int hicks_min_half_width = 1;
constexpr int hicks_max_half_width = 10;

/// Hicks's Kaiser shape parameter b for half-width r, from his table for wavenumbers up to half
/// of Nyquist (4 grid points per wavelength): 1.24 for r = 1 ... 6.31 for r = 4 ... 14.18 for
/// r = 10. With r = 4 a band-limited field is interpolated to 1e-3 in that band.
double hicks_kaiser_b(int half_width);

/// One grid point of an axis and its weight.
struct AxisTap {
  int index = 0;        ///< grid index along the axis
  double weight = 1.0;  ///< interpolation weight
};

/// The weights of a point at `f` grid cells along an axis (f = coordinate / spacing). Within
/// 1e-6 of a grid point: that point alone, weight 1 (what an on-grid position always did);
/// otherwise the 2 r points floor(f) - r + 1 .. floor(f) + r.
std::vector<AxisTap> hicks_axis(double f, int half_width);

}  // namespace pwave
