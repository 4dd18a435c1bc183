#include "pwave/io/deck_model.hpp"

#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pwave/core/error.hpp"
#include "pwave/io/grid_file.hpp"

namespace fs = std::filesystem;

namespace pwave::io {
namespace {

Grid2D read_grid(const DeckReader& r, const YAML::Node& model, YAML::Node& resolved) {
  Grid2D grid;
  const YAML::Node shape = r.required(model, "model", "shape", "[nz, nx] cells");
  if (!shape.IsSequence() || shape.size() != 2) {
    r.fail("model.shape", shape,
           "expected [nz, nx] (two cell counts), got " + DeckReader::describe(shape));
  }
  grid.nz = r.integer(shape[0], "model.shape[0]", 1);
  grid.nx = r.integer(shape[1], "model.shape[1]", 1);
  // Cell indices are int on the device; past 2^31 cells they would wrap.
  if (grid.cells() > INT_MAX) {
    r.fail("model.shape", shape,
           std::to_string(grid.cells()) + " cells is more than the " + std::to_string(INT_MAX) +
               " pwave can index");
  }

  const YAML::Node spacing = r.required(model, "model", "spacing", "metres: a number, or [dz, dx]");
  if (spacing.IsSequence()) {
    if (spacing.size() != 2) {
      r.fail("model.spacing", spacing,
             "expected a number or [dz, dx], got a list of " + std::to_string(spacing.size()) +
                 " values");
    }
    grid.dz = r.positive(spacing[0], "model.spacing[0]");
    grid.dx = r.positive(spacing[1], "model.spacing[1]");
  } else {
    grid.dz = grid.dx = r.positive(spacing, "model.spacing");
  }
  resolved["shape"] = yaml_list({double(grid.nz), double(grid.nx)});
  resolved["spacing"] = grid.dz == grid.dx ? yaml_number(grid.dx) : yaml_list({grid.dz, grid.dx});
  return grid;
}

std::string format_from_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".npy") return "npy";
  if (ext == ".sgy" || ext == ".segy") return "segy";
  return "raw";
}

// Reads the {file: ...} form of model.vp into a GridFileSpec (path resolved) and its resolved node.
GridFileSpec read_file_spec(const DeckReader& r, const YAML::Node& vp, YAML::Node& resolved) {
  const std::string key = "model.vp";
  r.check_keys(vp, key);
  GridFileSpec spec;
  const YAML::Node file = r.required(vp, key, "file", "path of the velocity file");
  const std::string name = r.text(file, key + ".file");
  fs::path path(name);
  if (path.is_relative()) path = fs::path(r.deck_dir()) / path;
  path = path.lexically_normal();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    r.fail(key + ".file", file,
           "file '" + name + "' not found (looked for '" + path.string() + "')");
  }
  if (fs::is_directory(path, ec)) r.fail(key + ".file", file, "'" + name + "' is a directory");
  if (!std::ifstream(path, std::ios::binary)) {
    r.fail(key + ".file", file, "file '" + path.string() + "' cannot be read");
  }
  spec.path = path.string();

  const YAML::Node format = r.child(vp, key, "format");
  spec.format = DeckReader::given(format)
                    ? r.choice(format, key + ".format", {"npy", "raw", "segy"})
                    : format_from_extension(spec.path);
  const YAML::Node shape = r.child(vp, key, "shape");
  const YAML::Node dtype = r.child(vp, key, "dtype");
  for (const auto& [node, sub] : {std::pair{shape, "shape"}, std::pair{dtype, "dtype"}}) {
    if (DeckReader::given(node) && spec.format != "raw") {
      r.fail(key + "." + sub, node,
             "applies to raw files only (this file is read as " + spec.format + ")");
    }
  }
  if (DeckReader::given(shape)) {
    if (!shape.IsSequence() || shape.size() == 0) {
      r.fail(key + ".shape", shape, "expected a list of sizes, got " + DeckReader::describe(shape));
    }
    for (std::size_t i = 0; i < shape.size(); ++i) {
      spec.shape.push_back(r.integer(shape[i], key + ".shape[" + std::to_string(i) + "]", 1));
    }
  }
  if (DeckReader::given(dtype))
    spec.dtype = r.choice(dtype, key + ".dtype", {"float32", "float64"});
  const YAML::Node order = r.child(vp, key, "order");
  if (DeckReader::given(order)) spec.order = r.choice(order, key + ".order", {"zx", "xz"});
  const YAML::Node scale = r.child(vp, key, "scale");
  if (DeckReader::given(scale)) spec.scale = r.positive(scale, key + ".scale");
  const YAML::Node stride = r.child(vp, key, "stride");
  if (DeckReader::given(stride)) {
    if (stride.IsSequence()) {
      if (stride.size() != 2) {
        r.fail(key + ".stride", stride,
               "expected a number or [sz, sx], got a list of " + std::to_string(stride.size()) +
                   " values");
      }
      spec.stride_z = r.integer(stride[0], key + ".stride[0]", 1);
      spec.stride_x = r.integer(stride[1], key + ".stride[1]", 1);
    } else {
      spec.stride_z = spec.stride_x = r.integer(stride, key + ".stride", 1);
    }
  }

  resolved["file"] = fs::absolute(path, ec).string();
  resolved["format"] = spec.format;
  if (spec.format == "raw") {
    resolved["dtype"] = spec.dtype;
    if (!spec.shape.empty()) {
      resolved["shape"] = yaml_list(std::vector<double>(spec.shape.begin(), spec.shape.end()));
    }
  }
  resolved["order"] = spec.order;
  resolved["scale"] = yaml_number(spec.scale);
  resolved["stride"] = yaml_list({double(spec.stride_z), double(spec.stride_x)});
  return spec;
}

void check_values(const DeckReader& r, const Model2D& m, const YAML::Node& where_node,
                  std::vector<std::string>& warnings) {
  for (int iz = 0; iz < m.grid.nz; ++iz) {
    for (int ix = 0; ix < m.grid.nx; ++ix) {
      const double v = m.at(iz, ix);
      if (!(v > 0.0) || !std::isfinite(v)) {
        std::ostringstream what;
        what << "velocity at cell (iz=" << iz << ", ix=" << ix << ") is " << v
             << " m/s; every velocity must be positive and finite (check format, dtype, order "
                "and scale)";
        r.fail("model.vp", where_node, what.str());
      }
    }
  }
  if (m.vmax() < 20.0) {
    std::ostringstream w;
    w << "model.vp: velocities are between " << m.vmin() << " and " << m.vmax()
      << " m/s; if the file is in km/s, set model.vp.scale: 1000";
    warnings.push_back(w.str());
  }
}

}  // namespace

DeckModel read_model(const DeckReader& r, const YAML::Node& model,
                     std::vector<std::string>& warnings) {
  r.check_keys(model, "model");
  DeckModel out;
  out.resolved = YAML::Node(YAML::NodeType::Map);
  const Grid2D grid = read_grid(r, model, out.resolved);
  out.model.grid = grid;

  const YAML::Node vp = r.required(model, "model", "vp", "m/s: a number, or {file: path, ...}");
  if (vp.IsMap()) {
    YAML::Node file_resolved(YAML::NodeType::Map);
    const GridFileSpec spec = read_file_spec(r, vp, file_resolved);
    const YAML::Node file_node = r.child(vp, "model.vp", "file");
    try {
      out.model.vp = load_grid_file(spec, grid.nz, grid.nx);
    } catch (const InputError& e) {
      r.fail("model.vp", file_node, bare_message(e.what(), e.key(), ""));
    }
    if (out.model.vp.size() != std::size_t(grid.cells())) {
      r.fail("model.vp", file_node,
             "read " + std::to_string(out.model.vp.size()) + " values but model.shape needs " +
                 std::to_string(grid.cells()));
    }
    check_values(r, out.model, file_node, warnings);
    out.resolved["vp"] = file_resolved;
  } else {
    if (vp.IsSequence()) {
      r.fail("model.vp", vp, "expected a number (m/s) or {file: path, ...}, got a list");
    }
    const double v = r.positive(vp, "model.vp");
    out.model = constant_model(grid, v);
    check_values(r, out.model, vp, warnings);
    out.resolved["vp"] = yaml_number(v);
  }
  return out;
}

}  // namespace pwave::io
