#include "pwave/io/deck_acquisition.hpp"

#include <algorithm>
#include <cmath>

#include "pwave/acquisition/hicks.hpp"
#include "pwave/core/error.hpp"

namespace pwave::io {
namespace {

// A range longer than this is almost certainly a typo (and would exhaust memory).
constexpr int max_range_count = 1000000;

/// One coordinate (x, y or z) of sources or receivers, as written.
struct Axis {
  std::string key;
  YAML::Node node;
  bool scalar = false;    ///< a single number, broadcast to the other coordinates' length
  bool per_shot = false;  ///< a list of lists, one per shot
  bool absent = false;    ///< y not given: 0 (a single number without a key)
  std::vector<std::vector<double>> lists;
  std::vector<std::vector<std::string>> keys;
  std::vector<std::vector<YAML::Node>> nodes;

  void add_list() {
    lists.emplace_back();
    keys.emplace_back();
    nodes.emplace_back();
  }
  void push(double v, const std::string& k, const YAML::Node& n) {
    lists.back().push_back(v);
    keys.back().push_back(k);
    nodes.back().push_back(n);
  }
  /// The key and node of list `i` (the whole axis unless given per shot).
  std::string list_key(std::size_t i) const;
  YAML::Node list_node(std::size_t i) const { return per_shot ? node[i] : node; }
};

std::string indexed(const std::string& key, std::size_t i) {
  return key + "[" + std::to_string(i) + "]";
}

std::string Axis::list_key(std::size_t i) const {
  return per_shot ? indexed(key, i) : key;
}

void read_range(const DeckReader& r, const YAML::Node& node, const std::string& key, Axis& axis) {
  r.check_keys(node, key);
  const double start =
      r.number(r.required(node, key, "start", "first coordinate in metres"), key + ".start");
  const int count =
      r.integer(r.required(node, key, "count", "number of coordinates"), key + ".count", 1);
  const YAML::Node step_node = r.required(node, key, "step", "metres between coordinates");
  const double step = r.number(step_node, key + ".step");
  if (count > max_range_count) {
    r.fail(key + ".count", r.child(node, key, "count"),
           "count " + std::to_string(count) + " is larger than " + std::to_string(max_range_count));
  }
  if (step == 0.0 && count > 1) r.fail(key + ".step", step_node, "step must not be 0");
  for (int i = 0; i < count; ++i) axis.push(start + i * step, indexed(key, i), node);
}

// A list of numbers or a {start, step, count} range, appended as one list of `axis`.
void read_flat(const DeckReader& r, const YAML::Node& node, const std::string& key, Axis& axis) {
  axis.add_list();
  if (node.IsMap()) {
    read_range(r, node, key, axis);
    return;
  }
  if (!node.IsSequence()) {
    r.fail(key, node,
           "expected a list of numbers or {start, step, count}, got " + DeckReader::describe(node));
  }
  if (node.size() == 0) r.fail(key, node, "the list is empty");
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node element = node[i];
    axis.push(r.number(element, indexed(key, i)), indexed(key, i), element);
  }
}

Axis read_axis(const DeckReader& r, const YAML::Node& parent, const std::string& parent_key,
               const std::string& name, bool allow_per_shot) {
  Axis axis;
  axis.key = parent_key + "." + name;
  axis.node =
      r.required(parent, parent_key, name, "metres: a number, a list, or {start, step, count}");
  const YAML::Node& node = axis.node;
  if (node.IsScalar()) {
    axis.scalar = true;
    axis.add_list();
    axis.push(r.number(node, axis.key), axis.key, node);
    return axis;
  }
  bool nested = false, flat = false;
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      const bool is_list = node[i].IsSequence() || node[i].IsMap();
      nested = nested || is_list;
      flat = flat || !is_list;
    }
  }
  if (!nested) {
    read_flat(r, node, axis.key, axis);
    return axis;
  }
  if (!allow_per_shot) {
    r.fail(axis.key, node,
           "expected a number, a list of numbers or {start, step, count}; one list per shot is "
           "allowed for receivers only");
  }
  if (flat) {
    r.fail(axis.key, node,
           "the list mixes numbers and lists: give one list of numbers, or one list per shot");
  }
  axis.per_shot = true;
  for (std::size_t s = 0; s < node.size(); ++s) read_flat(r, node[s], indexed(axis.key, s), axis);
  return axis;
}

// y: optional (0 when left out) and for 3D models only.
Axis read_y_axis(const DeckReader& r, const YAML::Node& parent, const std::string& parent_key,
                 bool allow_per_shot, bool three_d) {
  const YAML::Node node = r.child(parent, parent_key, "y");
  if (!DeckReader::given(node)) {
    Axis axis;
    axis.key = parent_key + ".y";
    axis.scalar = axis.absent = true;
    axis.add_list();
    axis.push(0.0, "", YAML::Node());
    return axis;
  }
  if (!three_d) {
    r.fail(parent_key + ".y", node,
           "applies to 3D models only (model.shape has two entries, [nz, nx]); remove it, or "
           "give model.shape: [nz, ny, nx]");
  }
  return read_axis(r, parent, parent_key, "y", allow_per_shot);
}

// Says that list `i` of `a` and list `j` of `b` have different lengths. Points at the list
// given with --set if one was: that is the one the user just changed.
[[noreturn]] void fail_lengths(const DeckReader& r, const Axis& a, std::size_t i, const Axis& b,
                               std::size_t j) {
  const std::string key_a = a.list_key(i), key_b = b.list_key(j);
  const YAML::Node node_a = a.list_node(i), node_b = b.list_node(j);
  const std::size_t na = a.lists[i].size(), nb = b.lists[j].size();
  const bool b_set = r.where(key_b, node_b) == "--set" && r.where(key_a, node_a) != "--set";
  r.fail(b_set ? key_b : key_a, b_set ? node_b : node_a,
         "has " + std::to_string(b_set ? nb : na) + " values but " + (b_set ? key_a : key_b) +
             " has " + std::to_string(b_set ? na : nb) +
             "; give both the same length, or one of them as a single number");
}

// The points of list `ix` of x, `iy` of y and `iz` of z. A single number is broadcast. x and y
// lists of different lengths make a carpet (y outer, x inner); lists of equal lengths pair
// element-wise. z then pairs with those points (or is broadcast).
std::vector<DeckPoint> combine(const DeckReader& r, const Axis& x, std::size_t ix, const Axis& y,
                               std::size_t iy, const Axis& z, std::size_t iz) {
  const std::vector<double>& xs = x.lists[ix];
  const std::vector<double>& ys = y.lists[iy];
  const std::vector<double>& zs = z.lists[iz];
  // Horizontal points as (x index, y index).
  std::vector<std::pair<std::size_t, std::size_t>> h;
  bool carpet = false;
  if (x.scalar && y.scalar) {
    h.emplace_back(0, 0);
  } else if (x.scalar || y.scalar || xs.size() == ys.size()) {
    const std::size_t n = x.scalar ? ys.size() : xs.size();
    for (std::size_t i = 0; i < n; ++i) h.emplace_back(x.scalar ? 0 : i, y.scalar ? 0 : i);
  } else {
    carpet = true;
    for (std::size_t j = 0; j < ys.size(); ++j) {
      for (std::size_t i = 0; i < xs.size(); ++i) h.emplace_back(i, j);
    }
  }
  const bool h_scalar = x.scalar && y.scalar;
  std::size_t n = h.size();
  if (h_scalar) {
    n = zs.size();
  } else if (!z.scalar && zs.size() != h.size()) {
    if (!carpet) {
      // The horizontal list that z disagrees with: x, unless x is a single number.
      if (x.scalar) fail_lengths(r, y, iy, z, iz);
      fail_lengths(r, x, ix, z, iz);
    }
    r.fail(z.list_key(iz), z.list_node(iz),
           "has " + std::to_string(zs.size()) + " values but the carpet of " + x.list_key(ix) +
               " (" + std::to_string(xs.size()) + " values) by " + y.list_key(iy) + " (" +
               std::to_string(ys.size()) + " values) has " + std::to_string(h.size()) +
               " points; give z as a single number or one value per point (y outer, x inner)");
  }
  std::vector<DeckPoint> points(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto [jx, jy] = h_scalar ? std::pair<std::size_t, std::size_t>{0, 0} : h[i];
    const std::size_t jz = z.scalar ? 0 : i;
    DeckPoint& p = points[i];
    p.position = Position{xs[jx], zs[jz], ys[jy]};
    p.key_x = x.keys[ix][jx];
    p.node_x = x.nodes[ix][jx];
    p.key_y = y.keys[iy][jy];
    p.node_y = y.nodes[iy][jy];
    p.key_z = z.keys[iz][jz];
    p.node_z = z.nodes[iz][jz];
  }
  return points;
}

bool inside_axis(double v, double h, int n) {
  return std::isfinite(v) && v >= -1e-6 * h && v <= (n - 1) * h * (1 + 1e-12) + 1e-6 * h;
}

void check_point(const DeckReader& r, const Grid& grid, const DeckPoint& p) {
  try {
    check_inside(grid, p.position, p.key_x);
  } catch (const InputError& e) {
    // Name the coordinate that is wrong, so the line points at the number to fix.
    const bool x_ok = inside_axis(p.position.x, grid.dx, grid.nx);
    const bool y_ok = !grid.is_3d() || inside_axis(p.position.y, grid.dy, grid.ny);
    const std::string& key = !x_ok ? p.key_x : !y_ok ? p.key_y : p.key_z;
    const YAML::Node& node = !x_ok ? p.node_x : !y_ok ? p.node_y : p.node_z;
    r.fail(key, node, bare_message(e.what(), e.key(), e.where()));
  }
}

void read_outside(const DeckReader& r, const YAML::Node& receivers, DeckAcquisition& acq) {
  const std::string rkey = "acquisition.receivers";
  const YAML::Node outside = r.child(receivers, rkey, "outside");
  if (DeckReader::given(outside)) {
    acq.drop_outside = r.choice(outside, rkey + ".outside", {"refuse", "drop"}) == "drop";
  }
}

void read_hicks_half_width(const DeckReader& r, const YAML::Node& acquisition,
                           DeckAcquisition& acq) {
  const YAML::Node hw = r.child(acquisition, "acquisition", "hicks_half_width");
  if (DeckReader::given(hw)) {
    const std::string hkey = "acquisition.hicks_half_width";
    acq.hicks_half_width = r.integer(hw, hkey, hicks_min_half_width);
    if (acq.hicks_half_width > hicks_max_half_width) {
      r.fail(hkey, hw,
             "must be at most " + std::to_string(hicks_max_half_width) +
                 " (the widest Kaiser window of Hicks's table)");
    }
  }
}

// sources.type and receivers.components (either map may be undefined): their names only;
// whether the equation has them is check_components's.
void read_kinds(const DeckReader& r, const YAML::Node& sources, const YAML::Node& receivers,
                DeckAcquisition& acq) {
  const YAML::Node type = r.child(sources, "acquisition.sources", "type");
  if (DeckReader::given(type)) {
    parse_source_type(
        r.choice(type, "acquisition.sources.type", {"pressure", "force_x", "force_y", "force_z"}),
        acq.source_type);
    acq.source_type_node = type;
  }
  const std::string key = "acquisition.receivers.components";
  const YAML::Node list = r.child(receivers, "acquisition.receivers", "components");
  if (!DeckReader::given(list)) return;
  const std::vector<std::string> names = {"p", "vx", "vy", "vz"};
  acq.components.clear();
  if (!list.IsSequence()) {
    acq.components.emplace_back();
    parse_component(r.choice(list, key, names), acq.components.back());
    acq.component_nodes.push_back(list);
    return;
  }
  if (list.size() == 0) {
    r.fail(key, list, "expected a component or a non-empty list of them (p, vx, vy, vz)");
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string item = key + "[" + std::to_string(i) + "]";
    Component c{};
    parse_component(r.choice(list[i], item, names), c);
    for (Component q : acq.components) {
      if (q == c) r.fail(item, list[i], std::string("'") + name(c) + "' is listed twice");
    }
    acq.components.push_back(c);
    acq.component_nodes.push_back(list[i]);
  }
}

}  // namespace

void check_components(const DeckReader& r, const DeckAcquisition& acq, ForwardProblem& problem) {
  const bool elastic = problem.equation == physics::Equation::elastic;
  const bool three_d = problem.model.grid.is_3d();
  if (acq.source_type != SourceType::pressure && !elastic) {
    r.fail("acquisition.sources.type", acq.source_type_node,
           std::string(name(acq.source_type)) +
               " is a point force, which the elastic equation has (physics.equation: elastic); "
               "the equation " +
               physics::name(problem.equation) +
               " injects pressure only: set sources.type: pressure or physics.equation: elastic");
  }
  for (std::size_t i = 0; i < acq.components.size(); ++i) {
    const Component c = acq.components[i];
    const std::string item = "acquisition.receivers.components" +
                             (acq.components.size() > 1 ? "[" + std::to_string(i) + "]" : "");
    if (c != Component::pressure && !elastic) {
      r.fail(item, acq.component_nodes[i],
             std::string(name(c)) +
                 " is a particle velocity, which the elastic equation records (physics.equation: "
                 "elastic); the equation " +
                 physics::name(problem.equation) +
                 " records the pressure p only: set receivers.components: p or physics.equation: "
                 "elastic");
    }
    if (c == Component::vy && !three_d) {
      r.fail(item, acq.component_nodes[i],
             "vy (along y) needs a 3D model (model.shape has two entries, [nz, nx]); a 2D model "
             "records p, vx or vz");
    }
  }
  if (acq.source_type == SourceType::force_y && !three_d) {
    r.fail("acquisition.sources.type", acq.source_type_node,
           "force_y (along y) needs a 3D model (model.shape has two entries, [nz, nx]); a 2D "
           "model takes pressure, force_x or force_z");
  }
  if (acq.from_observed && acq.components.size() > 1) {
    r.fail("acquisition.receivers.components", acq.component_nodes[1],
           "with acquisition.from: observed each trace of the file is one receiver: give one "
           "component (several components: list the receivers in the deck)");
  }
  problem.source_type = acq.source_type;
  if (acq.components.size() == 1 && acq.components[0] == Component::pressure) return;
  // Each shot's receivers once per component, component after component.
  for (ShotGeometry& shot : problem.shots) {
    const std::vector<Position> positions = shot.receivers;
    shot.receivers.clear();
    shot.components.clear();
    for (Component c : acq.components) {
      for (const Position& p : positions) {
        shot.receivers.push_back(p);
        shot.components.push_back(c);
      }
    }
  }
}

DeckAcquisition read_acquisition(const DeckReader& r, const YAML::Node& acquisition, bool three_d) {
  const std::string key = "acquisition";
  r.check_keys(acquisition, key);
  DeckAcquisition acq;
  read_hicks_half_width(r, acquisition, acq);
  const std::string rkey = key + ".receivers";
  const YAML::Node from = r.child(acquisition, key, "from");
  if (DeckReader::given(from)) {
    r.choice(from, key + ".from", {"observed"});
    acq.from_observed = true;
    const std::string skey = key + ".sources";
    const YAML::Node sources = r.child(acquisition, key, "sources");
    if (DeckReader::given(sources)) {
      bool positions = !sources.IsMap();
      if (!positions) {
        r.check_keys(sources, skey);
        for (const char* name : {"x", "y", "z"}) {
          positions = positions || DeckReader::given(r.child(sources, skey, name));
        }
      }
      if (positions) {
        r.fail(skey, sources,
               "the positions come from the observed file's trace headers (acquisition.from: "
               "observed): remove acquisition.sources (only sources.type may be given)");
      }
    }
    const YAML::Node receivers = r.child(acquisition, key, "receivers");
    if (DeckReader::given(receivers)) {
      r.check_keys(receivers, rkey);
      for (const char* name : {"x", "y", "z", "relative_to_source"}) {
        const YAML::Node n = r.child(receivers, rkey, name);
        if (DeckReader::given(n)) {
          r.fail(rkey + "." + name, n,
                 "the positions come from the observed file's trace headers (acquisition.from: "
                 "observed): only receivers.outside and receivers.components may be given");
        }
      }
      read_outside(r, receivers, acq);
    }
    read_kinds(r, sources, receivers, acq);
    return acq;
  }

  const std::string skey = key + ".sources";
  const YAML::Node sources =
      r.required(acquisition, key, "sources",
                 three_d ? "{x: [...], y: [...], z: [...]}" : "{x: [...], z: [...]}");
  r.check_keys(sources, skey);
  const Axis sx = read_axis(r, sources, skey, "x", false);
  const Axis sy = read_y_axis(r, sources, skey, false, three_d);
  const Axis sz = read_axis(r, sources, skey, "z", false);
  acq.sources = combine(r, sx, 0, sy, 0, sz, 0);
  const std::size_t nshots = acq.sources.size();

  const YAML::Node receivers =
      r.required(acquisition, key, "receivers",
                 three_d ? "{x: [...], y: [...], z: [...]}" : "{x: [...], z: [...]}");
  r.check_keys(receivers, rkey);
  const Axis rx = read_axis(r, receivers, rkey, "x", true);
  const Axis ry = read_y_axis(r, receivers, rkey, true, three_d);
  const Axis rz = read_axis(r, receivers, rkey, "z", true);
  for (const Axis* a : {&rx, &ry, &rz}) {
    if (a->per_shot && a->lists.size() != nshots) {
      r.fail(a->key, a->node,
             "has " + std::to_string(a->lists.size()) + " per-shot lists but there are " +
                 std::to_string(nshots) + " shots (one per source)");
    }
  }
  acq.shared_receivers = !rx.per_shot && !ry.per_shot && !rz.per_shot;
  const std::size_t groups = acq.shared_receivers ? 1 : nshots;
  for (std::size_t s = 0; s < groups; ++s) {
    acq.receivers.push_back(
        combine(r, rx, rx.per_shot ? s : 0, ry, ry.per_shot ? s : 0, rz, rz.per_shot ? s : 0));
  }
  if (acq.shared_receivers) acq.receivers.resize(nshots, acq.receivers.front());
  const YAML::Node relative = r.child(receivers, rkey, "relative_to_source");
  if (DeckReader::given(relative) && r.boolean(relative, rkey + ".relative_to_source")) {
    // x (and y) are offsets from each shot's source: the spread moves with the source.
    for (std::size_t s = 0; s < nshots; ++s) {
      for (DeckPoint& p : acq.receivers[s]) {
        p.position.x += acq.sources[s].position.x;
        p.position.y += acq.sources[s].position.y;
      }
    }
    acq.shared_receivers = nshots == 1;
  }
  read_outside(r, receivers, acq);
  read_kinds(r, sources, receivers, acq);
  return acq;
}

std::vector<ShotGeometry> place_acquisition(const DeckReader& r, DeckAcquisition& acq,
                                            const Grid& grid, std::vector<std::string>& warnings) {
  std::vector<ShotGeometry> shots(acq.sources.size());
  std::size_t dropped = 0, dropped_shots = 0;
  for (std::size_t s = 0; s < shots.size(); ++s) {
    check_point(r, grid, acq.sources[s]);
    shots[s].source = acq.sources[s].position;
    std::vector<DeckPoint>& receivers = acq.receivers[s];
    if (acq.drop_outside) {
      const auto outside = [&](const DeckPoint& p) {
        try {
          check_inside(grid, p.position, p.key_x);
          return false;
        } catch (const InputError&) {
          return true;
        }
      };
      const std::size_t before = receivers.size();
      receivers.erase(std::remove_if(receivers.begin(), receivers.end(), outside), receivers.end());
      dropped += before - receivers.size();
      dropped_shots += before != receivers.size();
      if (receivers.empty()) {
        const DeckPoint& src = acq.sources[s];
        r.fail(src.key_x, src.node_x,
               "shot " + std::to_string(s) + " (source at x = " + number_text(src.position.x) +
                   " m) has no receiver inside the model (acquisition.receivers.outside: drop "
                   "left out all " +
                   std::to_string(before) + "); remove the shot or move its receivers");
      }
    }
    // Shared receivers are checked once: the same list repeats for every shot.
    const bool check = !acq.shared_receivers || s == 0;
    for (const DeckPoint& p : receivers) {
      if (check) check_point(r, grid, p);
      shots[s].receivers.push_back(p.position);
    }
  }
  if (dropped > 0) {
    acq.shared_receivers = false;
    warnings.push_back("acquisition.receivers: " + std::to_string(dropped) +
                       " receiver positions outside the model left out (outside: drop), in " +
                       std::to_string(dropped_shots) + " of " + std::to_string(shots.size()) +
                       " shots");
  }
  return shots;
}

}  // namespace pwave::io
