#pragma once
// Observed data files of gradient and fwi decks: [shot][receiver][time] as .npy, or as a SEG-Y
// file of shot gathers such as pwave writes (traces in shot-major order, FieldRecord = shot + 1).

#include <string>

#include "pwave/io/deck.hpp"

namespace pwave::io {

/// Reads `path` as "npy" or "segy" into shape and data (double). A .npy file must hold a 3D
/// float or integer array. A SEG-Y file's traces are grouped into shots by FieldRecord (one
/// group per run of equal values); every group must have the same number of traces.
/// `dt` (seconds) is checked against the SEG-Y sample interval when the file gives one.
/// Throws InputError(key = "", where = path) saying what is wrong.
DeckObserved read_observed_file(const std::string& path, const std::string& format, double dt);

}  // namespace pwave::io
