#pragma once
// The deck's model section: grid shape and spacing, and vp as a constant or from a file.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "pwave/grid/model.hpp"
#include "pwave/io/deck_reader.hpp"

namespace pwave::io {

/// The model read from a deck, and the section as resolved (defaults filled, absolute paths).
struct DeckModel {
  Model2D model;  ///< vp in m/s
  YAML::Node resolved;
};

/// Reads `model` (the section's node). File paths are relative to the deck's folder. Loads the
/// vp file and checks every value is positive and finite. Throws InputError with key and line;
/// appends advice (e.g. values that look like km/s) to `warnings`.
DeckModel read_model(const DeckReader& reader, const YAML::Node& model,
                     std::vector<std::string>& warnings);

}  // namespace pwave::io
