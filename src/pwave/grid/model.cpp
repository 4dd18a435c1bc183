#include "pwave/grid/model.hpp"

#include <algorithm>

namespace pwave {

double Model::vmin() const { return *std::min_element(vp.begin(), vp.end()); }
double Model::vmax() const { return *std::max_element(vp.begin(), vp.end()); }

Model constant_model(const Grid& grid, double value) {
  Model m;
  m.grid = grid;
  m.vp.assign(std::size_t(grid.cells()), value);
  return m;
}

}  // namespace pwave
