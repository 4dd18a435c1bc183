#pragma once
// YAML decks: the one input of a pwave run. load_deck() parses, applies --set overrides,
// validates every value (keys, types, units, files, geometry, CFL) and fills the defaults.
// Every key, its type, default and unit: inputs/README.md.

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>
#include <vector>

#include "pwave/config/inversion.hpp"
#include "pwave/core/observed.hpp"
#include "pwave/misfit/selection.hpp"
#include "pwave/propagation/forward_problem.hpp"
#include "pwave/propagation/storage.hpp"

namespace pwave::io {

/// Observed data of a gradient or fwi task, in a file checked against the acquisition:
/// [shot][receiver][time]. The values are not loaded: `traces` reads them shot by shot from
/// the file (a .npy file is memory-mapped), so the deck costs no memory for them.
struct DeckObserved {
  std::string file;                ///< absolute path; empty when no file is given
  std::string format;              ///< "npy" or "segy"
  std::string where;               ///< "deck.yaml:15" (or "--set"): where observed.file was given
  std::vector<std::size_t> shape;  ///< [shots, receivers (the widest shot's), nt]
  /// Traces of each shot in a SEG-Y file (its shots may differ); empty for .npy.
  std::vector<std::size_t> shot_traces;
  /// Reads the file's traces by shot; shared by copies of the deck, alive as long as one is.
  std::shared_ptr<const ObservedTraces> traces;
};

/// The inversion section of a fwi deck: the settings the FWI loop reads (FwiConfig's base).
using DeckInversion = InversionSettings;

/// A parsed, validated deck.
struct Deck {
  std::string path;       ///< as given (messages use it)
  std::string task;       ///< "forward", "gradient" or "fwi"
  std::string precision;  ///< "float32" or "float64"
  /// Model (m/s; for gradient and fwi the initial model), dt (s), nt, order, boundary, shots,
  /// wavelet. For gradient and fwi, boundary.pml_velocity is never 0: an automatic value is
  /// replaced by the initial model's vmax, so the CPML stays fixed while the model changes.
  ForwardProblem problem;
  /// Where results go.
  struct Output {
    std::string directory;  ///< relative to the working directory, as in the deck
    bool segy = false;      ///< also write receivers.segy
    bool plots = true;      ///< run the plotting tool after a successful run
  } output;
  DeckObserved observed;                ///< gradient, fwi: the observed data (file empty: none)
  Storage storage = Storage::boundary;  ///< gradient, fwi: wavefield storage of the gradient
  StorageOptions storage_options;       ///< the strategy with its settings (what runs use)
  misfit::Options misfit;       ///< gradient, fwi: the misfit function J and the data selection
  bool has_true_model = false;  ///< fwi: observed data are modelled from true_model
  /// fwi: vp in m/s on the model grid, and for variable density rho in kg/m^3 (model.rho when
  /// true_model.rho is not given)
  Model true_model;
  DeckInversion inversion;            ///< fwi only
  YAML::Node resolved;                ///< the deck with every default filled in
  std::vector<std::string> warnings;  ///< advice that does not stop a run (dispersion, ...)
  std::vector<std::string> notes;     ///< what the run logs about the deck (geometry summary)
};

/// Reads the deck at `path`, applies `overrides` ("key.sub=value", value parsed as YAML) and
/// validates it. Throws InputError(key, "file:line" or "--set", message) on any bad input.
/// An observed data file is opened and its structure and shape checked, but its values are not
/// read: io::check_observed_values (deck_observed.hpp) checks them, split over ranks if wanted.
Deck load_deck(const std::string& path, const std::vector<std::string>& overrides = {});

/// Same as load_deck() for deck text already in memory; `path` names it in messages and its
/// folder anchors relative file names.
Deck load_deck_text(const std::string& text, const std::string& path,
                    const std::vector<std::string>& overrides = {});

/// The resolved deck as YAML text (loadable again with load_deck()).
std::string resolved_yaml(const Deck& deck);

/// dt_max rounded down to 3 significant digits, so that the printed value is itself stable.
double round_down_3(double value);
/// round_down_3(dt_max) as text (3 significant digits): the largest stable dt in messages.
std::string stable_dt_text(double dt_max);

}  // namespace pwave::io
