#pragma once
// The deck's model section: grid shape ([nz, nx] for 2D, [nz, ny, nx] for 3D) and spacing, and the
// material (vp, and rho for the variable-density equation), each a constant, from a file, or built
// from a constant background with layers and circular (spherical in 3D) anomalies; optionally
// smoothed.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "pwave/grid/model.hpp"
#include "pwave/io/deck_reader.hpp"

namespace pwave::io {

/// The model read from a deck, and the section as resolved (defaults filled, absolute paths).
struct DeckModel {
  Model model;  ///< vp in m/s; rho (kg/m^3) and vs (m/s) when given (else empty)
  YAML::Node resolved;
};

/// A material parameter a deck can give in every form model.vp takes.
struct Material {
  const char* name;  ///< the key: "vp" (also the key of its layers and anomalies), "vs" or "rho"
  const char* unit;  ///< "m/s" or "kg/m^3"
  const char* noun;  ///< "velocity", "S velocity" or "density" (messages)
  bool zero_allowed = false;  ///< 0 is a valid value (vs: a fluid cell), else values are > 0
};
inline constexpr Material velocity_material{"vp", "m/s", "velocity"};
inline constexpr Material shear_material{"vs", "m/s", "S velocity", true};
inline constexpr Material density_material{"rho", "kg/m^3", "density"};

/// Reads a material value (`m`: vp or vs in m/s, or rho in kg/m^3) for `grid`: a number; {file:
/// ..., format, shape, order, dtype, scale, stride, smooth}; {constant, layers: [{z, <name>}],
/// anomalies: [{x, [y,] z, radius, <name>}], smooth} (y: 3D only, and required there); or, for
/// vs and rho, {from_vp: rule, fluid_vp, min (vs), fluid_rho (rho), smooth}: derived cell by
/// cell from `p_velocity` (the P velocity already read, after its smoothing). `key` names it in
/// messages ("model.vp", "true_model.rho"). Checks every value is positive (>= 0 when
/// m.zero_allowed) and finite. Writes the value as resolved (absolute paths, defaults) into
/// `resolved` and returns the values [nz][nx] or [nz][ny][nx] (x fastest).
std::vector<double> read_material(const DeckReader& reader, const YAML::Node& value,
                                  const std::string& key, const Material& m, const Grid& grid,
                                  YAML::Node& resolved, std::vector<std::string>& warnings,
                                  const std::vector<double>* p_velocity = nullptr);

/// read_material for a velocity (m/s).
inline std::vector<double> read_velocity(const DeckReader& reader, const YAML::Node& vp,
                                         const std::string& key, const Grid& grid,
                                         YAML::Node& resolved, std::vector<std::string>& warnings) {
  return read_material(reader, vp, key, velocity_material, grid, resolved, warnings);
}

/// Separable Gaussian smoothing of `values` ([nz][nx] or [nz][ny][nx], x fastest) in place,
/// standard deviation `sigma` metres along every axis (sigma / dz cells in z, sigma / dx in x,
/// sigma / dy in y); the model is extended by its edge values. sigma = 0 leaves the values
/// unchanged.
void smooth_gaussian(std::vector<double>& values, const Grid& grid, double sigma);

/// Reads `model` (the section's node): shape [nz, nx] gives a 2D grid, [nz, ny, nx] a 3D one;
/// spacing is a number, [dz, dx] (2D) or [dz, dy, dx] (3D). File paths are relative to the deck's
/// folder. Loads vp (and model.rho, model.vs when given) and checks every value is positive
/// (vs: >= 0) and finite. Whether rho and vs belong to the chosen equation, and vs against vp,
/// is checked by the caller. Throws InputError with
/// key and line; appends advice (e.g. values that look like km/s) to `warnings`.
DeckModel read_model(const DeckReader& reader, const YAML::Node& model,
                     std::vector<std::string>& warnings);

}  // namespace pwave::io
