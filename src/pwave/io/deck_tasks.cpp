#include "pwave/io/deck_tasks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "pwave/core/error.hpp"
#include "pwave/io/deck_model.hpp"
#include "pwave/io/deck_observed.hpp"
#include "pwave/io/deck_selection.hpp"
#include "pwave/physics/stability.hpp"
#include "pwave/propagation/forward.hpp"

namespace fs = std::filesystem;

namespace pwave::io {
namespace {

using Node = YAML::Node;
constexpr int default_iterations = 10;

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string s;
  for (std::size_t v : shape) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "[" + s + "]";
}

// The node of the key `name` in `map` (its line is where the user wrote the key), else `map`.
Node key_node(const Node& map, const std::string& name) {
  Node at;
  at.reset(map);
  if (map.IsMap()) {
    for (const auto& kv : map) {
      if (kv.first.IsScalar() && kv.first.Scalar() == name) at.reset(kv.first);
    }
  }
  return at;
}

std::string stable_dt_text(double dt_max) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", round_down_3(dt_max));
  return text;
}

void read_gradient_section(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  const Node g = r.child(root, "", "gradient");
  if (DeckReader::given(g)) r.check_keys(g, "gradient");
  const Node storage = r.child(g, "gradient", "storage");
  const bool three_d = deck.problem.model.grid.is_3d();
  // The elastic equation keeps whole states (checkpoints, every step's, or with a stride or
  // compression every stride-th step's pair) or the strips and memory variables of every step
  // (boundary); checkpoints by default, the smallest history.
  const bool elastic = deck.problem.equation == physics::Equation::elastic;
  const std::string s = DeckReader::given(storage) ? r.choice(storage, "gradient.storage",
                                                              {"boundary", "checkpoint", "full"})
                        : elastic                  ? "checkpoint"
                                                   : "boundary";
  deck.storage = s == "full"         ? Storage::full
                 : s == "checkpoint" ? Storage::checkpoint
                                     : Storage::boundary;
  StorageOptions& o = deck.storage_options;
  o = StorageOptions(deck.storage);
  Node out(YAML::NodeType::Map);
  out["storage"] = s;
  // Settings of one strategy given with another are mistakes, not silently ignored.
  const Node interval = r.child(g, "gradient", "checkpoint_interval");
  if (DeckReader::given(interval)) {
    if (deck.storage != Storage::checkpoint) {
      r.fail("gradient.checkpoint_interval", interval, "applies to storage: checkpoint only");
    }
    o.interval = r.integer(interval, "gradient.checkpoint_interval", 1);
  }
  if (deck.storage == Storage::checkpoint) out["checkpoint_interval"] = o.interval;
  const Node stride = r.child(g, "gradient", "stride");
  if (DeckReader::given(stride)) {
    if (deck.storage != Storage::full) {
      r.fail("gradient.stride", stride, "applies to storage: full only");
    }
    o.stride = r.integer(stride, "gradient.stride", 1);
    if (three_d && !elastic && o.stride != 1) {
      r.fail("gradient.stride", stride,
             "3D acoustic gradients keep every step (stride 1) in this version");
    }
  }
  const Node compression = r.child(g, "gradient", "compression");
  if (DeckReader::given(compression)) {
    if (deck.storage != Storage::full) {
      r.fail("gradient.compression", compression, "applies to storage: full only");
    }
    const std::string c = r.choice(compression, "gradient.compression", {"none", "bf16", "int8"});
    o.compression = c == "bf16"   ? Compression::bf16
                    : c == "int8" ? Compression::int8
                                  : Compression::none;
    if (three_d && !elastic && o.compression != Compression::none) {
      r.fail("gradient.compression", compression,
             "3D acoustic gradients keep uncompressed snapshots in this version");
    }
  }
  if (deck.storage == Storage::full) {
    out["stride"] = o.stride;
    out["compression"] = to_string(o.compression);
  }
  const Node kind = r.child(g, "gradient", "misfit");
  if (DeckReader::given(kind)) {
    deck.misfit.function = *misfit::parse(r.choice(kind, "gradient.misfit", misfit::names()));
  }
  out["misfit"] = misfit::name(deck.misfit.function);
  read_selection(r, r.child(g, "gradient", "selection"), deck, out);
  resolved["gradient"] = out;
}

// observed.headers: byte positions of the trace header fields (SegyHeaderBytes).
Node read_header_bytes(const DeckReader& r, const Node& obs, SegyHeaderBytes& b) {
  const std::string key = "observed.headers";
  const Node h = r.child(obs, "observed", "headers");
  if (DeckReader::given(h)) r.check_keys(h, key);
  struct Field {
    const char* name;
    int* byte;
    bool scalar;  // 0 allowed: the file has no scalar
  };
  const Field fields[] = {{"shot", &b.shot, false},
                          {"source_x", &b.source_x, false},
                          {"source_y", &b.source_y, false},
                          {"group_x", &b.group_x, false},
                          {"group_y", &b.group_y, false},
                          {"scalar", &b.scalar, true},
                          {"elevation_scalar", &b.elevation_scalar, true},
                          {"receiver_elevation", &b.receiver_elevation, false},
                          {"source_elevation", &b.source_elevation, false},
                          {"source_depth", &b.source_depth, false}};
  Node out(YAML::NodeType::Map);
  for (const Field& f : fields) {
    const Node n = r.child(h, key, f.name);
    if (DeckReader::given(n)) {
      const int v = r.integer(n, key + "." + f.name, f.scalar ? 0 : 1);
      if (!(f.scalar && v == 0) && !segy_trace_field(v)) {
        r.fail(key + "." + f.name, n,
               "byte " + std::to_string(v) +
                   " is not the first byte of a SEG-Y trace header field (1-based, e.g. 73 for "
                   "SourceX)");
      }
      *f.byte = v;
    }
    out[f.name] = *f.byte;
  }
  out.SetStyle(YAML::EmitterStyle::Flow);
  return out;
}

// observed.coordinates: {origin: [x0, y0], azimuth: degrees}.
Node read_coordinates(const DeckReader& r, const Node& c, SegyOptions& o) {
  const std::string key = "observed.coordinates";
  r.check_keys(c, key);
  const Node origin = r.required(c, key, "origin", "[x0, y0]: survey coordinates of model x = 0");
  if (!origin.IsSequence() || origin.size() != 2) {
    r.fail(key + ".origin", origin,
           "expected [x0, y0] (survey coordinates, m), got " + DeckReader::describe(origin));
  }
  o.x0 = r.number(origin[0], key + ".origin[0]");
  o.y0 = r.number(origin[1], key + ".origin[1]");
  const Node azimuth =
      r.required(c, key, "azimuth", "degrees clockwise from north (+Y) of the model's x axis");
  o.azimuth = r.number(azimuth, key + ".azimuth");
  o.rotate = true;
  Node out(YAML::NodeType::Map);
  out["origin"] = yaml_list({o.x0, o.y0});
  out["azimuth"] = yaml_number(o.azimuth);
  return out;
}

// `geometry`: the acquisition comes from the file's trace headers (acquisition.from: observed).
void read_observed_section(const DeckReader& r, const Node& obs, Deck& deck, Node& resolved,
                           HeaderGeometry* geometry, bool drop_outside) {
  const std::string key = "observed";
  r.check_keys(obs, key);
  const Node file = r.required(obs, key, "file",
                               "path of the observed data: .npy [shot, receiver, time] or SEG-Y");
  const std::string name = r.text(file, key + ".file");
  const fs::path path = r.existing_file(file, key + ".file");
  const Node format_node = r.child(obs, key, "format");
  std::string format;
  if (DeckReader::given(format_node)) {
    format = r.choice(format_node, key + ".format", {"npy", "segy"});
  } else {
    std::string ext = path.extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".npy") format = "npy";
    if (ext == ".sgy" || ext == ".segy") format = "segy";
    if (format.empty()) {
      r.fail(key + ".file", file,
             "cannot tell the format of '" + name +
                 "' from its extension; set observed.format: npy or segy");
    }
  }
  const bool segy = format == "segy";
  if (geometry && !segy) {
    r.fail(key + ".file", file,
           "acquisition.from: observed reads the positions from SEG-Y trace headers, but '" + name +
               "' is " + format);
  }
  SegyOptions options;
  Node out(YAML::NodeType::Map);
  const Node gather_by = r.child(obs, key, "gather_by");
  const Node headers = r.child(obs, key, "headers");
  const Node resample = r.child(obs, key, "resample");
  for (const auto& [k, n] : {std::pair<const char*, Node>{"gather_by", gather_by},
                             std::pair<const char*, Node>{"headers", headers},
                             std::pair<const char*, Node>{"resample", resample}}) {
    if (DeckReader::given(n) && !segy) r.fail(key + "." + k, n, "applies to SEG-Y files only");
  }
  if (DeckReader::given(gather_by)) {
    options.gather_by_source =
        r.choice(gather_by, key + ".gather_by", {"record", "source"}) == "source";
  }
  if (DeckReader::given(resample)) options.resample = r.boolean(resample, key + ".resample");
  options.nt = deck.problem.nt;
  const Node header_bytes = read_header_bytes(r, obs, options.bytes);
  const Node coordinates = r.child(obs, key, "coordinates");
  const Node datum = r.child(obs, key, "datum");
  for (const auto& [k, n] : {std::pair<const char*, Node>{"coordinates", coordinates},
                             std::pair<const char*, Node>{"datum", datum}}) {
    if (DeckReader::given(n) && !geometry) {
      r.fail(key + "." + k, n,
             "applies to acquisition.from: observed only (positions from the SEG-Y headers)");
    }
  }
  Node coordinates_out;
  if (DeckReader::given(coordinates)) coordinates_out = read_coordinates(r, coordinates, options);
  if (DeckReader::given(datum)) options.datum = r.number(datum, key + ".datum");
  options.grid = &deck.problem.model.grid;
  options.drop_outside = drop_outside;
  try {
    deck.observed = read_observed_file(path.string(), format, deck.problem.dt, options, geometry);
  } catch (const InputError& e) {
    r.fail(key + ".file", file, bare_message(e.what(), e.key(), ""));
  }
  if (geometry) deck.problem.shots = geometry->shots;
  const ForwardProblem& p = deck.problem;
  const std::vector<std::size_t> expected = {p.shots.size(), max_receivers(p.shots),
                                             std::size_t(p.nt)};
  const std::vector<std::size_t>& counts = deck.observed.shot_traces;
  if (!counts.empty() && counts.size() == p.shots.size() && deck.observed.shape[2] == expected[2]) {
    // SEG-Y: each shot's gather against its receivers.
    for (std::size_t s = 0; s < counts.size(); ++s) {
      if (counts[s] != p.shots[s].receivers.size()) {
        r.fail(key + ".file", file,
               "'" + name + "': shot " + std::to_string(s) + " (gather " + std::to_string(s + 1) +
                   " in file order) holds " + std::to_string(counts[s]) +
                   " traces but the acquisition gives it " +
                   std::to_string(p.shots[s].receivers.size()) + " receivers");
      }
    }
  } else if (deck.observed.shape != expected) {
    const bool padded = !same_receiver_counts(p.shots);
    r.fail(key + ".file", file,
           "'" + name + "' holds data of shape " + shape_text(deck.observed.shape) +
               " but the acquisition and time.nt need " + shape_text(expected) +
               (padded ? " ([shot, receiver, time], each shot padded with zero traces to the "
                         "widest shot's receivers)"
                       : " ([shot, receiver, time])") +
               (segy && !options.resample && deck.observed.shape.size() == 3 &&
                        deck.observed.shape[2] != expected[2]
                    ? "; observed.resample: true resamples SEG-Y traces to time.nt"
                    : ""));
  }
  std::error_code ec;
  deck.observed.file = fs::absolute(path, ec).string();
  deck.observed.where = r.where(key + ".file", file);
  out["file"] = deck.observed.file;
  out["format"] = format;
  if (segy) {
    out["gather_by"] = options.gather_by_source ? "source" : "record";
    out["headers"] = header_bytes;
    out["resample"] = options.resample;
  }
  if (geometry) {
    if (options.rotate) out["coordinates"] = coordinates_out;
    out["datum"] = yaml_number(options.datum);
  }
  resolved["observed"] = out;
}

void read_true_model_section(const DeckReader& r, const Node& tm, Deck& deck, Node& resolved) {
  r.check_keys(tm, "true_model");
  const Node vp = r.required(tm, "true_model", "vp",
                             "m/s, as model.vp: a number, {file: ...} or {constant: ...}");
  const Grid& grid = deck.problem.model.grid;
  Node vp_resolved;
  deck.true_model.grid = grid;
  deck.true_model.vp = read_velocity(r, vp, "true_model.vp", grid, vp_resolved, deck.warnings);
  deck.has_true_model = true;
  const ForwardProblem& p = deck.problem;
  const bool vd = physics::has_parameter(p.equation, physics::Parameter::rho);  // a density
  Node out(YAML::NodeType::Map);
  out["vp"] = vp_resolved;
  // true_model.rho and true_model.vs, for the equations that have them (default: the initial
  // model's); refused for the others.
  for (physics::Parameter q : {physics::Parameter::rho, physics::Parameter::vs}) {
    const std::string key = std::string("true_model.") + physics::name(q);
    const Node node = r.child(tm, "true_model", physics::name(q));
    if (DeckReader::given(node) && !physics::has_parameter(p.equation, q)) {
      r.fail(key, node,
             "applies to physics.equation: " + physics::equations_with(q) + " only (the equation " +
                 physics::name(p.equation) + " has no " +
                 (q == physics::Parameter::rho ? "density" : "S-wave velocity") + ")");
    }
    if (DeckReader::given(node)) {
      Node resolved_q;
      deck.true_model.values(q) = read_material(
          r, node, key, q == physics::Parameter::rho ? density_material : shear_material, grid,
          resolved_q, deck.warnings, &deck.true_model.vp);
      out[physics::name(q)] = resolved_q;
    } else {
      deck.true_model.values(q) = p.model.values(q);  // the true value is the initial one
    }
  }
  if (!deck.true_model.vs.empty()) {
    // vs below sqrt(3)/2 vp in every cell of the true model too.
    const std::size_t plane = std::size_t(grid.ny) * std::size_t(grid.nx);
    for (std::size_t i = 0; i < deck.true_model.vs.size(); ++i) {
      const double vsi = deck.true_model.vs[i], vpi = deck.true_model.vp[i];
      if (shear_velocity_ok(vsi, vpi)) continue;
      const Node vs_node = r.child(tm, "true_model", "vs");
      std::ostringstream what;
      what << "S velocity at cell (iz=" << i / plane;
      if (grid.is_3d()) what << ", iy=" << i % plane / std::size_t(grid.nx);
      what << ", ix=" << i % std::size_t(grid.nx) << ") is " << vsi
           << " m/s, not below sqrt(3)/2 vp = " << std::sqrt(0.75) * vpi
           << " m/s (true_model vp = " << vpi
           << " m/s there): the bulk modulus would not be positive"
           << (DeckReader::given(vs_node) ? "" : " (true_model.vs defaults to model.vs)");
      r.fail(DeckReader::given(vs_node) ? "true_model.vs" : "true_model.vp",
             DeckReader::given(vs_node) ? vs_node : vp, what.str());
    }
  }
  const double vstab = stability_velocity(p.equation, deck.true_model);
  const double dt_max = max_stable_dt(p, vstab);
  if (p.dt > dt_max) {
    const bool rho_given = DeckReader::given(r.child(tm, "true_model", "rho"));
    r.fail(rho_given ? "true_model.rho" : "true_model.vp",
           rho_given ? r.child(tm, "true_model", "rho") : vp,
           "vmax = " + number_text(vstab) + " m/s" +
               (vd ? " (with the density contrasts: see docs/physics.md)" : "") +
               " makes time.dt = " + number_text(p.dt) + " s unstable for order " +
               std::to_string(p.order) + "; the largest stable dt is " + stable_dt_text(dt_max) +
               " s");
  }
  resolved["true_model"] = out;
}

// A number in [0, 1).
double fraction(const DeckReader& r, const Node& node, const std::string& key) {
  const double v = r.number(node, key);
  if (v < 0.0 || v >= 1.0) {
    r.fail(key, node, "expected a number in [0, 1), got " + DeckReader::describe(node));
  }
  return v;
}

Node read_optimizer(const DeckReader& r, const Node& inv, OptimizerConfig& opt) {
  const std::string key = "inversion.optimizer";
  const Node o = r.child(inv, "inversion", "optimizer");
  if (DeckReader::given(o)) r.check_keys(o, key);
  const Node type = r.child(o, key, "type");
  if (DeckReader::given(type)) opt.type = r.choice(type, key + ".type", {"adam", "lbfgs", "sgd"});
  const Node lr = r.child(o, key, "learning_rate");
  if (DeckReader::given(lr)) opt.learning_rate = r.positive(lr, key + ".learning_rate");
  // Settings of one optimiser only: refuse them for the others rather than ignore them.
  const auto setting = [&](const char* name, const char* owner) {
    const Node n = r.child(o, key, name);
    if (DeckReader::given(n) && opt.type != owner) {
      r.fail(key + "." + name, n,
             std::string("applies to optimizer.type ") + owner + " only (the type here is " +
                 opt.type + ")");
    }
    return n;
  };
  const Node beta1 = setting("beta1", "adam"), beta2 = setting("beta2", "adam");
  const Node epsilon = setting("epsilon", "adam"), momentum = setting("momentum", "sgd");
  const Node memory = setting("memory", "lbfgs");
  if (DeckReader::given(beta1)) opt.beta1 = fraction(r, beta1, key + ".beta1");
  if (DeckReader::given(beta2)) opt.beta2 = fraction(r, beta2, key + ".beta2");
  if (DeckReader::given(epsilon)) opt.epsilon = r.positive(epsilon, key + ".epsilon");
  if (DeckReader::given(momentum)) opt.momentum = fraction(r, momentum, key + ".momentum");
  if (DeckReader::given(memory)) opt.memory = r.integer(memory, key + ".memory", 1);

  Node out(YAML::NodeType::Map);
  out["type"] = opt.type;
  out["learning_rate"] = yaml_number(opt.learning_rate);
  if (opt.type == "adam") {
    out["beta1"] = yaml_number(opt.beta1);
    out["beta2"] = yaml_number(opt.beta2);
    out["epsilon"] = yaml_number(opt.epsilon);
  } else if (opt.type == "sgd") {
    out["momentum"] = yaml_number(opt.momentum);
  } else {
    out["memory"] = opt.memory;
  }
  return out;
}

void read_stages(const DeckReader& r, const Node& inv, double dt, DeckInversion& d) {
  const Node iterations = r.child(inv, "inversion", "iterations");
  const Node stages = r.child(inv, "inversion", "stages");
  if (DeckReader::given(iterations) && DeckReader::given(stages)) {
    r.fail("inversion.iterations", iterations,
           "give either iterations or stages, not both (stages replace iterations)");
  }
  d.stages.clear();
  d.stages_given = DeckReader::given(stages);
  if (!d.stages_given) {
    const int n = DeckReader::given(iterations) ? r.integer(iterations, "inversion.iterations", 1)
                                                : default_iterations;
    d.stages.push_back(StageConfig{n, 0.0});
    return;
  }
  if (!stages.IsSequence() || stages.size() == 0) {
    r.fail("inversion.stages", stages,
           "expected a non-empty list of {iterations, max_frequency, min_frequency}, got " +
               DeckReader::describe(stages));
  }
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const std::string item = "inversion.stages[" + std::to_string(i) + "]";
    r.check_keys(stages[i], item);
    StageConfig s;
    s.iterations = r.integer(r.required(stages[i], item, "iterations", "iterations of this stage"),
                             item + ".iterations", 1);
    const Node f = r.child(stages[i], item, "max_frequency");
    if (DeckReader::given(f)) s.max_frequency = r.non_negative(f, item + ".max_frequency");
    const Node fmin = r.child(stages[i], item, "min_frequency");
    if (DeckReader::given(fmin)) s.min_frequency = r.non_negative(fmin, item + ".min_frequency");
    // The band-pass (inversion/bandpass.hpp): 0 <= min < max < Nyquist (a 0 leaves its side
    // unfiltered).
    const double nyquist = 0.5 / dt;
    std::ostringstream why;
    if (s.max_frequency >= nyquist) {
      why.str("");
      why << "is " << s.max_frequency << " Hz, at or above the Nyquist frequency " << nyquist
          << " Hz of time.dt = " << dt << " s";
      r.fail(item + ".max_frequency", f, why.str());
    }
    if (s.min_frequency >= nyquist) {
      why.str("");
      why << "is " << s.min_frequency << " Hz, at or above the Nyquist frequency " << nyquist
          << " Hz of time.dt = " << dt << " s";
      r.fail(item + ".min_frequency", fmin, why.str());
    }
    if (s.min_frequency > 0 && s.max_frequency > 0 && s.min_frequency >= s.max_frequency) {
      why.str("");
      why << "is " << s.min_frequency << " Hz, not below max_frequency " << s.max_frequency
          << " Hz (the stage keeps min_frequency to max_frequency)";
      r.fail(item + ".min_frequency", fmin, why.str());
    }
    d.stages.push_back(s);
  }
}

// inversion.parameters: a non-empty list of distinct names the equation provides.
void read_parameters(const DeckReader& r, const Node& inv, Deck& deck) {
  const std::string key = "inversion.parameters";
  const Node list = r.child(inv, "inversion", "parameters");
  DeckInversion& d = deck.inversion;
  d.parameters = {physics::Parameter::vp};
  if (!DeckReader::given(list)) return;
  if (!list.IsSequence() || list.size() == 0) {
    r.fail(key, list,
           "expected a non-empty list of parameter names (e.g. [vp], [vp, rho] or [vp, vs, rho]), "
           "got " +
               DeckReader::describe(list));
  }
  d.parameters.clear();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string item = key + "[" + std::to_string(i) + "]";
    physics::Parameter p{};
    physics::parse_parameter(r.choice(list[i], item, physics::parameter_names()), p);
    if (!physics::has_parameter(deck.problem.equation, p)) {
      const std::string with = physics::equations_with(p);
      r.fail(item, list[i],
             std::string("the equation ") + physics::name(deck.problem.equation) + " has no " +
                 physics::name(p) +
                 (with.empty() ? std::string(" (no equation of this version has it)")
                               : " (set physics.equation: " + with + " to invert it)"));
    }
    for (physics::Parameter q : d.parameters) {
      if (q == p) r.fail(item, list[i], std::string("'") + physics::name(p) + "' is listed twice");
    }
    d.parameters.push_back(p);
  }
}

bool inverts(const DeckInversion& d, physics::Parameter p) {
  for (physics::Parameter q : d.parameters) {
    if (q == p) return true;
  }
  return false;
}

// The names of parameter q's bounds in messages: vmin and vmax, rho_min and rho_max, vs_min
// and vs_max.
std::string bound_name(physics::Parameter q, bool upper) {
  if (q == physics::Parameter::vp) return upper ? "vmax" : "vmin";
  return std::string(physics::name(q)) + (upper ? "_max" : "_min");
}

// One [lower, upper] pair of parameter `q`'s bounds at `key`, with 0 < lower < upper (0 <= lower
// for vs: a fluid cell, vs = 0, is then inside the bounds).
void read_pair(const DeckReader& r, const Node& node, const std::string& key, physics::Parameter q,
               double& lower, double& upper) {
  const std::string lo = bound_name(q, false), hi = bound_name(q, true);
  const std::string unit = physics::unit(q);
  if (!node.IsSequence() || node.size() != 2) {
    r.fail(key, node,
           "expected [" + lo + ", " + hi + "] (" + unit + "), got " + DeckReader::describe(node));
  }
  lower = r.number(node[0], key + "[0]");
  upper = r.number(node[1], key + "[1]");
  const bool zero = InversionSettings::lower_bound_may_be_zero(q);
  if (!(zero ? lower >= 0.0 : lower > 0.0) || !(lower < upper)) {
    r.fail(key, node,
           std::string("expected 0 ") + (zero ? "<= " : "< ") + lo + " < " + hi + " (" + unit +
               "), got [" + number_text(lower) + ", " + number_text(upper) + "]");
  }
}

// inversion.bounds: [vmin, vmax] when only vp is inverted, else {vp: [..], rho: [..], vs: [..]}
// with a pair for every inverted parameter and none for the others.
Node read_bounds(const DeckReader& r, const Node& inv, Deck& deck) {
  DeckInversion& d = deck.inversion;
  const bool vp_only = d.parameters.size() == 1 && d.parameters[0] == physics::Parameter::vp;
  const Node bounds =
      r.required(inv, "inversion", "bounds",
                 vp_only ? "[vmin, vmax] in m/s"
                         : "the bounds of every inverted parameter: {vp: [vmin, vmax] (m/s), "
                           "rho: [rho_min, rho_max] (kg/m^3), vs: [vs_min, vs_max] (m/s)}");
  const ForwardProblem& p = deck.problem;
  d.vmin = p.model.vmin();  // vp not inverted: it stays as it is
  d.vmax = p.model.vmax();
  Node out;
  if (bounds.IsSequence()) {
    if (!vp_only) {
      r.fail("inversion.bounds", bounds,
             "with inversion.parameters other than [vp] give the bounds per parameter: {vp: "
             "[vmin, vmax] (m/s), rho: [rho_min, rho_max] (kg/m^3), vs: [vs_min, vs_max] (m/s)}, "
             "one pair for each inverted parameter");
    }
    read_pair(r, bounds, "inversion.bounds", physics::Parameter::vp, d.vmin, d.vmax);
    out = yaml_list({d.vmin, d.vmax});
  } else {
    if (!bounds.IsMap()) {
      r.fail("inversion.bounds", bounds,
             "expected [vmin, vmax] (m/s) or {vp: [vmin, vmax], rho: [rho_min, rho_max], vs: "
             "[vs_min, vs_max]}, got " +
                 DeckReader::describe(bounds));
    }
    r.check_keys(bounds, "inversion.bounds");
    out = Node(YAML::NodeType::Map);
    for (physics::Parameter q :
         {physics::Parameter::vp, physics::Parameter::rho, physics::Parameter::vs}) {
      const std::string key = std::string("inversion.bounds.") + physics::name(q);
      const Node pair = r.child(bounds, "inversion.bounds", physics::name(q));
      if (DeckReader::given(pair) && !inverts(d, q)) {
        r.fail(key, pair,
               std::string("'") + physics::name(q) +
                   "' is not in inversion.parameters; bound "
                   "only the parameters that are inverted");
      }
      if (!inverts(d, q)) continue;
      if (!DeckReader::given(pair)) {
        r.fail(key, bounds,
               std::string("required: [lower, upper] in ") + physics::unit(q) + " (" +
                   physics::name(q) + " is in inversion.parameters)");
      }
      read_pair(r, pair, key, q, d.lower_bound(q), d.upper_bound(q));
      out[physics::name(q)] = yaml_list({d.lower_bound(q), d.upper_bound(q)});
    }
  }
  // The initial model should lie within the bounds (the first update clips it).
  const auto check_initial = [&](physics::Parameter q, double lo, double hi) {
    if (lo >= d.lower_bound(q) && hi <= d.upper_bound(q)) return;
    const std::string unit = physics::unit(q);
    deck.warnings.push_back(std::string("inversion.bounds") +
                            (q == physics::Parameter::vp    ? ": the initial model ("
                             : q == physics::Parameter::rho ? ".rho: the initial density ("
                                                            : ".vs: the initial S velocity (") +
                            number_text(lo) + " to " + number_text(hi) + " " + unit +
                            ") lies partly outside [" + number_text(d.lower_bound(q)) + ", " +
                            number_text(d.upper_bound(q)) + "] " + unit +
                            "; the first update clips it");
  };
  if (inverts(d, physics::Parameter::vp)) {
    // The inversion may raise any velocity up to vmax: the time step must be stable there
    // (with the initial model's density contrasts for variable density).
    const double dt_max = max_stable_dt(p, d.vmax * density_contrast_factor(p.equation, p.model));
    if (p.dt > dt_max) {
      r.fail("inversion.bounds", bounds,
             "the inversion may raise velocities up to vmax = " + number_text(d.vmax) +
                 " m/s, where time.dt = " + number_text(p.dt) + " s is unstable for order " +
                 std::to_string(p.order) + " (the largest stable dt is " + stable_dt_text(dt_max) +
                 " s); lower the upper bound or time.dt");
    }
    check_initial(physics::Parameter::vp, p.model.vmin(), p.model.vmax());
  }
  if (inverts(d, physics::Parameter::rho)) {
    // A density contrast raises the stable velocity (physics/stability.hpp): in the worst case
    // sqrt(rho_max / rho_min) over the fastest velocity. Advice only: contrasts that large are
    // rare, and a run that goes unstable stops naming the step.
    const double vstab = d.vmax * std::sqrt(d.rho_max / d.rho_min);
    const double dt_max = max_stable_dt(p, vstab);
    if (p.dt > dt_max) {
      deck.warnings.push_back("inversion.bounds.rho: a density contrast of rho_max / rho_min = " +
                              number_text(d.rho_max / d.rho_min) +
                              " next to vp = " + number_text(d.vmax) +
                              " m/s would need time.dt <= " + stable_dt_text(dt_max) +
                              " s; the run stops with an error if the model gets there");
    }
    const auto [lo, hi] = std::minmax_element(p.model.rho.begin(), p.model.rho.end());
    check_initial(physics::Parameter::rho, *lo, *hi);
  }
  if (inverts(d, physics::Parameter::vs)) {
    // Fluid cells (vs = 0) stay fluid: the bounds apply to the solid cells.
    double lo = 0, hi = 0;
    bool solid = false;
    for (const double v : p.model.vs) {
      if (v == 0.0) continue;
      lo = solid ? std::min(lo, v) : v, hi = solid ? std::max(hi, v) : v, solid = true;
    }
    if (solid) check_initial(physics::Parameter::vs, lo, hi);
    // The optimiser clamps each parameter to its own bounds, not vs to sqrt(3)/2 vp: bounds
    // that allow vs_max next to the lowest vp the inversion may reach can make a cell's bulk
    // modulus negative. Advice only: fluid-solid models need vs_max above the water's 0.866 vp.
    const double vp_low = inverts(d, physics::Parameter::vp) ? d.vmin : p.model.vmin();
    if (!shear_velocity_ok(d.vs_max, vp_low)) {
      deck.warnings.push_back(
          "inversion.bounds.vs: vs_max = " + number_text(d.vs_max) +
          " m/s is not below sqrt(3)/2 of the lowest vp (" + number_text(vp_low) +
          " m/s) the inversion may reach; a cell where vs rises to 0.866 vp or more has no "
          "positive bulk modulus (lower vs_max, or raise vmin)");
    }
  } else if (inverts(d, physics::Parameter::vp) && !p.model.vs.empty()) {
    // vs fixed, vp inverted: vp clipped down to vmin may fall to the model's vs / 0.866.
    const double vs_high = *std::max_element(p.model.vs.begin(), p.model.vs.end());
    if (!shear_velocity_ok(vs_high, d.vmin)) {
      deck.warnings.push_back(
          "inversion.bounds: vmin = " + number_text(d.vmin) +
          " m/s is not above the model's largest vs (" + number_text(vs_high) +
          " m/s) / 0.866; a cell where vp falls to vs / 0.866 or less has no positive bulk "
          "modulus (raise vmin)");
    }
  }
  return out;
}

void read_inversion_section(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  const std::string key = "inversion";
  const Node inv = r.child(root, "", key);
  if (!DeckReader::given(inv)) {
    r.fail(key, key_node(root, "task"),
           "required for task fwi (at least inversion.bounds: [vmin, vmax] in m/s)");
  }
  r.check_keys(inv, key);
  DeckInversion& d = deck.inversion;
  read_stages(r, inv, deck.problem.dt, d);
  const int nshots = int(deck.problem.shots.size());
  const Node batch = r.child(inv, key, "batch_size");
  if (DeckReader::given(batch)) {
    d.batch_size = r.integer(batch, key + ".batch_size", 0);
    if (d.batch_size > nshots) {
      r.fail(key + ".batch_size", batch,
             "batch_size = " + std::to_string(d.batch_size) + " is more than the " +
                 std::to_string(nshots) + " shot(s) of the acquisition (0 = all shots)");
    }
  }
  const Node seed = r.child(inv, key, "seed");
  if (DeckReader::given(seed)) d.seed = (unsigned long)r.integer(seed, key + ".seed", 0);
  const Node optimizer = read_optimizer(r, inv, d.optimizer);
  read_parameters(r, inv, deck);
  const Node bounds = read_bounds(r, inv, deck);
  const auto metres = [&](const char* name, double& value) {
    const Node n = r.child(inv, key, name);
    if (DeckReader::given(n)) value = r.non_negative(n, key + "." + name);
    return n;
  };
  metres("smoothing", d.smoothing);
  metres("source_taper", d.source_taper);
  const Node water = metres("water_depth", d.water_depth);
  const double depth = deck.problem.model.grid.depth();
  if (d.water_depth >= depth && d.water_depth > 0.0) {
    r.fail(key + ".water_depth", water,
           "water_depth = " + number_text(d.water_depth) +
               " m is not above the model's bottom (z = " + number_text(depth) +
               " m): the gradient would be zero everywhere");
  }
  const Node every = r.child(inv, key, "output_every");
  if (DeckReader::given(every)) d.output_every = r.integer(every, key + ".output_every", 0);
  const Node checkpoint = r.child(inv, key, "checkpoint_every");
  if (DeckReader::given(checkpoint)) {
    d.checkpoint_every = r.integer(checkpoint, key + ".checkpoint_every", 1);
  }

  Node out(YAML::NodeType::Map);
  Node stages(YAML::NodeType::Sequence);
  for (const StageConfig& s : d.stages) {
    Node n(YAML::NodeType::Map);
    n["iterations"] = s.iterations;
    n["max_frequency"] = yaml_number(s.max_frequency);
    // Echoed when given: decks without high-passes resolve as before.
    if (s.min_frequency > 0) n["min_frequency"] = yaml_number(s.min_frequency);
    n.SetStyle(YAML::EmitterStyle::Flow);
    stages.push_back(n);
  }
  out["stages"] = stages;
  out["batch_size"] = d.batch_size;
  out["seed"] = d.seed;
  out["optimizer"] = optimizer;
  Node parameters(YAML::NodeType::Sequence);
  for (physics::Parameter q : d.parameters) parameters.push_back(physics::name(q));
  parameters.SetStyle(YAML::EmitterStyle::Flow);
  out["parameters"] = parameters;
  out["bounds"] = bounds;
  out["smoothing"] = yaml_number(d.smoothing);
  out["water_depth"] = yaml_number(d.water_depth);
  out["source_taper"] = yaml_number(d.source_taper);
  out["output_every"] = d.output_every;
  out["checkpoint_every"] = d.checkpoint_every;
  resolved[key] = out;
}

}  // namespace

void check_task_sections(const DeckReader& r, const Node& root, const Deck& deck) {
  struct Rule {
    const char* section;
    bool used;
    const char* tasks;
  };
  const bool inverse = deck.task == "gradient" || deck.task == "fwi";
  const Rule rules[] = {{"observed", inverse, "tasks gradient and fwi"},
                        {"gradient", inverse, "tasks gradient and fwi"},
                        {"true_model", deck.task == "fwi", "task fwi"},
                        {"inversion", deck.task == "fwi", "task fwi"}};
  for (const Rule& rule : rules) {
    if (rule.used || !DeckReader::given(r.child(root, "", rule.section))) continue;
    r.fail(
        rule.section, key_node(root, rule.section),
        std::string("applies to ") + rule.tasks + " only (this deck has task: " + deck.task + ")");
  }
}

void read_task_sections(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  if (deck.task != "gradient" && deck.task != "fwi") return;
  const Node task = key_node(root, "task");
  const Node observed = r.child(root, "", "observed");
  const Node true_model = r.child(root, "", "true_model");
  const bool has_observed = DeckReader::given(observed);
  const bool has_true = DeckReader::given(true_model);
  if (deck.task == "gradient" && !has_observed) {
    r.fail("observed", task,
           "required for task gradient: give observed: {file: data.npy} with the data "
           "[shot, receiver, time]");
  }
  if (deck.task == "fwi" && !has_observed && !has_true) {
    r.fail("observed", task,
           "task fwi needs observed data: give observed: {file: data.npy}, or true_model: "
           "{vp: ...} to model them");
  }
  if (has_observed && has_true) {
    r.fail("true_model", key_node(root, "true_model"),
           "give either observed (data from a file) or true_model (data modelled from it), "
           "not both");
  }
  // With acquisition.from: observed the section was read with the acquisition.
  if (has_observed && deck.observed.file.empty()) {
    read_observed_section(r, observed, deck, resolved, nullptr, false);
  }
  read_gradient_section(r, root, deck, resolved);
  if (has_true) read_true_model_section(r, true_model, deck, resolved);
  if (deck.task == "fwi") read_inversion_section(r, root, deck, resolved);
}

void read_observed_geometry(const DeckReader& r, const Node& root, Deck& deck, bool drop_outside,
                            Node& resolved) {
  const Node observed = r.child(root, "", "observed");
  if (!DeckReader::given(observed)) {
    r.fail("acquisition.from", r.child(r.child(root, "", "acquisition"), "acquisition", "from"),
           "takes the positions from the observed SEG-Y file: give observed: {file: data.segy}");
  }
  HeaderGeometry geometry;
  read_observed_section(r, observed, deck, resolved, &geometry, drop_outside);
  for (std::string& w : geometry.warnings) deck.warnings.push_back(std::move(w));
  for (std::string& n : geometry.notes) deck.notes.push_back(std::move(n));
}

}  // namespace pwave::io
