#pragma once
// Readers of the deck's smaller sections. Each validates its section (InputError with key and
// line), fills its part of the Deck and writes the section, defaults filled, into `resolved`.

#include <yaml-cpp/yaml.h>

#include "pwave/io/deck.hpp"
#include "pwave/io/deck_reader.hpp"

namespace pwave::io {

/// time: dt (seconds, > 0) and nt (steps, >= 1). Required.
void read_time(const DeckReader& r, const YAML::Node& root, Deck& deck, YAML::Node& resolved);

/// wavelet: a Ricker (peak_frequency Hz, delay s, amplitude) or a .npy file of nt samples (or
/// [shots, nt]: one row per shot), and for task fwi `estimate` (inversion.wavelet_estimation;
/// the wavelet above is then the initial one). Needs time and the task read first; fills
/// problem.wavelet (or problem.shot_wavelets) and problem.peak_frequency. Required.
void read_wavelet(const DeckReader& r, const YAML::Node& root, Deck& deck, YAML::Node& resolved);
/// After the acquisition: a wavelet.file of [shots, nt] rows must have one row per shot (exit 2
/// naming wavelet.file, its file and line otherwise).
void check_wavelet_shots(const DeckReader& r, const YAML::Node& root, const Deck& deck);

/// physics: equation (acoustic | acoustic_variable_density | elastic; default acoustic) and order
/// (2, 4, 6 or 8; default 8).
void read_physics(const DeckReader& r, const YAML::Node& root, Deck& deck, YAML::Node& resolved);

/// boundary: type (cpml | none), CPML width per side (cells), free_surface, reflection,
/// pml_frequency (Hz), pml_velocity (m/s, 0 = automatic). A free surface forces the top width to 0
/// (warning or error).
void read_boundary(const DeckReader& r, const YAML::Node& root, Deck& deck, YAML::Node& resolved);

/// output: directory (default "out"), segy (default false) and plots (default true).
void read_output(const DeckReader& r, const YAML::Node& root, Deck& deck, YAML::Node& resolved);

/// execution: shot_batch (shots per launch, 0 = all) and check_interval (steps, default 10).
void read_execution(const DeckReader& r, const YAML::Node& root, Deck& deck, YAML::Node& resolved);

}  // namespace pwave::io
