#pragma once
// The wave equations pwave solves, and the dispatch from the runtime choice to a type.

#include <string>
#include <type_traits>

namespace pwave::physics {

/// `physics.equation` of a deck.
enum class Equation {
  acoustic,                   ///< u_tt = v^2 lap u + v^2 s delta (constant density)
  acoustic_variable_density,  ///< u_tt = rho v^2 div(grad u / rho) + v^2 s delta
};

/// The deck name of an equation.
inline const char* name(Equation e) {
  return e == Equation::acoustic ? "acoustic" : "acoustic_variable_density";
}

/// Parses a deck name; returns false for an unknown one.
inline bool parse_equation(const std::string& text, Equation& out) {
  if (text == "acoustic") {
    out = Equation::acoustic;
    return true;
  }
  if (text == "acoustic_variable_density") {
    out = Equation::acoustic_variable_density;
    return true;
  }
  return false;
}

/// A material parameter an inversion can update (`inversion.parameters`).
enum class Parameter {
  vp,   ///< P-wave velocity, m/s (every equation)
  rho,  ///< density, kg/m^3 (variable density only)
};

/// The deck name of a parameter.
inline const char* name(Parameter p) {
  return p == Parameter::vp ? "vp" : "rho";
}

/// The unit of a parameter.
inline const char* unit(Parameter p) {
  return p == Parameter::vp ? "m/s" : "kg/m^3";
}

/// Parses a deck name; returns false for an unknown one.
inline bool parse_parameter(const std::string& text, Parameter& out) {
  if (text == "vp" || text == "rho") {
    out = text == "vp" ? Parameter::vp : Parameter::rho;
    return true;
  }
  return false;
}

/// Whether equation `e` has parameter `p` (the constant-density equation has no density).
inline bool has_parameter(Equation e, Parameter p) {
  return p == Parameter::vp || e == Equation::acoustic_variable_density;
}

/// Compile-time tags of the equations: hot loops are instantiated per tag.
struct ConstantDensity {
  static constexpr Equation equation = Equation::acoustic;
  static constexpr int imaging_channels = 1;  ///< dJ/dw
};
struct VariableDensity {
  static constexpr Equation equation = Equation::acoustic_variable_density;
  static constexpr int imaging_channels = 2;  ///< dJ/dw, dJ/db (b = 1/rho)
};

/// Calls f(Tag{}) with the tag of `e`.
template <class F>
void with_equation(Equation e, F&& f) {
  if (e == Equation::acoustic_variable_density) {
    f(VariableDensity{});
  } else {
    f(ConstantDensity{});
  }
}

}  // namespace pwave::physics
