#pragma once
// The inversion section of fwi decks: iterations, optimizer, stages, parameters and their
// bounds (checked against the CFL limit at the largest velocity an inversion may reach).

#include <yaml-cpp/yaml.h>

#include "pwave/io/deck.hpp"
#include "pwave/io/deck_reader.hpp"

namespace pwave::io {

/// Reads `inversion` of an fwi deck into deck.inversion (deck.problem and the true model read
/// before) and writes it, defaults filled, into resolved["inversion"].
void read_inversion_section(const DeckReader& r, const YAML::Node& root, Deck& deck,
                            YAML::Node& resolved);

}  // namespace pwave::io
