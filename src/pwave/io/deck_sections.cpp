#include "pwave/io/deck_sections.hpp"

#include <cmath>
#include <filesystem>
#include <sstream>

#include "pwave/acquisition/wavelet.hpp"
#include "pwave/core/error.hpp"
#include "pwave/io/npy.hpp"
#include "pwave/physics/equation.hpp"
#include "pwave/physics/stencil.hpp"

namespace fs = std::filesystem;

namespace pwave::io {
namespace {

using Node = YAML::Node;
constexpr int default_cpml_width = 20;

// wavelet.file: [nt] (shared) into problem.wavelet, or [rows, nt] (one row per shot: the count
// is checked against the shots by check_wavelet_shots) into problem.shot_wavelets.
void read_wavelet_file(const DeckReader& r, const Node& file, int nt, ForwardProblem& p) {
  const std::string name = r.text(file, "wavelet.file");
  const NpyArray array = read_deck_npy(r, file, "wavelet.file");
  const std::size_t rank = array.shape.size();
  if (rank < 1 || rank > 2 || array.shape[rank - 1] != std::size_t(nt) ||
      (rank == 2 && array.shape[0] < 1)) {
    std::string shape;
    for (std::size_t s : array.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(s);
    r.fail("wavelet.file", file,
           "'" + name + "' has shape (" + shape + ") but time.nt = " + std::to_string(nt) +
               " needs a 1D array of " + std::to_string(nt) + " samples (one wavelet for every " +
               "shot) or a 2D array [shots, " + std::to_string(nt) + "] (one row per shot)");
  }
  for (std::size_t i = 0; i < array.data.size(); ++i) {
    if (!std::isfinite(array.data[i])) {
      r.fail("wavelet.file", file,
             (rank == 2 ? "sample " + std::to_string(i % std::size_t(nt)) + " of row " +
                              std::to_string(i / std::size_t(nt))
                        : "sample " + std::to_string(i)) +
                 " of '" + name + "' is not finite");
    }
  }
  p.wavelet.clear();
  p.shot_wavelets.clear();
  if (rank == 1) {
    p.wavelet = array.data;
    return;
  }
  for (std::size_t s = 0; s < array.shape[0]; ++s) {
    const auto from = array.data.begin() + std::ptrdiff_t(s * std::size_t(nt));
    p.shot_wavelets.emplace_back(from, from + nt);
  }
}

// wavelet.estimate: true, false or {every, water_level}; task fwi only. Echoed for fwi decks
// (false when not given).
void read_wavelet_estimate(const DeckReader& r, const Node& root, const Node& w, Deck& deck,
                           Node& resolved) {
  const std::string key = "wavelet.estimate";
  const Node node = r.child(w, "wavelet", "estimate");
  WaveletEstimation& e = deck.inversion.wavelet_estimation;
  if (DeckReader::given(node) && deck.task != "fwi") {
    r.fail(key, node,
           "applies to task fwi only (this deck has task: " + deck.task +
               "): the wavelet is estimated from the observed data during an inversion");
  }
  if (deck.task != "fwi") return;
  if (DeckReader::given(node) && !node.IsMap()) {
    try {
      e.enabled = r.boolean(node, key);
    } catch (const InputError&) {
      r.fail(key, node,
             "expected true, false or {every: iteration | stage, water_level: number >= 0}, got " +
                 DeckReader::describe(node));
    }
  } else if (DeckReader::given(node)) {
    r.check_keys(node, key);
    e.enabled = true;
    const Node every = r.child(node, key, "every");
    if (DeckReader::given(every)) {
      e.every = r.choice(every, key + ".every", {"iteration", "stage"}) == "stage"
                    ? WaveletEstimation::Every::stage
                    : WaveletEstimation::Every::iteration;
    }
    const Node level = r.child(node, key, "water_level");
    if (DeckReader::given(level)) e.water_level = r.non_negative(level, key + ".water_level");
    const Node per_shot = r.child(node, key, "per_shot");
    if (DeckReader::given(per_shot)) e.per_shot = r.boolean(per_shot, key + ".per_shot");
  }
  if (!e.enabled) {
    resolved["estimate"] = false;
    return;
  }
  if (DeckReader::given(r.child(root, "", "true_model"))) {
    deck.warnings.push_back(
        "wavelet.estimate: the observed data are modelled from true_model with this deck's "
        "wavelet, which is also the initial one: the estimate can only absorb the initial "
        "model's errors");
  }
  Node out(YAML::NodeType::Map);
  out["every"] = name(e.every);
  out["water_level"] = yaml_number(e.water_level);
  out["per_shot"] = e.per_shot;
  out.SetStyle(YAML::EmitterStyle::Flow);
  resolved["estimate"] = out;
}

}  // namespace

void read_time(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  const Node time = r.required(root, "", "time", "{dt: seconds, nt: steps}");
  r.check_keys(time, "time");
  deck.problem.dt = r.positive(r.required(time, "time", "dt", "seconds per step"), "time.dt");
  deck.problem.nt = r.integer(r.required(time, "time", "nt", "number of time steps"), "time.nt", 1);
  resolved["dt"] = yaml_number(deck.problem.dt);
  resolved["nt"] = deck.problem.nt;
}

void read_wavelet(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  const std::string key = "wavelet";
  const Node w = r.required(root, "", key, "{type: ricker, peak_frequency: Hz}");
  r.check_keys(w, key);
  const Node file = r.child(w, key, "file");
  const Node type_node = r.child(w, key, "type");
  if (DeckReader::given(type_node) && type_node.IsScalar() && type_node.Scalar() == "estimate") {
    r.fail(key + ".type", type_node,
           "is the initial wavelet's type (ricker or file); to estimate the wavelet during an "
           "inversion, add wavelet.estimate: {every: iteration | stage, water_level: 1e-3}");
  }
  const std::string type = DeckReader::given(type_node)
                               ? r.choice(type_node, key + ".type", {"ricker", "file"})
                               : (DeckReader::given(file) ? "file" : "ricker");
  ForwardProblem& p = deck.problem;
  p.peak_frequency = r.positive(
      r.required(w, key, "peak_frequency", "Hz; also sets the CPML and dispersion figures"),
      key + ".peak_frequency");
  const Node amplitude_node = r.child(w, key, "amplitude");
  const double amplitude =
      DeckReader::given(amplitude_node) ? r.number(amplitude_node, key + ".amplitude") : 1.0;
  if (amplitude == 0.0) r.fail(key + ".amplitude", amplitude_node, "amplitude must not be 0");
  resolved["type"] = type;
  resolved["peak_frequency"] = yaml_number(p.peak_frequency);

  if (type == "ricker") {
    if (DeckReader::given(file)) {
      r.fail(key + ".file", file, "applies to wavelet.type: file only (the type here is ricker)");
    }
    const Node delay_node = r.child(w, key, "delay");
    const double delay = DeckReader::given(delay_node) ? r.non_negative(delay_node, key + ".delay")
                                                       : 1.5 / p.peak_frequency;
    p.wavelet = ricker(p.peak_frequency, delay, p.dt, p.nt, amplitude);
    if (delay > (p.nt - 1) * p.dt) {
      deck.warnings.push_back("wavelet.delay: the wavelet peaks at " + number_text(delay) +
                              " s, after the last time step (" + number_text((p.nt - 1) * p.dt) +
                              " s)");
    }
    resolved["delay"] = yaml_number(delay);
  } else {
    const Node delay_node = r.child(w, key, "delay");
    if (DeckReader::given(delay_node)) {
      r.fail(key + ".delay", delay_node,
             "applies to wavelet.type: ricker only (shift the samples in the file instead)");
    }
    const Node required_file =
        r.required(w, key, "file", "path of a .npy file of nt samples, or [shots, nt]");
    read_wavelet_file(r, required_file, p.nt, p);
    for (double& s : p.wavelet) s *= amplitude;
    for (std::vector<double>& row : p.shot_wavelets) {
      for (double& s : row) s *= amplitude;
    }
    fs::path path(r.text(required_file, key + ".file"));
    if (path.is_relative()) path = fs::path(r.deck_dir()) / path;
    std::error_code ec;
    resolved["file"] = fs::absolute(path.lexically_normal(), ec).string();
  }
  resolved["amplitude"] = yaml_number(amplitude);
  read_wavelet_estimate(r, root, w, deck, resolved);
}

void check_wavelet_shots(const DeckReader& r, const Node& root, const Deck& deck) {
  const ForwardProblem& p = deck.problem;
  if (p.shot_wavelets.empty() || p.shot_wavelets.size() == p.shots.size()) return;
  const Node file = r.child(r.child(root, "", "wavelet"), "wavelet", "file");
  r.fail("wavelet.file", file,
         "'" + r.text(file, "wavelet.file") + "' holds " + std::to_string(p.shot_wavelets.size()) +
             " wavelets ([shots, nt] rows) but the acquisition has " +
             std::to_string(p.shots.size()) + " shots; give one row per shot, or a 1D array of " +
             std::to_string(p.nt) + " samples shared by every shot");
}

void read_physics(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  const Node physics = r.child(root, "", "physics");
  if (DeckReader::given(physics)) r.check_keys(physics, "physics");
  const Node equation = r.child(physics, "physics", "equation");
  if (DeckReader::given(equation)) {
    const std::string name = r.choice(equation, "physics.equation", physics::equation_names());
    physics::parse_equation(name, deck.problem.equation);
  }
  resolved["equation"] = physics::name(deck.problem.equation);
  const Node order = r.child(physics, "physics", "order");
  if (DeckReader::given(order)) {
    deck.problem.order = r.integer(order, "physics.order", 1);
    if (!physics::is_supported_order(deck.problem.order)) {
      r.fail("physics.order", order, "order must be 2, 4, 6 or 8, got " + order.Scalar());
    }
  } else {
    deck.problem.order = 8;
  }
  resolved["order"] = deck.problem.order;
}

void read_boundary(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  const std::string key = "boundary";
  const Node b = r.child(root, "", key);
  if (DeckReader::given(b)) r.check_keys(b, key);
  BoundaryConfig& cfg = deck.problem.boundary;
  const Node type_node = r.child(b, key, "type");
  const std::string type =
      DeckReader::given(type_node) ? r.choice(type_node, key + ".type", {"cpml", "none"}) : "cpml";
  const Node fs_node = r.child(b, key, "free_surface");
  cfg.free_surface = DeckReader::given(fs_node) && r.boolean(fs_node, key + ".free_surface");

  // front and back are the y sides of a 3D model; a 2D model has four sides.
  const char* sides[num_sides] = {"top", "bottom", "left", "right", "front", "back"};
  const bool three_d = deck.problem.model.grid.is_3d();
  const int used_sides = three_d ? 6 : 4;
  const Node width = r.child(b, key, "width");
  bool top_given = false;
  if (DeckReader::given(width) && width.IsMap()) {
    r.check_keys(width, key + ".width");
    for (int s = used_sides; s < num_sides; ++s) {
      const Node side = r.child(width, key + ".width", sides[s]);
      if (DeckReader::given(side)) {
        r.fail(key + ".width." + sides[s], side,
               "applies to 3D models only (front and back are the y sides; model.shape has two "
               "entries, [nz, nx])");
      }
    }
    for (int s = 0; s < num_sides; ++s) {
      const Node side = r.child(width, key + ".width", sides[s]);
      top_given = top_given || (s == top && DeckReader::given(side));
      cfg.width[s] = DeckReader::given(side)
                         ? r.integer(side, key + ".width." + sides[s], 0)
                         : (s == top && cfg.free_surface ? 0 : default_cpml_width);
    }
  } else {
    const int w = DeckReader::given(width) ? r.integer(width, key + ".width", 0)
                                           : (type == "none" ? 0 : default_cpml_width);
    for (int& side : cfg.width) side = w;
  }
  if (type == "none") {
    for (int s = 0; s < used_sides; ++s) {
      if (cfg.width[s] != 0) {
        r.fail(key + ".width", width, "must be 0 (or left out) when boundary.type is none");
      }
    }
  }
  if (cfg.free_surface && cfg.width[top] != 0) {
    if (top_given) {
      r.fail(key + ".width.top", r.child(width, key + ".width", "top"),
             "must be 0 when boundary.free_surface is true (the free surface replaces the "
             "absorbing layer at the top)");
    }
    deck.warnings.push_back(
        "boundary.free_surface is true: the top CPML width is set to 0 (the "
        "other sides keep " +
        std::to_string(cfg.width[bottom]) + ")");
    cfg.width[top] = 0;
  }
  const Node reflection = r.child(b, key, "reflection");
  if (DeckReader::given(reflection)) {
    cfg.reflection = r.positive(reflection, key + ".reflection");
    if (cfg.reflection >= 1.0) {
      r.fail(key + ".reflection", reflection,
             "expected a reflection coefficient between 0 and 1 (e.g. 1e-8), got " +
                 DeckReader::describe(reflection));
    }
  }
  const Node pml_f = r.child(b, key, "pml_frequency");
  if (DeckReader::given(pml_f)) cfg.pml_frequency = r.non_negative(pml_f, key + ".pml_frequency");
  const Node pml_v = r.child(b, key, "pml_velocity");
  if (DeckReader::given(pml_v)) cfg.pml_velocity = r.non_negative(pml_v, key + ".pml_velocity");

  resolved["type"] = type;
  Node widths(YAML::NodeType::Map);
  for (int s = 0; s < used_sides; ++s) widths[sides[s]] = cfg.width[s];
  widths.SetStyle(YAML::EmitterStyle::Flow);
  resolved["width"] = widths;
  resolved["free_surface"] = cfg.free_surface;
  resolved["reflection"] = yaml_number(cfg.reflection);
  resolved["pml_frequency"] = yaml_number(cfg.pml_frequency);
  resolved["pml_velocity"] = yaml_number(cfg.pml_velocity);
}

void read_output(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  const Node out = r.child(root, "", "output");
  if (DeckReader::given(out)) r.check_keys(out, "output");
  const Node dir = r.child(out, "output", "directory");
  deck.output.directory = DeckReader::given(dir) ? r.text(dir, "output.directory") : "out";
  const Node segy = r.child(out, "output", "segy");
  deck.output.segy = DeckReader::given(segy) && r.boolean(segy, "output.segy");
  const Node plots = r.child(out, "output", "plots");
  deck.output.plots = !DeckReader::given(plots) || r.boolean(plots, "output.plots");
  resolved["directory"] = deck.output.directory;
  resolved["segy"] = deck.output.segy;
  resolved["plots"] = deck.output.plots;
}

void read_execution(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  const Node ex = r.child(root, "", "execution");
  if (DeckReader::given(ex)) r.check_keys(ex, "execution");
  const ForwardProblem defaults;  // each key not given keeps ForwardProblem's default
  const Node batch = r.child(ex, "execution", "shot_batch");
  deck.problem.shot_batch =
      DeckReader::given(batch) ? r.integer(batch, "execution.shot_batch", 0) : defaults.shot_batch;
  const Node check = r.child(ex, "execution", "check_interval");
  deck.problem.check_interval = DeckReader::given(check)
                                    ? r.integer(check, "execution.check_interval", 1)
                                    : defaults.check_interval;
  const Node interior = r.child(ex, "execution", "interior_3d");
  const std::string launch = DeckReader::given(interior)
                                 ? r.choice(interior, "execution.interior_3d", {"cells", "z_march"})
                                 : "cells";
  deck.problem.interior_3d = launch == "z_march" ? Interior3D::z_march : Interior3D::cells;
  const Node wavefront = r.child(ex, "execution", "wavefront_steps");
  deck.problem.wavefront_steps = DeckReader::given(wavefront)
                                     ? r.integer(wavefront, "execution.wavefront_steps", 1)
                                     : defaults.wavefront_steps;
  resolved["shot_batch"] = deck.problem.shot_batch;
  resolved["check_interval"] = deck.problem.check_interval;
  resolved["interior_3d"] = launch;
  resolved["wavefront_steps"] = deck.problem.wavefront_steps;
}

}  // namespace pwave::io
