#include "pwave/io/deck_tasks.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "pwave/core/error.hpp"
#include "pwave/io/deck_inversion.hpp"
#include "pwave/io/deck_model.hpp"
#include "pwave/io/deck_observed.hpp"
#include "pwave/io/deck_selection.hpp"
#include "pwave/physics/stability.hpp"
#include "pwave/propagation/forward.hpp"

namespace fs = std::filesystem;

namespace pwave::io {
namespace {

using Node = YAML::Node;
std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string s;
  for (std::size_t v : shape) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "[" + s + "]";
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
        rule.section, DeckReader::key_node(root, rule.section),
        std::string("applies to ") + rule.tasks + " only (this deck has task: " + deck.task + ")");
  }
}

void read_task_sections(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  if (deck.task != "gradient" && deck.task != "fwi") return;
  const Node task = DeckReader::key_node(root, "task");
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
    r.fail("true_model", DeckReader::key_node(root, "true_model"),
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
