#include "pwave/io/deck_inversion.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "pwave/core/error.hpp"
#include "pwave/physics/stability.hpp"
#include "pwave/propagation/forward.hpp"

namespace pwave::io {
namespace {

using Node = YAML::Node;
constexpr int default_iterations = 10;

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

}  // namespace

void read_inversion_section(const DeckReader& r, const Node& root, Deck& deck, Node& resolved) {
  const std::string key = "inversion";
  const Node inv = r.child(root, "", key);
  if (!DeckReader::given(inv)) {
    r.fail(key, DeckReader::key_node(root, "task"),
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

}  // namespace pwave::io
