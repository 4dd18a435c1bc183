#include "pwave/grid/model.hpp"

#include <algorithm>

namespace pwave {

double Model2D::vmin() const { return *std::min_element(vp.begin(), vp.end()); }
double Model2D::vmax() const { return *std::max_element(vp.begin(), vp.end()); }

Model2D constant_model(const Grid2D& grid, double value) {
  Model2D m;
  m.grid = grid;
  m.vp.assign(std::size_t(grid.cells()), value);
  return m;
}

}  // namespace pwave
