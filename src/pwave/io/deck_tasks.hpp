#pragma once
// The sections of gradient and fwi decks: observed, gradient, true_model and inversion. Each is
// refused (InputError with key and line) in a deck whose task does not use it.

#include <yaml-cpp/yaml.h>

#include "pwave/io/deck.hpp"
#include "pwave/io/deck_reader.hpp"

namespace pwave::io {

/// Rejects the task-specific sections that `deck.task` does not use (observed and gradient
/// need gradient or fwi; true_model and inversion need fwi).
void check_task_sections(const DeckReader& r, const YAML::Node& root, const Deck& deck);

/// Reads observed, gradient, true_model and inversion for deck.task (gradient or fwi), after the
/// model, time, acquisition and boundary sections. Opens the observed file and checks its shape
/// against [shots, receivers, time.nt]; builds the true model; checks the bounds and the CFL
/// limit at the largest velocity an inversion may reach. Writes the sections, defaults filled,
/// into `resolved`.
void read_task_sections(const DeckReader& r, const YAML::Node& root, Deck& deck,
                        YAML::Node& resolved);

/// acquisition.from: observed: reads the observed section (a SEG-Y file) and the shots from its
/// trace headers into deck.problem.shots (deck.problem.model and dt already read), with the
/// options observed.gather_by, .headers, .coordinates and .datum. `drop_outside`: receivers
/// outside the model are left out (acquisition.receivers.outside: drop). Appends the geometry
/// summary to deck.notes; read_task_sections then leaves the observed section as it is.
void read_observed_geometry(const DeckReader& r, const YAML::Node& root, Deck& deck,
                            bool drop_outside, YAML::Node& resolved);

}  // namespace pwave::io
