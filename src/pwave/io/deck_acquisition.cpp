#include "pwave/io/deck_acquisition.hpp"

#include <cmath>

#include "pwave/core/error.hpp"

namespace pwave::io {
namespace {

// A range longer than this is almost certainly a typo (and would exhaust memory).
constexpr int max_range_count = 1000000;

/// One coordinate (x or z) of sources or receivers, as written.
struct Axis {
  std::string key;
  YAML::Node node;
  bool scalar = false;    ///< a single number, broadcast to the other coordinate's length
  bool per_shot = false;  ///< a list of lists, one per shot
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
};

std::string indexed(const std::string& key, std::size_t i) {
  return key + "[" + std::to_string(i) + "]";
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

// Pairs list `ix` of x with list `iz` of z, broadcasting a single number.
std::vector<DeckPoint> combine(const DeckReader& r, const Axis& x, std::size_t ix, const Axis& z,
                               std::size_t iz) {
  const std::size_t nx = x.lists[ix].size(), nz = z.lists[iz].size();
  std::size_t n = nx;
  if (x.scalar) {
    n = nz;
  } else if (!z.scalar && nx != nz) {
    const std::string key_x = x.per_shot ? indexed(x.key, ix) : x.key;
    const std::string key_z = z.per_shot ? indexed(z.key, iz) : z.key;
    const YAML::Node node_x = x.per_shot ? x.node[ix] : x.node;
    const YAML::Node node_z = z.per_shot ? z.node[iz] : z.node;
    // Point at the list given with --set if one was: that is the one the user just changed.
    const bool z_set = r.where(key_z, node_z) == "--set" && r.where(key_x, node_x) != "--set";
    r.fail(z_set ? key_z : key_x, z_set ? node_z : node_x,
           "has " + std::to_string(z_set ? nz : nx) + " values but " + (z_set ? key_x : key_z) +
               " has " + std::to_string(z_set ? nx : nz) +
               "; give both the same length, or one of them as a single number");
  }
  std::vector<DeckPoint> points(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t jx = x.scalar ? 0 : i, jz = z.scalar ? 0 : i;
    points[i].position = Position{x.lists[ix][jx], z.lists[iz][jz]};
    points[i].key_x = x.keys[ix][jx];
    points[i].node_x = x.nodes[ix][jx];
    points[i].key_z = z.keys[iz][jz];
    points[i].node_z = z.nodes[iz][jz];
  }
  return points;
}

bool on_axis(double v, double h, int n) {
  const double f = v / h;
  const double rounded = std::round(f);
  return std::isfinite(f) && rounded >= 0 && rounded <= n - 1 && std::abs(f - rounded) <= 1e-6;
}

GridIndex check_point(const DeckReader& r, const Grid2D& grid, const DeckPoint& p) {
  try {
    return to_grid_index(grid, p.position, p.key_x);
  } catch (const InputError& e) {
    // Name the coordinate that is wrong, so the line points at the number to fix.
    const bool x_ok = on_axis(p.position.x, grid.dx, grid.nx);
    r.fail(x_ok ? p.key_z : p.key_x, x_ok ? p.node_z : p.node_x,
           bare_message(e.what(), e.key(), e.where()));
  }
}

}  // namespace

DeckAcquisition read_acquisition(const DeckReader& r, const YAML::Node& acquisition) {
  const std::string key = "acquisition";
  r.check_keys(acquisition, key);
  DeckAcquisition acq;

  const std::string skey = key + ".sources";
  const YAML::Node sources = r.required(acquisition, key, "sources", "{x: [...], z: [...]}");
  r.check_keys(sources, skey);
  const Axis sx = read_axis(r, sources, skey, "x", false);
  const Axis sz = read_axis(r, sources, skey, "z", false);
  acq.sources = combine(r, sx, 0, sz, 0);
  const std::size_t nshots = acq.sources.size();

  const std::string rkey = key + ".receivers";
  const YAML::Node receivers = r.required(acquisition, key, "receivers", "{x: [...], z: [...]}");
  r.check_keys(receivers, rkey);
  const Axis rx = read_axis(r, receivers, rkey, "x", true);
  const Axis rz = read_axis(r, receivers, rkey, "z", true);
  for (const Axis* a : {&rx, &rz}) {
    if (a->per_shot && a->lists.size() != nshots) {
      r.fail(a->key, a->node,
             "has " + std::to_string(a->lists.size()) + " per-shot lists but there are " +
                 std::to_string(nshots) + " shots (one per source)");
    }
  }
  acq.shared_receivers = !rx.per_shot && !rz.per_shot;
  const std::size_t groups = acq.shared_receivers ? 1 : nshots;
  for (std::size_t s = 0; s < groups; ++s) {
    acq.receivers.push_back(combine(r, rx, rx.per_shot ? s : 0, rz, rz.per_shot ? s : 0));
    const std::size_t n = acq.receivers.back().size(), n0 = acq.receivers.front().size();
    if (n != n0) {
      const Axis& a = rx.per_shot ? rx : rz;
      r.fail(indexed(a.key, s), a.node[s],
             "shot " + std::to_string(s) + " has " + std::to_string(n) +
                 " receivers but shot 0 has " + std::to_string(n0) +
                 "; every shot needs the same number of receivers");
    }
  }
  if (acq.shared_receivers) acq.receivers.resize(nshots, acq.receivers.front());
  return acq;
}

std::vector<ShotGeometry> place_acquisition(const DeckReader& r, const DeckAcquisition& acq,
                                            const Grid2D& grid) {
  std::vector<ShotGeometry> shots(acq.sources.size());
  for (std::size_t s = 0; s < shots.size(); ++s) {
    check_point(r, grid, acq.sources[s]);
    shots[s].source = acq.sources[s].position;
    // Shared receivers are checked once: the same list repeats for every shot.
    const bool check = !acq.shared_receivers || s == 0;
    for (const DeckPoint& p : acq.receivers[s]) {
      if (check) check_point(r, grid, p);
      shots[s].receivers.push_back(p.position);
    }
  }
  return shots;
}

}  // namespace pwave::io
