#pragma once
// Source and receiver positions (metres from the top-left corner, x right, y into the page,
// z down; y is 0 in 2D).

#include <string>
#include <vector>

#include "pwave/acquisition/components.hpp"
#include "pwave/grid/grid.hpp"

namespace pwave {

/// A point in metres.
struct Position {
  double x = 0.0;
  double z = 0.0;
  double y = 0.0;  ///< 3D only
};

/// One shot: one source and the receivers that record it. Shots may have different numbers
/// of receivers (streamers, land spreads): arrays of traces of several shots are
/// [shot][max_receivers][time], a shot's rows past its own receiver count being zero (padding,
/// which no misfit sees).
struct ShotGeometry {
  Position source;
  std::vector<Position> receivers;
  /// What each receiver records (as many as receivers), or empty: every receiver records the
  /// pressure. Several components at one position are several receivers (the deck lists a
  /// shot's receivers once per component, component after component).
  std::vector<Component> components;

  /// What receiver r records.
  Component component(std::size_t r) const {
    return components.empty() ? Component::pressure : components[r];
  }
};

/// Receivers of the shot that has the most: the receiver extent of arrays of traces.
std::size_t max_receivers(const std::vector<ShotGeometry>& shots);

/// Receivers of all shots together: the number of traces of a data set.
std::size_t total_traces(const std::vector<ShotGeometry>& shots);

/// Whether every shot has the same number of receivers (no padding).
bool same_receiver_counts(const std::vector<ShotGeometry>& shots);

/// Whether every shot has the same receivers at the same positions (a fixed spread).
bool shared_receivers(const std::vector<ShotGeometry>& shots);

/// "3 shots x 61 receivers", or "3 shots of 40 to 61 receivers (150 traces)" (for logs).
std::string describe_shots(const std::vector<ShotGeometry>& shots);

/// Throws InputError naming `key` (e.g. "acquisition.sources[3]") unless `p` lies inside the
/// model (to 1e-6 of a cell), saying by how much it lies outside. Positions between grid points
/// are interpolated (acquisition/hicks.hpp).
void check_inside(const Grid& grid, const Position& p, const std::string& key);

}  // namespace pwave
