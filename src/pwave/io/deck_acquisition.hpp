#pragma once
// The deck's acquisition section: source and receiver coordinates, in metres.
//
// Each of sources.x, sources.z, receivers.x, receivers.z is a number (broadcast to the other
// coordinate's length), a list, or {start, step, count}. receivers.x / receivers.z may also be
// a list of such lists, one per shot (every shot must have the same number of receivers).

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "pwave/acquisition/geometry.hpp"
#include "pwave/io/deck_reader.hpp"

namespace pwave::io {

/// One position and where each of its coordinates came from (for error messages).
struct DeckPoint {
  Position position;  ///< metres
  std::string key_x, key_z;
  YAML::Node node_x, node_z;
};

/// Sources and, per shot, receivers as written in the deck (not yet checked against a grid).
struct DeckAcquisition {
  std::vector<DeckPoint> sources;
  std::vector<std::vector<DeckPoint>> receivers;  ///< [shot][receiver]
  bool shared_receivers = true;                   ///< every shot has the same receivers
};

/// Reads `acquisition` (the section's node); throws InputError with key and line.
DeckAcquisition read_acquisition(const DeckReader& reader, const YAML::Node& acquisition);

/// Checks every position is inside `grid` and on a grid point (naming the offending
/// coordinate's key and line) and returns one ShotGeometry per source.
std::vector<ShotGeometry> place_acquisition(const DeckReader& reader, const DeckAcquisition& acq,
                                            const Grid2D& grid);

}  // namespace pwave::io
