#pragma once
// The set of keys a deck may contain. Both the parser (unknown-key errors) and --set overrides
// (which may only create valid keys) read it, so a new key is added in one place.

#include <cstddef>
#include <string>
#include <vector>

namespace pwave::io {

/// One deck key and the keys allowed under it when its value is a map (none: a leaf).
struct DeckKey {
  std::string name;
  std::vector<DeckKey> children;
};

/// The root of the deck: its children are the top-level sections.
const DeckKey& deck_schema();

/// Schema entry of a dotted key such as "model.vp.file" or "acquisition.receivers.x[2]"
/// (list indices are ignored); nullptr if the key does not exist. "" is the root.
const DeckKey* find_deck_key(const std::string& dotted);

/// Names of the keys allowed directly under `key`.
std::vector<std::string> child_names(const DeckKey& key);

/// Edit distance (insertions, deletions, substitutions and adjacent transpositions count 1).
std::size_t edit_distance(const std::string& a, const std::string& b);

/// The candidate closest to `name` if it is close enough to be a likely typo, else "".
std::string nearest_key(const std::string& name, const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" or " (valid keys: a, b, c)" for an unknown key under `parent`.
std::string unknown_key_hint(const std::string& name, const DeckKey& parent);

}  // namespace pwave::io
