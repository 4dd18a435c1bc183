#include "pwave/io/deck_model.hpp"

#include <algorithm>
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

// One value of material `m` at `key`: > 0, or >= 0 where m allows 0 (vs: a fluid cell).
double material_value(const DeckReader& r, const YAML::Node& node, const std::string& key,
                      const Material& m) {
  return m.zero_allowed ? r.non_negative(node, key) : r.positive(node, key);
}

Grid read_grid(const DeckReader& r, const YAML::Node& model, YAML::Node& resolved) {
  Grid grid;
  const YAML::Node shape = r.required(model, "model", "shape", "[nz, nx] or [nz, ny, nx] cells");
  if (!shape.IsSequence() || (shape.size() != 2 && shape.size() != 3)) {
    r.fail("model.shape", shape,
           "expected [nz, nx] (2D) or [nz, ny, nx] (3D): two or three cell counts, got " +
               DeckReader::describe(shape));
  }
  const bool is3d = shape.size() == 3;
  grid.dimension = is3d ? 3 : 2;
  grid.nz = r.integer(shape[0], "model.shape[0]", 1);
  grid.ny = is3d ? r.integer(shape[1], "model.shape[1]", 1) : 1;
  grid.nx = r.integer(shape[is3d ? 2 : 1], is3d ? "model.shape[2]" : "model.shape[1]", 1);
  // Cell indices are int on the device; past 2^31 cells they would wrap.
  if (grid.cells() > INT_MAX) {
    r.fail("model.shape", shape,
           std::to_string(grid.cells()) + " cells is more than the " + std::to_string(INT_MAX) +
               " pwave can index");
  }

  const YAML::Node spacing =
      r.required(model, "model", "spacing",
                 is3d ? "metres: a number, or [dz, dy, dx]" : "metres: a number, or [dz, dx]");
  if (spacing.IsSequence()) {
    if (spacing.size() != shape.size()) {
      r.fail("model.spacing", spacing,
             std::string("expected a number or ") + (is3d ? "[dz, dy, dx]" : "[dz, dx]") +
                 " for a " + (is3d ? "3D" : "2D") + " model (model.shape has " +
                 std::to_string(shape.size()) + " entries), got a list of " +
                 std::to_string(spacing.size()) + " values");
    }
    grid.dz = r.positive(spacing[0], "model.spacing[0]");
    if (is3d) grid.dy = r.positive(spacing[1], "model.spacing[1]");
    grid.dx = r.positive(spacing[is3d ? 2 : 1], is3d ? "model.spacing[2]" : "model.spacing[1]");
  } else {
    grid.dz = grid.dx = r.positive(spacing, "model.spacing");
    if (is3d) grid.dy = grid.dx;
  }
  if (is3d) {
    resolved["shape"] = yaml_list({double(grid.nz), double(grid.ny), double(grid.nx)});
    resolved["spacing"] = grid.dz == grid.dx && grid.dy == grid.dx
                              ? yaml_number(grid.dx)
                              : yaml_list({grid.dz, grid.dy, grid.dx});
  } else {
    resolved["shape"] = yaml_list({double(grid.nz), double(grid.nx)});
    resolved["spacing"] = grid.dz == grid.dx ? yaml_number(grid.dx) : yaml_list({grid.dz, grid.dx});
  }
  return grid;
}

std::string format_from_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".npy") return "npy";
  if (ext == ".sgy" || ext == ".segy") return "segy";
  return "raw";
}

// Reads the {file: ...} form of a material (`key`, e.g. model.vp) into a GridFileSpec (path
// resolved) and its resolved node. The caller has checked the keys.
GridFileSpec read_file_spec(const DeckReader& r, const YAML::Node& vp, const std::string& key,
                            const Material& m, const Grid& grid, YAML::Node& resolved) {
  const bool is3d = grid.is_3d();
  GridFileSpec spec;
  if (is3d) spec.order = "zyx";
  const YAML::Node file =
      r.required(vp, key, "file", std::string("path of the ") + m.noun + " file");
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
  if (is3d && spec.format == "segy") {
    r.fail(DeckReader::given(format) ? key + ".format" : key + ".file",
           DeckReader::given(format) ? format : file,
           "SEG-Y model files hold 2D models only (one trace per x position); for a 3D model "
           "use npy ([nz][ny][nx]) or raw (format: raw, order: zyx or xyz)");
  }
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
  if (DeckReader::given(order)) {
    spec.order = is3d ? r.choice(order, key + ".order", {"zyx", "xyz"})
                      : r.choice(order, key + ".order", {"zx", "xz"});
  }
  const YAML::Node scale = r.child(vp, key, "scale");
  if (DeckReader::given(scale)) spec.scale = r.positive(scale, key + ".scale");
  const YAML::Node stride = r.child(vp, key, "stride");
  if (DeckReader::given(stride)) {
    if (stride.IsSequence()) {
      if (stride.size() != (is3d ? 3u : 2u)) {
        r.fail(key + ".stride", stride,
               std::string("expected a number or ") +
                   (is3d ? "[sz, sy, sx] for a 3D model" : "[sz, sx]") + ", got a list of " +
                   std::to_string(stride.size()) + " values");
      }
      spec.stride_z = r.integer(stride[0], key + ".stride[0]", 1);
      if (is3d) spec.stride_y = r.integer(stride[1], key + ".stride[1]", 1);
      spec.stride_x = r.integer(stride[is3d ? 2 : 1], key + ".stride[" + (is3d ? "2]" : "1]"), 1);
    } else {
      spec.stride_z = spec.stride_x = r.integer(stride, key + ".stride", 1);
      if (is3d) spec.stride_y = spec.stride_x;
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
  resolved["stride"] =
      is3d ? yaml_list({double(spec.stride_z), double(spec.stride_y), double(spec.stride_x)})
           : yaml_list({double(spec.stride_z), double(spec.stride_x)});
  return spec;
}

void check_values(const DeckReader& r, const std::string& key, const Material& m, const Grid& grid,
                  const std::vector<double>& vp, const YAML::Node& where_node,
                  std::vector<std::string>& warnings) {
  double vmax = 0.0, vmin = vp.empty() ? 0.0 : vp.front();
  const std::size_t plane = std::size_t(grid.ny) * std::size_t(grid.nx);
  for (std::size_t i = 0; i < vp.size(); ++i) {
    const double v = vp[i];
    if (!(m.zero_allowed ? v >= 0.0 : v > 0.0) || !std::isfinite(v)) {
      std::ostringstream what;
      what << m.noun << " at cell (iz=" << i / plane;
      if (grid.is_3d()) what << ", iy=" << i % plane / std::size_t(grid.nx);
      what << ", ix=" << i % std::size_t(grid.nx) << ") is " << v << " " << m.unit << "; every "
           << m.noun
           << (m.zero_allowed ? " must be finite and >= 0 (0 is a fluid cell)"
                              : " must be positive and finite")
           << " (check format, dtype, order and scale)";
      r.fail(key, where_node, what.str());
    }
    vmax = std::max(vmax, v);
    vmin = std::min(vmin, v);
  }
  if (vmax > 0.0 && vmax < 20.0) {
    // km/s or g/cm^3: both 1000 times the SI value (an all-fluid vs of 0 is no sign of either).
    const bool velocity = std::string(m.unit) == "m/s";
    std::ostringstream w;
    w << key << ": values are between " << vmin << " and " << vmax << " " << m.unit
      << "; if the file is in " << (velocity ? "km/s" : "g/cm^3") << ", set " << key
      << ".scale: 1000";
    warnings.push_back(w.str());
  }
}

// {file: ...}: loads and decimates the file.
std::vector<double> read_file_material(const DeckReader& r, const YAML::Node& vp,
                                       const std::string& key, const Material& m, const Grid& grid,
                                       YAML::Node& resolved) {
  for (const char* k : {"constant", "layers", "anomalies"}) {
    const YAML::Node n = r.child(vp, key, k);
    if (DeckReader::given(n)) {
      r.fail(key + "." + k, n,
             "applies to the {constant: ...} form only; with a file every value comes from the "
             "file");
    }
  }
  const GridFileSpec spec = read_file_spec(r, vp, key, m, grid, resolved);
  const YAML::Node file_node = r.child(vp, key, "file");
  std::vector<double> values;
  try {
    values = load_grid_file(spec, grid);
  } catch (const InputError& e) {
    r.fail(key, file_node, bare_message(e.what(), e.key(), ""));
  }
  if (values.size() != std::size_t(grid.cells())) {
    r.fail(key, file_node,
           "read " + std::to_string(values.size()) + " values but model.shape needs " +
               std::to_string(grid.cells()));
  }
  return values;
}

// {from_vp: rule, ...}: vs or rho from the P velocity `vp` of the same cell by a rock-physics
// rule (inputs/README.md, "Derived from vp"). Each formula is stated here once.
std::vector<double> read_derived_material(const DeckReader& r, const YAML::Node& node,
                                          const std::string& key, const Material& m,
                                          const std::vector<double>* vp, YAML::Node& resolved) {
  const YAML::Node rule_node = r.child(node, key, "from_vp");
  if (!vp || std::string(m.name) == "vp") {
    r.fail(key + ".from_vp", rule_node, "only vs and rho can be derived from vp");
  }
  for (const char* k : {"file", "format", "shape", "order", "dtype", "scale", "stride", "constant",
                        "layers", "anomalies"}) {
    const YAML::Node n = r.child(node, key, k);
    if (DeckReader::given(n)) {
      r.fail(key + "." + k, n, "does not go with from_vp (every value comes from vp)");
    }
  }
  const bool shear = std::string(m.name) == "vs";
  const std::string rule = r.choice(
      rule_node, key + ".from_vp",
      shear ? std::vector<std::string>{"mudrock", "poisson"} : std::vector<std::string>{"gardner"});
  resolved["from_vp"] = rule;
  // Cells with vp <= fluid_vp are fluid: vs = 0, rho = fluid_rho.
  const YAML::Node fluid_node = r.child(node, key, "fluid_vp");
  const double fluid_vp =
      DeckReader::given(fluid_node) ? r.non_negative(fluid_node, key + ".fluid_vp") : 0.0;
  resolved["fluid_vp"] = yaml_number(fluid_vp);
  const auto only_for = [&](const char* name, bool applies, const char* what) {
    const YAML::Node n = r.child(node, key, name);
    if (DeckReader::given(n) && !applies) r.fail(key + "." + name, n, what);
    return n;
  };
  const YAML::Node min_node = only_for("min", shear, "applies to model.vs only");
  const YAML::Node fluid_rho_node = only_for("fluid_rho", !shear, "applies to model.rho only");
  const double vs_min = DeckReader::given(min_node) ? r.non_negative(min_node, key + ".min") : 0.0;
  const double fluid_rho =
      DeckReader::given(fluid_rho_node) ? r.positive(fluid_rho_node, key + ".fluid_rho") : 1000.0;
  if (shear) {
    resolved["min"] = yaml_number(vs_min);
  } else {
    resolved["fluid_rho"] = yaml_number(fluid_rho);
  }
  std::vector<double> values(vp->size());
  for (std::size_t i = 0; i < vp->size(); ++i) {
    const double v = (*vp)[i];
    if (v <= fluid_vp) {
      values[i] = shear ? 0.0 : fluid_rho;
    } else if (rule == "mudrock") {  // Castagna et al. (1985), m/s; 0 (a fluid) where it is <= 0
      const double vs = 0.8621 * v - 1172.4;
      values[i] = vs > 0.0 ? std::max(vs, vs_min) : 0.0;
    } else if (rule == "poisson") {  // a Poisson solid (lambda = mu): vs = vp / sqrt(3)
      values[i] = std::max(v / std::sqrt(3.0), vs_min);
    } else {  // gardner: Gardner et al. (1974), rho = 310 vp^0.25 kg/m^3 with vp in m/s
      values[i] = 310.0 * std::pow(v, 0.25);
    }
  }
  return values;
}

// {constant, layers, anomalies}: a background, layers below given depths, circular bodies.
std::vector<double> read_built_material(const DeckReader& r, const YAML::Node& vp,
                                        const std::string& key, const Material& m, const Grid& grid,
                                        YAML::Node& resolved) {
  for (const char* k : {"format", "shape", "order", "dtype", "scale", "stride"}) {
    const YAML::Node n = r.child(vp, key, k);
    if (DeckReader::given(n)) {
      r.fail(key + "." + k, n, "applies to the {file: ...} form only (no file is given)");
    }
  }
  const double background =
      material_value(r,
                     r.required(vp, key, "constant",
                                std::string(m.unit) + ": the background " + m.noun +
                                    "; or give {file: path} to read a file"),
                     key + ".constant", m);
  std::vector<double> values(std::size_t(grid.cells()), background);
  resolved["constant"] = yaml_number(background);
  const bool is3d = grid.is_3d();
  const auto list_of_maps = [&](const char* name) {
    const YAML::Node list = r.child(vp, key, name);
    if (DeckReader::given(list) && !list.IsSequence()) {
      r.fail(key + "." + name, list, "expected a list of maps, got " + DeckReader::describe(list));
    }
    return list;
  };

  const YAML::Node layers = list_of_maps("layers");
  YAML::Node layers_resolved(YAML::NodeType::Sequence);
  double previous_z = -1.0;
  for (std::size_t i = 0; DeckReader::given(layers) && i < layers.size(); ++i) {
    const std::string item = key + ".layers[" + std::to_string(i) + "]";
    r.check_keys(layers[i], item);
    const YAML::Node z_node = r.required(layers[i], item, "z", "metres: the top of the layer");
    const double z = r.non_negative(z_node, item + ".z");
    const double v =
        material_value(r, r.required(layers[i], item, m.name, std::string(m.unit) + " below z"),
                       item + "." + m.name, m);
    if (z <= previous_z) {
      r.fail(item + ".z", z_node,
             "layers must be listed from the shallowest down (z = " + yaml_number(z).Scalar() +
                 " m is not below the previous layer's " + yaml_number(previous_z).Scalar() +
                 " m)");
    }
    previous_z = z;
    const double tol = 1e-6 * grid.dz;
    const std::size_t plane = std::size_t(grid.ny) * std::size_t(grid.nx);
    for (int iz = 0; iz < grid.nz; ++iz) {
      if (iz * grid.dz + tol < z) continue;
      std::fill(values.begin() + std::size_t(iz) * plane,
                values.begin() + std::size_t(iz + 1) * plane, v);
    }
    YAML::Node out(YAML::NodeType::Map);
    out["z"] = yaml_number(z);
    out[m.name] = yaml_number(v);
    out.SetStyle(YAML::EmitterStyle::Flow);
    layers_resolved.push_back(out);
  }

  const YAML::Node anomalies = list_of_maps("anomalies");
  YAML::Node anomalies_resolved(YAML::NodeType::Sequence);
  for (std::size_t i = 0; DeckReader::given(anomalies) && i < anomalies.size(); ++i) {
    const std::string item = key + ".anomalies[" + std::to_string(i) + "]";
    const YAML::Node& a = anomalies[i];
    r.check_keys(a, item);
    const double x = r.number(r.required(a, item, "x", "metres: the centre"), item + ".x");
    // 3D: a sphere around (x, y, z), y required; 2D: a circle, y refused.
    const YAML::Node y_node = r.child(a, item, "y");
    if (!is3d && DeckReader::given(y_node)) {
      r.fail(item + ".y", y_node,
             "applies to 3D models only (model.shape has two entries: [nz, nx])");
    }
    const double y =
        is3d ? r.number(r.required(a, item, "y",
                                   "metres: the centre's y; a 3D model's anomalies are spheres "
                                   "around (x, y, z)"),
                        item + ".y")
             : 0.0;
    const double z = r.number(r.required(a, item, "z", "metres: the centre"), item + ".z");
    const double radius = r.positive(r.required(a, item, "radius", "metres"), item + ".radius");
    const double v = material_value(
        r,
        r.required(a, item, m.name,
                   std::string(m.unit) + (is3d ? " inside the sphere" : " inside the circle")),
        item + "." + m.name, m);
    long inside = 0;
    std::size_t cell = 0;
    for (int iz = 0; iz < grid.nz; ++iz) {
      for (int iy = 0; iy < grid.ny; ++iy) {
        for (int ix = 0; ix < grid.nx; ++ix, ++cell) {
          const double ddx = ix * grid.dx - x, ddz = iz * grid.dz - z;
          const double ddy = is3d ? iy * grid.dy - y : 0.0;
          if (ddx * ddx + ddy * ddy + ddz * ddz <= radius * radius) {
            values[cell] = v;
            ++inside;
          }
        }
      }
    }
    if (inside == 0) {
      r.fail(item, a,
             std::string(is3d ? "the sphere" : "the circle") + " of radius " +
                 yaml_number(radius).Scalar() + " m around (x = " + yaml_number(x).Scalar() +
                 (is3d ? ", y = " + yaml_number(y).Scalar() : std::string()) +
                 ", z = " + yaml_number(z).Scalar() + ") m contains no cell of the model");
    }
    YAML::Node out(YAML::NodeType::Map);
    out["x"] = yaml_number(x);
    if (is3d) out["y"] = yaml_number(y);
    out["z"] = yaml_number(z);
    out["radius"] = yaml_number(radius);
    out[m.name] = yaml_number(v);
    out.SetStyle(YAML::EmitterStyle::Flow);
    anomalies_resolved.push_back(out);
  }
  if (layers_resolved.size() > 0) resolved["layers"] = layers_resolved;
  if (anomalies_resolved.size() > 0) resolved["anomalies"] = anomalies_resolved;
  return values;
}

// One pass of a normalised Gaussian along one axis: n samples `stride` apart, `count` lines
// `line_stride` apart; edges extended.
void smooth_axis(std::vector<double>& v, int n, std::size_t stride, int count,
                 std::size_t line_stride, double sigma_cells, std::size_t offset = 0) {
  if (!(sigma_cells > 0.0) || n < 2) return;
  const int radius = int(std::ceil(4.0 * sigma_cells));
  std::vector<double> w(std::size_t(2 * radius + 1));
  double sum = 0.0;
  for (int k = -radius; k <= radius; ++k) {
    w[std::size_t(k + radius)] = std::exp(-0.5 * (k / sigma_cells) * (k / sigma_cells));
    sum += w[std::size_t(k + radius)];
  }
  for (double& x : w) x /= sum;
  std::vector<double> line(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  for (int l = 0; l < count; ++l) {
    const std::size_t base = offset + std::size_t(l) * line_stride;
    for (int i = 0; i < n; ++i) line[std::size_t(i)] = v[base + std::size_t(i) * stride];
    for (int i = 0; i < n; ++i) {
      double acc = 0.0;
      for (int k = -radius; k <= radius; ++k) {
        const int j = std::min(std::max(i + k, 0), n - 1);
        acc += w[std::size_t(k + radius)] * line[std::size_t(j)];
      }
      out[std::size_t(i)] = acc;
    }
    for (int i = 0; i < n; ++i) v[base + std::size_t(i) * stride] = out[std::size_t(i)];
  }
}

}  // namespace

void smooth_gaussian(std::vector<double>& values, const Grid& grid, double sigma) {
  if (!(sigma > 0.0)) return;
  // Along x: nz ny lines of nx contiguous samples; along z: ny nx lines of nz samples ny nx
  // apart; along y (3D): in each depth plane, nx lines of ny samples nx apart.
  const std::size_t nx = std::size_t(grid.nx), plane = std::size_t(grid.ny) * nx;
  smooth_axis(values, grid.nx, 1, grid.nz * grid.ny, nx, sigma / grid.dx);
  if (grid.is_3d()) {
    for (int iz = 0; iz < grid.nz; ++iz) {
      smooth_axis(values, grid.ny, nx, grid.nx, 1, sigma / grid.dy, std::size_t(iz) * plane);
    }
  }
  smooth_axis(values, grid.nz, plane, int(plane), 1, sigma / grid.dz);
}

std::vector<double> read_material(const DeckReader& r, const YAML::Node& vp, const std::string& key,
                                  const Material& m, const Grid& grid, YAML::Node& resolved,
                                  std::vector<std::string>& warnings,
                                  const std::vector<double>* p_velocity) {
  if (vp.IsMap()) {
    r.check_keys(vp, key);
    YAML::Node map_resolved(YAML::NodeType::Map);
    const bool from_file = DeckReader::given(r.child(vp, key, "file"));
    const bool derived = DeckReader::given(r.child(vp, key, "from_vp"));
    for (const char* k : {"fluid_vp", "min", "fluid_rho"}) {
      const YAML::Node n = r.child(vp, key, k);
      if (!derived && DeckReader::given(n)) {
        r.fail(key + "." + k, n, "applies to the {from_vp: ...} form only");
      }
    }
    std::vector<double> values =
        derived     ? read_derived_material(r, vp, key, m, p_velocity, map_resolved)
        : from_file ? read_file_material(r, vp, key, m, grid, map_resolved)
                    : read_built_material(r, vp, key, m, grid, map_resolved);
    const YAML::Node smooth_node = r.child(vp, key, "smooth");
    const double smooth =
        DeckReader::given(smooth_node) ? r.non_negative(smooth_node, key + ".smooth") : 0.0;
    // Check before smoothing: a bad value would spread and hide its cell.
    check_values(r, key, m, grid, values,
                 from_file ? r.child(vp, key, "file")
                 : derived ? r.child(vp, key, "from_vp")
                           : vp,
                 warnings);
    smooth_gaussian(values, grid, smooth);
    map_resolved["smooth"] = yaml_number(smooth);
    resolved = map_resolved;
    return values;
  }
  if (vp.IsSequence()) {
    r.fail(key, vp,
           std::string("expected a number (") + m.unit +
               "), {file: path, ...} or {constant: " + m.unit + ", ...}, got a list");
  }
  const double v = material_value(r, vp, key, m);
  std::vector<double> values(std::size_t(grid.cells()), v);
  check_values(r, key, m, grid, values, vp, warnings);
  resolved = yaml_number(v);
  return values;
}

DeckModel read_model(const DeckReader& r, const YAML::Node& model,
                     std::vector<std::string>& warnings) {
  r.check_keys(model, "model");
  DeckModel out;
  out.resolved = YAML::Node(YAML::NodeType::Map);
  const Grid grid = read_grid(r, model, out.resolved);
  out.model.grid = grid;
  const YAML::Node vp =
      r.required(model, "model", "vp", "m/s: a number, {file: path, ...} or {constant: m/s, ...}");
  YAML::Node vp_resolved;
  out.model.vp = read_velocity(r, vp, "model.vp", grid, vp_resolved, warnings);
  out.resolved["vp"] = vp_resolved;
  const YAML::Node rho = r.child(model, "model", "rho");
  if (DeckReader::given(rho)) {
    YAML::Node rho_resolved;
    out.model.rho = read_material(r, rho, "model.rho", density_material, grid, rho_resolved,
                                  warnings, &out.model.vp);
    out.resolved["rho"] = rho_resolved;
  }
  const YAML::Node vs = r.child(model, "model", "vs");
  if (DeckReader::given(vs)) {
    YAML::Node vs_resolved;
    out.model.vs = read_material(r, vs, "model.vs", shear_material, grid, vs_resolved, warnings,
                                 &out.model.vp);
    out.resolved["vs"] = vs_resolved;
  }
  return out;
}

}  // namespace pwave::io
