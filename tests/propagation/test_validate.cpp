// validate(): problems the kernels cannot index are refused before anything is allocated.

#include <gtest/gtest.h>

#include <string>

#include "pwave/core/error.hpp"
#include "pwave/propagation/forward.hpp"

namespace pwave {
namespace {

TEST(Validate, RefusesADepthWiderThanIntIndexing) {
  ForwardProblem p;
  p.model.grid.dimension = 3;
  p.model.grid.nz = 1, p.model.grid.ny = 46300, p.model.grid.nx = 46300;  // 2.14e9 < 2^31
  p.model.grid.dz = p.model.grid.dy = p.model.grid.dx = 10.0;
  for (int s = 0; s < 6; ++s) p.boundary.width[s] = 20;
  try {
    validate(p);  // no velocities given: the size check comes first
    FAIL() << "accepted a padded depth of more than 2^31 cells";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "model.shape");
    EXPECT_NE(std::string(e.what()).find("more than the 2147483647 pwave can index"),
              std::string::npos)
        << e.what();
  }
  p.model.grid.ny = 40000;  // 1.6e9 cells per depth: indexable, so the next check speaks
  try {
    validate(p);
    FAIL() << "accepted a model without velocities";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "model.vp") << e.what();
  }
}

}  // namespace
}  // namespace pwave
