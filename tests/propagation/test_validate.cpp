// validate(): problems the kernels cannot index are refused before anything is allocated.

#include <gtest/gtest.h>

#include <string>

#include "pwave/core/error.hpp"
#include "pwave/physics/stability.hpp"
#include "pwave/propagation/forward.hpp"
#include "support/problems.hpp"

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

// The InputError validate(p) throws (fails the test if none).
InputError validate_error(const ForwardProblem& p) {
  try {
    validate(p);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError("", "", "");
}

TEST(Validate, ElasticNeedsAnAdmissibleShearVelocity) {
  ForwardProblem p = test::homogeneous_problem(21, 31, 10.0, 2000.0, 0.001, 50, 10.0, 8, 10);
  p.shots = {ShotGeometry{Position{150.0, 50.0}, {Position{100.0, 30.0}}}};  // (x, z)
  p.equation = physics::Equation::elastic;
  const std::size_t n = p.model.vp.size();
  p.model.rho.assign(n, 2000.0);
  EXPECT_EQ(validate_error(p).key(), "model.vs");  // required
  p.model.vs.assign(n, 1000.0);
  EXPECT_NO_THROW(validate(p));
  p.model.vs[40] = 0.0;  // a fluid cell
  EXPECT_NO_THROW(validate(p));
  p.model.vs[40] = 1733.0;  // above sqrt(3)/2 vp = 1732.05 m/s: iz = 1, ix = 9
  const InputError e = validate_error(p);
  EXPECT_EQ(e.key(), "model.vs");
  EXPECT_NE(std::string(e.what()).find("S velocity at [iz=1, ix=9] is 1733 next to vp = 2000"),
            std::string::npos)
      << e.what();
  p.model.vs[40] = -1.0;
  EXPECT_EQ(validate_error(p).key(), "model.vs");
  p.model.vs[40] = 1000.0;
  p.model.rho.clear();
  EXPECT_EQ(validate_error(p).key(), "model.rho");
  // The acoustic equations have no vs.
  p.equation = physics::Equation::acoustic;
  EXPECT_EQ(validate_error(p).key(), "model.vs");
  p.model.vs.clear();
  EXPECT_NO_THROW(validate(p));
}

TEST(Validate, ElasticStabilityAndDispersionVelocities) {
  ForwardProblem p = test::homogeneous_problem(21, 31, 10.0, 2000.0, 0.001, 50, 10.0, 8, 10);
  p.equation = physics::Equation::elastic;
  const std::size_t n = p.model.vp.size();
  p.model.rho.assign(n, 2000.0);
  p.model.vs.assign(n, 0.0);
  // The limit is the staggered (variable-density) one with vp, not the collocated acoustic one.
  EXPECT_EQ(max_stable_dt(p, 2000.0), physics::max_stable_dt_staggered(8, 2000.0, 10.0, 10.0));
  EXPECT_LT(max_stable_dt(p, 2000.0), physics::max_stable_dt(8, 2000.0, 10.0, 10.0));
  EXPECT_EQ(stability_velocity(p), 2000.0);
  // All fluid: the slowest wave is vp; a solid cell's vs > 0 takes over, the fluid's 0 never.
  EXPECT_EQ(dispersion_velocity(p.equation, p.model), 2000.0);
  p.model.vs[7] = 1200.0;
  p.model.vs[8] = 900.0;
  p.model.vp[9] = 1500.0;  // a slower fluid cell
  EXPECT_EQ(dispersion_velocity(p.equation, p.model), 900.0);
  p.model.vs[8] = 1600.0;
  EXPECT_EQ(dispersion_velocity(p.equation, p.model), 1200.0);
  p.model.vs[7] = 1600.0;
  EXPECT_EQ(dispersion_velocity(p.equation, p.model), 1500.0);
  // The acoustic equations: vmin.
  EXPECT_EQ(dispersion_velocity(physics::Equation::acoustic, p.model), 1500.0);
}

}  // namespace
}  // namespace pwave
