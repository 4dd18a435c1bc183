#include "pwave/io/deck_selection.hpp"

#include <cmath>
#include <string>

#include "pwave/core/error.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::io {
namespace {

using Node = YAML::Node;
const std::string key = "gradient.selection";

/// A [shot, receiver] .npy of finite values (`non_negative`: also >= 0) named by `k`.
std::vector<double> read_trace_table(const DeckReader& r, const Node& file, const std::string& k,
                                     std::size_t shots, std::size_t receivers, bool non_negative) {
  const std::string name = r.text(file, k);
  const NpyArray array = read_deck_npy(r, file, k);
  if (array.shape.size() != 2 || array.shape[0] != shots || array.shape[1] != receivers) {
    std::string shape;
    for (std::size_t s : array.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(s);
    r.fail(k, file,
           "'" + name + "' has shape (" + shape + ") but the acquisition needs (" +
               std::to_string(shots) + ", " + std::to_string(receivers) + ") [shot, receiver]");
  }
  for (std::size_t i = 0; i < array.data.size(); ++i) {
    if (!std::isfinite(array.data[i]) || (non_negative && array.data[i] < 0)) {
      r.fail(k, file,
             "'" + name + "' [shot " + std::to_string(i / receivers) + ", receiver " +
                 std::to_string(i % receivers) + "] is " + number_text(array.data[i]) +
                 (non_negative ? "; weights must be finite and >= 0"
                               : "; times must be finite (negative: no pick)"));
    }
  }
  return array.data;
}

}  // namespace

void read_selection(const DeckReader& r, const Node& selection, Deck& deck, Node& resolved) {
  misfit::Selection& s = deck.misfit.selection;
  s = misfit::Selection();
  const bool given = DeckReader::given(selection);
  if (given) r.check_keys(selection, key);
  Node out(YAML::NodeType::Map);

  const Node offsets = given ? r.child(selection, key, "offsets") : Node();
  if (DeckReader::given(offsets)) {
    if (!offsets.IsSequence() || offsets.size() != 2) {
      r.fail(key + ".offsets", offsets,
             "expected [min, max] in metres, got " + DeckReader::describe(offsets));
    }
    s.offset_min = r.non_negative(offsets[0], key + ".offsets[0]");
    s.offset_max = r.positive(offsets[1], key + ".offsets[1]");
    if (s.offset_max < s.offset_min) {
      r.fail(key + ".offsets", offsets, "max is below min");
    }
    Node o(YAML::NodeType::Sequence);
    o.push_back(s.offset_min);
    o.push_back(s.offset_max);
    o.SetStyle(YAML::EmitterStyle::Flow);
    out["offsets"] = o;
  }

  const std::string wkey = key + ".window";
  const Node window = given ? r.child(selection, key, "window") : Node();
  if (DeckReader::given(window)) {
    r.check_keys(window, wkey);
    const Node velocity = r.child(window, wkey, "velocity");
    const Node picks = r.child(window, wkey, "picks");
    const Node t0 = r.child(window, wkey, "t0");
    const auto& shots = deck.problem.shots;
    if (DeckReader::given(velocity) == DeckReader::given(picks)) {
      r.fail(wkey, window,
             "give a moveout velocity (m/s) or a picks file ([shot, receiver] first-arrival "
             "times in s): one of them");
    }
    if (DeckReader::given(picks)) {
      if (DeckReader::given(t0)) r.fail(wkey + ".t0", t0, "applies to a velocity, not to picks");
      s.picks =
          read_trace_table(r, picks, wkey + ".picks", shots.size(), max_receivers(shots), false);
    } else {
      s.velocity = r.positive(velocity, wkey + ".velocity");
      if (DeckReader::given(t0)) s.t0 = r.number(t0, wkey + ".t0");
    }
    const Node before = r.child(window, wkey, "before");
    if (DeckReader::given(before)) s.before = r.non_negative(before, wkey + ".before");
    const Node after = r.child(window, wkey, "after");
    if (DeckReader::given(after)) s.after = r.positive(after, wkey + ".after");
    Node w(YAML::NodeType::Map);
    if (s.picks.empty()) {
      w["velocity"] = s.velocity;
      w["t0"] = s.t0;
    } else {
      w["picks"] = r.text(picks, wkey + ".picks");
    }
    w["before"] = s.before;
    if (std::isfinite(s.after)) w["after"] = s.after;
    out["window"] = w;
  }
  const Node taper = given ? r.child(selection, key, "taper") : Node();
  if (DeckReader::given(taper)) {
    if (!s.windowed()) r.fail(key + ".taper", taper, "needs gradient.selection.window");
    s.taper = r.non_negative(taper, key + ".taper");
    out["taper"] = s.taper;
  }

  const Node weights = given ? r.child(selection, key, "trace_weights") : Node();
  if (DeckReader::given(weights)) {
    const auto& shots = deck.problem.shots;
    s.trace_weights = read_trace_table(r, weights, key + ".trace_weights", shots.size(),
                                       max_receivers(shots), true);
    out["trace_weights"] = r.text(weights, key + ".trace_weights");
  }

  const Node dead = given ? r.child(selection, key, "dead_traces") : Node();
  if (DeckReader::given(dead)) {
    s.exclude_dead_traces = r.choice(dead, key + ".dead_traces", {"exclude", "keep"}) == "exclude";
  }
  out["dead_traces"] = s.exclude_dead_traces ? "exclude" : "keep";
  if (given) resolved["selection"] = out;
}

}  // namespace pwave::io
