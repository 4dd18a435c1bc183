#pragma once
// The material parameters of pwave's equations: what a model holds and an inversion updates.

#include <string>
#include <vector>

namespace pwave::physics {

/// A material parameter (`model.<name>` in a deck, `inversion.parameters`).
enum class Parameter {
  vp,   ///< P-wave velocity, m/s
  rho,  ///< density, kg/m^3
  vs,   ///< S-wave velocity, m/s (elastic)
};

/// Every parameter, in the order of the enumeration.
inline constexpr Parameter all_parameters[] = {Parameter::vp, Parameter::rho, Parameter::vs};
/// How many parameters there are.
inline constexpr int parameter_count = int(sizeof(all_parameters) / sizeof(all_parameters[0]));

/// The deck name of a parameter.
inline const char* name(Parameter p) {
  return p == Parameter::vp ? "vp" : p == Parameter::rho ? "rho" : "vs";
}

/// The unit of a parameter.
inline const char* unit(Parameter p) {
  return p == Parameter::rho ? "kg/m^3" : "m/s";
}

/// Parses a deck name; returns false for an unknown one.
inline bool parse_parameter(const std::string& text, Parameter& out) {
  for (Parameter p : all_parameters) {
    if (text == name(p)) {
      out = p;
      return true;
    }
  }
  return false;
}

/// The deck names of every parameter, for a deck's list of choices.
inline std::vector<std::string> parameter_names() {
  std::vector<std::string> names;
  for (Parameter p : all_parameters) names.emplace_back(name(p));
  return names;
}

}  // namespace pwave::physics
