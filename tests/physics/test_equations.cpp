// The dispatch list of equations: every runtime question about an equation is answered from its
// descriptor (physics/<name>/physics.hpp), and the runtime choice reaches the right type.

#include <gtest/gtest.h>

#include <type_traits>

#include "pwave/physics/equation.hpp"

namespace pwave::physics {
namespace {

TEST(Equations, NamesParseBackToTheirEquation) {
  EXPECT_EQ(equation_names(),
            (std::vector<std::string>{"acoustic", "acoustic_variable_density", "elastic"}));
  int index = 0;
  for (const std::string& n : equation_names()) {
    Equation e{};
    ASSERT_TRUE(parse_equation(n, e)) << n;
    EXPECT_EQ(static_cast<int>(e), index++) << n;  // the enumeration is in list order
    EXPECT_EQ(name(e), n);
  }
  Equation e = Equation::acoustic_variable_density;
  EXPECT_FALSE(parse_equation("viscoelastic", e));
  EXPECT_EQ(e, Equation::acoustic_variable_density) << "a failed parse must not change it";
}

TEST(Equations, RuntimeChoiceReachesItsDescriptor) {
  bool acoustic = false, variable = false, elastic = false;
  with_equation(Equation::acoustic,
                [&](auto d) { acoustic = std::is_same_v<decltype(d), acoustic::Physics>; });
  with_equation(Equation::acoustic_variable_density,
                [&](auto d) { variable = std::is_same_v<decltype(d), acoustic_vd::Physics>; });
  with_equation(Equation::elastic,
                [&](auto d) { elastic = std::is_same_v<decltype(d), elastic::Physics>; });
  EXPECT_TRUE(acoustic);
  EXPECT_TRUE(variable);
  EXPECT_TRUE(elastic);
}

TEST(Equations, ParametersChannelsAndStabilityComeFromTheDescriptors) {
  EXPECT_TRUE(has_parameter(Equation::acoustic, Parameter::vp));
  EXPECT_FALSE(has_parameter(Equation::acoustic, Parameter::rho));
  EXPECT_TRUE(has_parameter(Equation::acoustic_variable_density, Parameter::vp));
  EXPECT_TRUE(has_parameter(Equation::acoustic_variable_density, Parameter::rho));
  EXPECT_TRUE(has_parameter(Equation::elastic, Parameter::vs));
  EXPECT_FALSE(has_parameter(Equation::acoustic_variable_density, Parameter::vs));
  EXPECT_EQ(equations_with(Parameter::vp), "acoustic or acoustic_variable_density or elastic");
  EXPECT_EQ(equations_with(Parameter::rho), "acoustic_variable_density or elastic");
  EXPECT_EQ(equations_with(Parameter::vs), "elastic");
  EXPECT_EQ(imaging_channels(Equation::acoustic), 1);
  EXPECT_EQ(imaging_channels(Equation::acoustic_variable_density), 2);
  EXPECT_FALSE(staggered(Equation::acoustic));
  EXPECT_TRUE(staggered(Equation::acoustic_variable_density));
  EXPECT_TRUE(staggered(Equation::elastic));
}

TEST(Parameters, NamesUnitsAndParsing) {
  EXPECT_EQ(parameter_names(), (std::vector<std::string>{"vp", "rho", "vs"}));
  Parameter p{};
  ASSERT_TRUE(parse_parameter("rho", p));
  EXPECT_EQ(p, Parameter::rho);
  EXPECT_STREQ(unit(p), "kg/m^3");
  EXPECT_STREQ(unit(Parameter::vp), "m/s");
  ASSERT_TRUE(parse_parameter("vs", p));
  EXPECT_EQ(p, Parameter::vs);
  EXPECT_STREQ(unit(p), "m/s");
  EXPECT_FALSE(parse_parameter("eta", p));
}

}  // namespace
}  // namespace pwave::physics
