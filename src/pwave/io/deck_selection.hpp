#pragma once
// The deck's `gradient.selection`: which samples of the data the misfit sees
// (misfit/selection.hpp).

#include <yaml-cpp/yaml.h>

#include "pwave/io/deck.hpp"
#include "pwave/io/deck_reader.hpp"

namespace pwave::io {

/// Reads `gradient.selection` (the node `selection`, maybe absent) into deck.misfit.selection,
/// after the acquisition (trace weights are checked against shots x receivers). Writes the
/// section, defaults filled, into `resolved`.
void read_selection(const DeckReader& r, const YAML::Node& selection, Deck& deck,
                    YAML::Node& resolved);

}  // namespace pwave::io
