#include "pwave/propagation/padded_layout.hpp"

#include "pwave/physics/cpml.hpp"

namespace pwave::propagation {

PaddedLayout PaddedLayout::of(const ForwardProblem& problem) {
  const Grid& g = problem.model.grid;
  const bool is3d = g.is_3d();
  PaddedLayout l;
  for (int s = 0; s < num_sides; ++s) l.layer[s] = problem.boundary.width[s];
  if (!is3d) l.layer[front] = l.layer[back] = 0;
  l.nz = g.nz + l.layer[top] + l.layer[bottom];
  l.nx = g.nx + l.layer[left] + l.layer[right];
  l.ny = is3d ? g.ny + l.layer[front] + l.layer[back] : 1;
  l.radius = problem.order / 2;
  physics::cpml_strips(l.layer[top], l.nz, l.layer[bottom], l.radius, l.strip[top],
                       l.strip[bottom]);
  physics::cpml_strips(l.layer[left], l.nx, l.layer[right], l.radius, l.strip[left],
                       l.strip[right]);
  physics::cpml_strips(l.layer[front], l.ny, l.layer[back], l.radius, l.strip[front],
                       l.strip[back]);
  return l;
}

}  // namespace pwave::propagation
