#pragma once
// What a source puts into the wavefield and what a receiver records: the pressure (every
// equation) or, for the elastic equation, a point force along an axis and a velocity component.

#include <string>

namespace pwave {

/// `acquisition.sources.type`.
enum class SourceType {
  pressure,  ///< acoustic: the source term of the pressure equation; elastic: an explosion
             ///< (equal normal stresses, an isotropic moment tensor)
  force_x,   ///< elastic: a point force along x
  force_y,   ///< elastic, 3D: along y
  force_z,   ///< elastic: along z (down)
};

/// `acquisition.receivers.component`.
enum class Component {
  pressure,  ///< p (elastic: minus the mean normal stress)
  vx,        ///< elastic: particle velocity along x
  vy,        ///< elastic, 3D: along y
  vz,        ///< elastic: along z (down)
};

/// How many components there are (Component's enumerators).
inline constexpr int component_count = 4;

/// The field a source acts on, as the component a receiver of that field records: a force's
/// velocity component; the pressure for a pressure source.
inline Component component_of(SourceType s) {
  return s == SourceType::force_x   ? Component::vx
         : s == SourceType::force_y ? Component::vy
         : s == SourceType::force_z ? Component::vz
                                    : Component::pressure;
}

inline const char* name(SourceType s) {
  return s == SourceType::pressure  ? "pressure"
         : s == SourceType::force_x ? "force_x"
         : s == SourceType::force_y ? "force_y"
                                    : "force_z";
}

inline const char* name(Component c) {
  return c == Component::pressure ? "p"
         : c == Component::vx     ? "vx"
         : c == Component::vy     ? "vy"
                                  : "vz";
}

/// Parses a deck name; returns false for an unknown one.
inline bool parse_source_type(const std::string& text, SourceType& out) {
  for (SourceType s :
       {SourceType::pressure, SourceType::force_x, SourceType::force_y, SourceType::force_z}) {
    if (text == name(s)) {
      out = s;
      return true;
    }
  }
  return false;
}

/// Parses a deck name; returns false for an unknown one.
inline bool parse_component(const std::string& text, Component& out) {
  for (Component c : {Component::pressure, Component::vx, Component::vy, Component::vz}) {
    if (text == name(c)) {
      out = c;
      return true;
    }
  }
  return false;
}

}  // namespace pwave
