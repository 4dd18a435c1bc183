#pragma once
// The deck's model section: grid shape ([nz, nx] for 2D, [nz, ny, nx] for 3D) and spacing, and vp
// as a constant, from a file, or built from a constant background with layers and circular
// (spherical in 3D) anomalies; optionally smoothed.

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

/// Reads a velocity value (m/s) for `grid`: a number; {file: ..., format, shape, order, dtype,
/// scale, stride, smooth}; or {constant, layers: [{z, vp}], anomalies: [{x, [y,] z, radius,
/// vp}], smooth} (y: 3D only, and required there). `key` names it in messages ("model.vp",
/// "true_model.vp"). Checks every value is positive and finite. Writes the value as resolved
/// (absolute paths, defaults) into `resolved` and returns the values [nz][nx] or [nz][ny][nx]
/// (x fastest).
std::vector<double> read_velocity(const DeckReader& reader, const YAML::Node& vp,
                                  const std::string& key, const Grid2D& grid, YAML::Node& resolved,
                                  std::vector<std::string>& warnings);

/// Separable Gaussian smoothing of `values` ([nz][nx] or [nz][ny][nx], x fastest) in place,
/// standard deviation `sigma` metres along every axis (sigma / dz cells in z, sigma / dx in x,
/// sigma / dy in y); the model is extended by its edge values. sigma = 0 leaves the values
/// unchanged.
void smooth_gaussian(std::vector<double>& values, const Grid2D& grid, double sigma);

/// Reads `model` (the section's node): shape [nz, nx] gives a 2D grid, [nz, ny, nx] a 3D one;
/// spacing is a number, [dz, dx] (2D) or [dz, dy, dx] (3D). File paths are relative to the deck's
/// folder. Loads the vp file and checks every value is positive and finite. Throws InputError with
/// key and line; appends advice (e.g. values that look like km/s) to `warnings`.
DeckModel read_model(const DeckReader& reader, const YAML::Node& model,
                     std::vector<std::string>& warnings);

}  // namespace pwave::io
