#pragma once
// YAML decks: the one input of a pwave run. load_deck() parses, applies --set overrides,
// validates every value (keys, types, units, files, geometry, CFL) and fills the defaults.
// Every key, its type, default and unit: inputs/README.md.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "pwave/propagation/forward_problem.hpp"

namespace pwave::io {

/// A parsed, validated deck.
struct Deck {
  std::string path;        ///< as given (messages use it)
  std::string task;        ///< "forward"
  std::string precision;   ///< "float32" or "float64"
  ForwardProblem problem;  ///< model (m/s), dt (s), nt, order, boundary, shots, wavelet
  /// Where results go.
  struct Output {
    std::string directory;  ///< relative to the working directory, as in the deck
    bool segy = false;      ///< also write receivers.segy
  } output;
  YAML::Node resolved;                ///< the deck with every default filled in
  std::vector<std::string> warnings;  ///< advice that does not stop a run (dispersion, ...)
};

/// Reads the deck at `path`, applies `overrides` ("key.sub=value", value parsed as YAML) and
/// validates it. Throws InputError(key, "file:line" or "--set", message) on any bad input.
Deck load_deck(const std::string& path, const std::vector<std::string>& overrides = {});

/// Same as load_deck() for deck text already in memory; `path` names it in messages and its
/// folder anchors relative file names.
Deck load_deck_text(const std::string& text, const std::string& path,
                    const std::vector<std::string>& overrides = {});

/// The resolved deck as YAML text (loadable again with load_deck()).
std::string resolved_yaml(const Deck& deck);

/// dt_max rounded down to 3 significant digits, so that the printed value is itself stable.
double round_down_3(double value);

}  // namespace pwave::io
