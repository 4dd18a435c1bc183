#pragma once
// The deck's acquisition section: source and receiver coordinates, in metres.
//
// Each of sources.x, .y, .z, receivers.x, .y, .z is a number (broadcast to the other
// coordinates' length), a list, or {start, step, count}. receivers.* may also be a list of such
// lists, one per shot (shots may have different numbers of receivers). With
// receivers.relative_to_source, receiver x and y are offsets from each shot's source (a spread
// that moves with the source); with receivers.outside: drop, receivers outside the model are
// left out of their shot (a shot left with none is an error). y is for 3D models
// only and defaults to 0. In 3D, x and y lists of different lengths make a carpet: the outer
// product, y outer and x inner (x: 50 values, y: 40 values -> 2000 points); lists of equal
// lengths pair element-wise, as x and z do. z then pairs with those points or is broadcast.
// sources.type (pressure, force_x, force_y, force_z) says what every source injects and
// receivers.components (p, vx, vy, vz: one or a list) what the receivers record; both also with
// acquisition.from: observed.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "pwave/acquisition/components.hpp"
#include "pwave/acquisition/geometry.hpp"
#include "pwave/io/deck_reader.hpp"
#include "pwave/propagation/forward_problem.hpp"

namespace pwave::io {

/// One position and where each of its coordinates came from (for error messages).
struct DeckPoint {
  Position position;                ///< metres
  std::string key_x, key_y, key_z;  ///< key_y is empty when y was left out (0)
  YAML::Node node_x, node_y, node_z;
};

/// Sources and, per shot, receivers as written in the deck (not yet checked against a grid).
struct DeckAcquisition {
  std::vector<DeckPoint> sources;
  std::vector<std::vector<DeckPoint>> receivers;  ///< [shot][receiver]
  bool shared_receivers = true;                   ///< every shot has the same receivers
  bool drop_outside = false;  ///< receivers.outside: drop (else positions outside are errors)
  int hicks_half_width = 4;   ///< acquisition.hicks_half_width (ForwardProblem::hicks_half_width)
  /// acquisition.from: observed: the positions come from the observed SEG-Y file's trace
  /// headers (sources and receivers are then empty; deck_tasks.hpp read_observed_geometry)
  bool from_observed = false;
  /// acquisition.sources.type (default pressure) and acquisition.receivers.components (default
  /// [p]), with their nodes (undefined when not given; one node per listed component): whether
  /// the equation has them is checked once physics.equation is read (check_components).
  SourceType source_type = SourceType::pressure;
  std::vector<Component> components = {Component::pressure};
  YAML::Node source_type_node;
  std::vector<YAML::Node> component_nodes;
};

/// Reads `acquisition` (the section's node) for a 3D (`three_d`) or 2D model; y is an error in
/// 2D. Throws InputError with key and line.
DeckAcquisition read_acquisition(const DeckReader& reader, const YAML::Node& acquisition,
                                 bool three_d);

/// Checks that the equation has the acquisition's source type and receiver components: the
/// acoustic equations take only pressure sources and p receivers; force_y and vy need a 3D
/// model. Fills problem.source_type and, for components other than [p], each shot's receivers
/// once per component, component after component (ShotGeometry::components): shot s's traces
/// are then [component][receiver] rows (problem.equation, the model's grid and the shots
/// read). Throws InputError with key and line.
void check_components(const DeckReader& reader, const DeckAcquisition& acq,
                      ForwardProblem& problem);

/// Checks every position is inside `grid` (naming the offending coordinate's key and line) and
/// returns one ShotGeometry per source. With drop_outside, receivers outside the grid are
/// removed from `acq` instead (a warning counts them; a shot left with none is an error).
std::vector<ShotGeometry> place_acquisition(const DeckReader& reader, DeckAcquisition& acq,
                                            const Grid& grid, std::vector<std::string>& warnings);

}  // namespace pwave::io
