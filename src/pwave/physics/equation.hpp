#pragma once
// The wave equations pwave solves: the one list of them (the dispatch list), and what the
// framework asks of an equation chosen at run time (its name, its parameters, its type).
//
// Adding an equation: a folder physics/<name>/ whose physics.hpp describes it (see
// acoustic/physics.hpp), an enumerator below and its line in `Equations`, in the same order.

#include <string>
#include <type_traits>
#include <vector>

#include "pwave/physics/acoustic/physics.hpp"
#include "pwave/physics/acoustic_vd/physics.hpp"
#include "pwave/physics/elastic/physics.hpp"
#include "pwave/physics/parameter.hpp"

namespace pwave::physics {

/// `physics.equation` of a deck: the position of the equation in `Equations`.
enum class Equation {
  acoustic,                   ///< u_tt = v^2 lap u + v^2 s delta (constant density)
  acoustic_variable_density,  ///< u_tt = rho v^2 div(grad u / rho) + v^2 s delta
  elastic,                    ///< isotropic elastic, velocity-stress
};

template <class... P>
struct EquationList {
  static constexpr int size = sizeof...(P);
};

/// The dispatch list: every equation's descriptor, in the order of the enumeration.
using Equations = EquationList<acoustic::Physics, acoustic_vd::Physics, elastic::Physics>;

namespace detail {
template <int I, class F, class P, class... Rest>
void dispatch(int index, F& f, EquationList<P, Rest...>) {
  if (index == I || sizeof...(Rest) == 0) {
    f(P{});
  } else if constexpr (sizeof...(Rest) > 0) {
    dispatch<I + 1>(index, f, EquationList<Rest...>{});
  }
}
template <class F, class... P>
void for_each(F& f, EquationList<P...>) {
  (f(P{}), ...);
}
}  // namespace detail

/// Calls f(Descriptor{}) with the descriptor type of `e`: runtime choice to compile-time type,
/// once, at dispatch.
template <class F>
void with_equation(Equation e, F&& f) {
  detail::dispatch<0>(static_cast<int>(e), f, Equations{});
}

/// Calls f(Descriptor{}) for every equation, in list order.
template <class F>
void for_each_equation(F&& f) {
  detail::for_each(f, Equations{});
}

/// The deck name of an equation.
inline const char* name(Equation e) {
  const char* n = "";
  with_equation(e, [&](auto p) { n = decltype(p)::name; });
  return n;
}

/// The deck names of every equation, for a deck's list of choices.
inline std::vector<std::string> equation_names() {
  std::vector<std::string> names;
  for_each_equation([&](auto p) { names.emplace_back(decltype(p)::name); });
  return names;
}

/// Parses a deck name; returns false for an unknown one.
inline bool parse_equation(const std::string& text, Equation& out) {
  int index = 0, found = -1;
  for_each_equation([&](auto p) {
    if (text == decltype(p)::name) found = index;
    ++index;
  });
  if (found >= 0) out = static_cast<Equation>(found);
  return found >= 0;
}

/// Whether equation `e` has material parameter `p` (the constant-density one has no density).
inline bool has_parameter(Equation e, Parameter p) {
  bool has = false;
  with_equation(e, [&](auto d) {
    for (Parameter q : decltype(d)::parameters) has = has || q == p;
  });
  return has;
}

/// The equations that have parameter `p`, as deck names ("a or b").
inline std::string equations_with(Parameter p) {
  std::string list;
  int index = 0;
  for_each_equation([&](auto d) {
    if (has_parameter(static_cast<Equation>(index++), p))
      list += (list.empty() ? "" : " or ") + std::string(decltype(d)::name);
  });
  return list;
}

/// Imaging sums per shot of equation `e` (the gradient's channels).
inline int imaging_channels(Equation e) {
  int c = 0;
  with_equation(e, [&](auto d) { c = decltype(d)::imaging_channels; });
  return c;
}

/// Whether equation `e` takes the staggered CFL limit (physics::max_stable_dt_staggered).
inline bool staggered(Equation e) {
  bool s = false;
  with_equation(e, [&](auto d) { s = decltype(d)::staggered; });
  return s;
}

}  // namespace pwave::physics
