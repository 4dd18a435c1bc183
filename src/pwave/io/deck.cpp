#include "pwave/io/deck.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pwave/core/error.hpp"
#include "pwave/io/deck_acquisition.hpp"
#include "pwave/io/deck_model.hpp"
#include "pwave/io/deck_overrides.hpp"
#include "pwave/io/deck_reader.hpp"
#include "pwave/io/deck_sections.hpp"
#include "pwave/io/deck_tasks.hpp"
#include "pwave/physics/stability.hpp"
#include "pwave/propagation/forward.hpp"

namespace fs = std::filesystem;

namespace pwave::io {
namespace {

using Node = YAML::Node;

// Calls `read(section)` on a fresh map and stores it under `name` (keeps the section order).
template <class F>
void resolve_section(Node& resolved, const char* name, F read) {
  Node section(YAML::NodeType::Map);
  read(section);
  resolved[name] = section;
}

/// receivers.components as resolved: the name of one component, or the list.
Node components_node(const std::vector<Component>& components) {
  if (components.size() == 1) return Node(name(components[0]));
  Node list(YAML::NodeType::Sequence);
  for (Component c : components) list.push_back(name(c));
  list.SetStyle(YAML::EmitterStyle::Flow);
  return list;
}

// Coordinates spelled out (carpets and ranges expanded), so that x, y and z pair element-wise.
Node resolved_acquisition(const DeckAcquisition& acq, bool three_d) {
  auto coordinate = [](const DeckPoint& p, char axis) {
    return axis == 'x' ? p.position.x : axis == 'y' ? p.position.y : p.position.z;
  };
  auto list = [&](const std::vector<DeckPoint>& points, char axis) {
    std::vector<double> v;
    for (const DeckPoint& p : points) v.push_back(coordinate(p, axis));
    return yaml_list(v);
  };
  // Depths (and y) are often all equal: one number (broadcast to the x list) keeps the deck
  // readable.
  auto common = [&](const std::vector<DeckPoint>& points, char axis, double& value) {
    value = coordinate(points.front(), axis);
    for (const DeckPoint& p : points) {
      if (coordinate(p, axis) != value) return false;
    }
    return true;
  };
  const std::string axes = three_d ? "xyz" : "xz";
  Node out(YAML::NodeType::Map);
  for (char axis : axes) {
    double value = 0.0;
    const bool one = axis != 'x' && common(acq.sources, axis, value);
    out["sources"][std::string(1, axis)] = one ? yaml_number(value) : list(acq.sources, axis);
  }
  for (char axis : axes) {
    bool all_equal = axis != 'x';
    double value = coordinate(acq.receivers.front().front(), axis), v = 0.0;
    for (const auto& shot : acq.receivers) {
      all_equal = all_equal && common(shot, axis, v) && v == value;
    }
    Node n;
    if (all_equal) {
      n = yaml_number(value);
    } else if (acq.shared_receivers) {
      n = list(acq.receivers.front(), axis);
    } else {
      n = Node(YAML::NodeType::Sequence);
      for (const auto& shot : acq.receivers) n.push_back(list(shot, axis));
      n.SetStyle(YAML::EmitterStyle::Flow);
    }
    out["receivers"][std::string(1, axis)] = n;
  }
  out["sources"]["type"] = name(acq.source_type);
  out["receivers"]["components"] = components_node(acq.components);
  out["hicks_half_width"] = acq.hicks_half_width;
  return out;
}

std::string spacing_text(const Grid& g) {
  if (g.is_3d()) {
    if (g.dx == g.dz && g.dy == g.dx) return "spacing " + number_text(g.dx) + " m";
    return "spacing dz = " + number_text(g.dz) + " m, dy = " + number_text(g.dy) +
           " m, dx = " + number_text(g.dx) + " m";
  }
  if (g.dx == g.dz) return "spacing " + number_text(g.dx) + " m";
  return "spacing dz = " + number_text(g.dz) + " m, dx = " + number_text(g.dx) + " m";
}

void check_stability(const DeckReader& r, const Node& root, Deck& deck) {
  const ForwardProblem& p = deck.problem;
  const Grid& g = p.model.grid;
  const double dy = g.is_3d() ? g.dy : 0.0;
  // Density contrasts raise the staggered limit of the variable-density and elastic equations
  // (forward.hpp stability_velocity); the elastic limit is the P wave's (vp).
  const bool density = physics::has_parameter(p.equation, physics::Parameter::rho);
  const bool elastic = p.equation == physics::Equation::elastic;
  const double vstab = stability_velocity(p);
  const double dt_max = max_stable_dt(p, vstab);
  if (p.dt > dt_max) {
    r.fail("time.dt", r.child(r.child(root, "", "time"), "time", "dt"),
           "time.dt = " + number_text(p.dt) + " s is unstable for order " +
               std::to_string(p.order) +
               (elastic   ? " (elastic)"
                : density ? " (variable density)"
                          : "") +
               " with " + (elastic ? "vp max = " : "vmax = ") + number_text(vstab) + " m/s" +
               (density && vstab > p.model.vmax() ? " (raised by the density contrasts)" : "") +
               " and " + spacing_text(g) + "; the largest stable dt is " + stable_dt_text(dt_max) +
               " s");
  }
  // The slowest wave: vmin, or for the elastic equation the smallest vs > 0 (vp in fluid cells).
  const double fmax = physics::ricker_max_frequency(p.peak_frequency);
  const double vslow = dispersion_velocity(p.equation, p.model);
  const double ppw = physics::points_per_wavelength(vslow, fmax, g.dx, g.dz, dy);
  if (ppw < physics::min_points_per_wavelength) {
    char text[320];
    std::snprintf(text, sizeof text,
                  "numerical dispersion: %.2g points per wavelength (%s = %g m/s, fmax = 3 x "
                  "%g Hz = %g Hz, %s) is below %g; reduce model.spacing or "
                  "wavelet.peak_frequency",
                  ppw, elastic ? "slowest wave speed (vs, vp where vs = 0)" : "vmin", vslow,
                  p.peak_frequency, fmax, spacing_text(g).c_str(),
                  physics::min_points_per_wavelength);
    deck.warnings.push_back(text);
  }
}

void check_free_surface(const Deck& deck, std::vector<std::string>& warnings) {
  const ForwardProblem& p = deck.problem;
  // The elastic surface holds szz at 0, not the pressure: its sources inject and its receivers
  // record there.
  if (!p.boundary.free_surface || p.equation == physics::Equation::elastic) return;
  const double tol = 1e-6 * p.model.grid.dz;
  long sources = 0, receivers = 0;
  for (const ShotGeometry& s : p.shots) {
    sources += std::abs(s.source.z) <= tol;
    for (const Position& q : s.receivers) receivers += std::abs(q.z) <= tol;
  }
  if (sources > 0) {
    warnings.push_back(std::to_string(sources) +
                       " source(s) at z = 0 lie on the free surface, where the pressure is held "
                       "at 0: they inject nothing; move them at least one cell down");
  }
  if (receivers > 0) {
    warnings.push_back(std::to_string(receivers) +
                       " receiver position(s) at z = 0 lie on the free surface and record zeros");
  }
}

// model.rho belongs to the equations with a density (acoustic_variable_density, elastic) and
// model.vs to the elastic one: required there, refused elsewhere (a value an equation silently
// ignored would be a wrong run, not a warning). vs must stay below sqrt(3)/2 vp in every cell.
void check_materials(const DeckReader& r, const Node& root, const ForwardProblem& p) {
  const Node model = r.child(root, "", "model");
  const std::string equation = physics::name(p.equation);
  for (physics::Parameter q : {physics::Parameter::rho, physics::Parameter::vs}) {
    const std::string key = std::string("model.") + physics::name(q);
    const bool has = physics::has_parameter(p.equation, q);
    const bool given = !p.model.values(q).empty();
    const std::string with = physics::equations_with(q);
    if (has && !given) {
      r.fail(key, model,
             "required for physics.equation: " + equation + ": the " +
                 (q == physics::Parameter::rho ? "density" : "S-wave velocity") + " in " +
                 physics::unit(q) + " (a number, {file: path, ...} or {constant: " +
                 physics::unit(q) + ", ...}, like model.vp" +
                 (q == physics::Parameter::vs ? "; 0 in fluid cells)" : ")"));
    }
    if (!has && given) {
      r.fail(key, r.child(model, "model", physics::name(q)),
             "applies to physics.equation: " + with + " only; the equation " + equation +
                 " has no " +
                 (q == physics::Parameter::rho ? "density" : "S-wave velocity (it is acoustic)") +
                 ": set physics.equation or remove " + key);
    }
  }
  if (p.model.vs.empty()) return;
  const Grid& g = p.model.grid;
  const std::size_t plane = std::size_t(g.ny) * std::size_t(g.nx);
  for (std::size_t i = 0; i < p.model.vs.size(); ++i) {
    if (shear_velocity_ok(p.model.vs[i], p.model.vp[i])) continue;
    std::ostringstream what;
    what << "S velocity at cell (iz=" << i / plane;
    if (g.is_3d()) what << ", iy=" << i % plane / std::size_t(g.nx);
    what << ", ix=" << i % std::size_t(g.nx) << ") is " << p.model.vs[i]
         << " m/s, not below sqrt(3)/2 vp = " << std::sqrt(0.75) * p.model.vp[i]
         << " m/s (vp = " << p.model.vp[i]
         << " m/s there): the bulk modulus rho (vp^2 - 4/3 vs^2) would not be positive; every "
            "vs must lie in [0, 0.866 vp)";
    r.fail("model.vs", r.child(model, "model", "vs"), what.str());
  }
}

}  // namespace

double round_down_3(double value) {
  if (!(value > 0.0) || !std::isfinite(value)) return value;
  const double scale = std::pow(10.0, std::floor(std::log10(value)) - 2.0);
  return std::floor(value / scale) * scale;
}

std::string stable_dt_text(double dt_max) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", round_down_3(dt_max));
  return text;
}

Deck load_deck_text(const std::string& text, const std::string& path,
                    const std::vector<std::string>& overrides) {
  Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    const std::string where =
        e.mark.is_null() ? path : path + ":" + std::to_string(e.mark.line + 1);
    throw InputError("", where, "YAML syntax error: " + e.msg);
  }
  const std::set<std::string> overridden = apply_overrides(root, overrides);
  const DeckReader r(path, overridden);
  if (!DeckReader::given(root)) throw InputError("", path, "the deck is empty");
  r.check_keys(root, "");

  Deck deck;
  deck.path = path;
  Node res(YAML::NodeType::Map);
  const Node task = r.child(root, "", "task");
  deck.task =
      DeckReader::given(task) ? r.choice(task, "task", {"forward", "gradient", "fwi"}) : "forward";
  check_task_sections(r, root, deck);
  const Node precision = r.child(root, "", "precision");
  deck.precision = DeckReader::given(precision)
                       ? r.choice(precision, "precision", {"float32", "float64"})
                       : "float32";
  res["task"] = deck.task;
  res["precision"] = deck.precision;

  DeckModel model =
      read_model(r, r.required(root, "", "model", "{shape, spacing, vp}"), deck.warnings);
  deck.problem.model = std::move(model.model);
  res["model"] = model.resolved;
  const bool three_d = deck.problem.model.grid.is_3d();
  resolve_section(res, "time", [&](Node& n) { read_time(r, root, deck, n); });
  resolve_section(res, "wavelet", [&](Node& n) { read_wavelet(r, root, deck, n); });
  DeckAcquisition acq =
      read_acquisition(r,
                       r.required(root, "", "acquisition",
                                  three_d ? "{sources: {x, y, z}, receivers: {x, y, z}}"
                                          : "{sources: {x, z}, receivers: {x, z}}"),
                       three_d);
  Node observed_resolved(YAML::NodeType::Map);  // acquisition.from: observed
  if (acq.from_observed) {
    const Node from = r.child(r.child(root, "", "acquisition"), "acquisition", "from");
    if (deck.task == "forward") {
      r.fail("acquisition.from", from,
             "applies to tasks gradient and fwi (the positions come from the observed SEG-Y "
             "file's trace headers); a forward deck lists sources and receivers");
    }
    Node out(YAML::NodeType::Map);
    out["from"] = "observed";
    out["sources"]["type"] = name(acq.source_type);
    out["receivers"]["outside"] = acq.drop_outside ? "drop" : "refuse";
    out["receivers"]["components"] = components_node(acq.components);
    out["hicks_half_width"] = acq.hicks_half_width;
    res["acquisition"] = out;
    // The observed section is resolved here, before the sections that follow acquisition.
    read_observed_geometry(r, root, deck, acq.drop_outside, observed_resolved);
  } else {
    deck.problem.shots = place_acquisition(r, acq, deck.problem.model.grid, deck.warnings);
    res["acquisition"] = resolved_acquisition(acq, three_d);
  }
  deck.problem.hicks_half_width = acq.hicks_half_width;
  check_wavelet_shots(r, root, deck);
  resolve_section(res, "physics", [&](Node& n) { read_physics(r, root, deck, n); });
  check_materials(r, root, deck.problem);
  check_components(r, acq, deck.problem);
  resolve_section(res, "boundary", [&](Node& n) { read_boundary(r, root, deck, n); });
  resolve_section(res, "output", [&](Node& n) { read_output(r, root, deck, n); });
  resolve_section(res, "execution", [&](Node& n) { read_execution(r, root, deck, n); });
  if (acq.from_observed) res["observed"] = observed_resolved["observed"];
  read_task_sections(r, root, deck, res);
  if (deck.task != "forward" && deck.problem.boundary.pml_velocity == 0.0) {
    // The gradient treats the CPML as fixed: tie it to the initial model, not the current one.
    deck.problem.boundary.pml_velocity = deck.problem.model.vmax();
    res["boundary"]["pml_velocity"] = yaml_number(deck.problem.boundary.pml_velocity);
  }

  check_stability(r, root, deck);
  check_free_surface(deck, deck.warnings);
  deck.resolved = res;
  return deck;
}

Deck load_deck(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError("", path, "deck file not found");
  if (fs::is_directory(path, ec)) throw InputError("", path, "is a directory, not a deck file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError("", path, std::string("cannot read deck file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return load_deck_text(text.str(), path, overrides);
}

std::string resolved_yaml(const Deck& deck) {
  YAML::Emitter out;
  out << deck.resolved;
  return std::string(out.c_str()) + "\n";
}

}  // namespace pwave::io
