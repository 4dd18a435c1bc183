#include "pwave/io/deck_schema.hpp"

#include <algorithm>

namespace pwave::io {
namespace {

DeckKey leaf(const char* name) {
  return DeckKey{name, {}};
}

// A coordinate list may be written as {start, step, count}.
DeckKey coordinate(const char* name) {
  return DeckKey{name, {leaf("start"), leaf("step"), leaf("count")}};
}

// A material value (vp, rho, vs) in map form: a file, a constant with layers and circular
// anomalies whose values are given under the material's own name, or (vs, rho) derived from vp.
DeckKey material(const char* name) {
  return DeckKey{
      name,
      {leaf("file"), leaf("format"), leaf("shape"), leaf("order"), leaf("dtype"), leaf("scale"),
       leaf("stride"), leaf("smooth"), leaf("constant"), DeckKey{"layers", {leaf("z"), leaf(name)}},
       DeckKey{"anomalies", {leaf("x"), leaf("y"), leaf("z"), leaf("radius"), leaf(name)}},
       leaf("from_vp"), leaf("fluid_vp"), leaf("min"), leaf("fluid_rho")}};
}

DeckKey build_schema() {
  DeckKey model{"model",
                {leaf("shape"), leaf("spacing"), material("vp"), material("rho"), material("vs")}};
  DeckKey time{"time", {leaf("dt"), leaf("nt")}};
  DeckKey wavelet{
      "wavelet",
      {leaf("type"), leaf("peak_frequency"), leaf("delay"), leaf("amplitude"), leaf("file"),
       DeckKey{"estimate", {leaf("every"), leaf("water_level"), leaf("per_shot")}}}};
  DeckKey acquisition{
      "acquisition",
      {DeckKey{"sources", {coordinate("x"), coordinate("y"), coordinate("z"), leaf("type")}},
       DeckKey{"receivers",
               {coordinate("x"), coordinate("y"), coordinate("z"), leaf("relative_to_source"),
                leaf("outside"), leaf("components")}},
       leaf("hicks_half_width"), leaf("from")}};
  DeckKey physics{"physics", {leaf("equation"), leaf("order")}};
  DeckKey boundary{
      "boundary",
      {leaf("type"),
       DeckKey{
           "width",
           {leaf("top"), leaf("bottom"), leaf("left"), leaf("right"), leaf("front"), leaf("back")}},
       leaf("free_surface"), leaf("reflection"), leaf("pml_frequency"), leaf("pml_velocity")}};
  DeckKey output{"output", {leaf("directory"), leaf("segy"), leaf("plots")}};
  DeckKey execution{
      "execution",
      {leaf("shot_batch"), leaf("check_interval"), leaf("interior_3d"), leaf("wavefront_steps")}};
  DeckKey observed{
      "observed",
      {leaf("file"), leaf("format"), leaf("gather_by"),
       DeckKey{"headers",
               {leaf("shot"), leaf("source_x"), leaf("source_y"), leaf("group_x"), leaf("group_y"),
                leaf("scalar"), leaf("elevation_scalar"), leaf("receiver_elevation"),
                leaf("source_elevation"), leaf("source_depth")}},
       DeckKey{"coordinates", {leaf("origin"), leaf("azimuth")}}, leaf("datum"), leaf("resample")}};
  DeckKey gradient{
      "gradient",
      {leaf("storage"), leaf("checkpoint_interval"), leaf("stride"), leaf("compression"),
       leaf("misfit"),
       DeckKey{
           "selection",
           {leaf("offsets"),
            DeckKey{"window",
                    {leaf("velocity"), leaf("picks"), leaf("t0"), leaf("before"), leaf("after")}},
            leaf("taper"), leaf("trace_weights"), leaf("dead_traces")}}}};
  DeckKey true_model{"true_model", {material("vp"), material("rho"), material("vs")}};
  DeckKey inversion{
      "inversion",
      {leaf("iterations"), leaf("batch_size"), leaf("seed"), leaf("parameters"),
       DeckKey{"optimizer",
               {leaf("type"), leaf("learning_rate"), leaf("beta1"), leaf("beta2"), leaf("epsilon"),
                leaf("momentum"), leaf("memory")}},
       DeckKey{"bounds", {leaf("vp"), leaf("rho"), leaf("vs")}}, leaf("smoothing"),
       leaf("water_depth"), leaf("source_taper"),
       DeckKey{"stages", {leaf("iterations"), leaf("max_frequency"), leaf("min_frequency")}},
       leaf("output_every"), leaf("checkpoint_every")}};
  return DeckKey{"",
                 {leaf("task"), leaf("precision"), model, time, wavelet, acquisition, physics,
                  boundary, output, execution, observed, gradient, true_model, inversion}};
}

}  // namespace

const DeckKey& deck_schema() {
  static const DeckKey root = build_schema();
  return root;
}

const DeckKey* find_deck_key(const std::string& dotted) {
  const DeckKey* node = &deck_schema();
  std::string part;
  auto descend = [&]() -> bool {
    const auto bracket = part.find('[');
    const std::string name = part.substr(0, bracket);
    part.clear();
    if (name.empty()) return bracket != std::string::npos;  // "x[1][2]": indices only
    for (const DeckKey& child : node->children) {
      if (child.name == name) {
        node = &child;
        return true;
      }
    }
    return false;
  };
  if (dotted.empty()) return node;
  for (char c : dotted) {
    if (c == '.') {
      if (!descend()) return nullptr;
    } else {
      part += c;
    }
  }
  return descend() ? node : nullptr;
}

std::vector<std::string> child_names(const DeckKey& key) {
  std::vector<std::string> names;
  for (const DeckKey& child : key.children) names.push_back(child.name);
  return names;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: Levenshtein plus adjacent transpositions ("recievers").
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::string nearest_key(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // Up to a third of the longer name may differ: catches typos, not unrelated words.
  const std::size_t longest = std::max(name.size(), best.size());
  const std::size_t allowed = std::max<std::size_t>(1, (longest + 2) / 3);
  return best_distance <= allowed ? best : std::string();
}

std::string unknown_key_hint(const std::string& name, const DeckKey& parent) {
  const std::vector<std::string> names = child_names(parent);
  const std::string near = nearest_key(name, names);
  if (!near.empty()) return " (did you mean '" + near + "'?)";
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return " (valid keys: " + list + ")";
}

}  // namespace pwave::io
