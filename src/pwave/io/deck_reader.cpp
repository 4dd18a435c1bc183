#include "pwave/io/deck_reader.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>

#include "pwave/core/error.hpp"
#include "pwave/io/deck_schema.hpp"
#include "pwave/io/npy.hpp"

namespace pwave::io {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// YAML 1.1/1.2 spell infinity and NaN ".inf" and ".nan"; strtod accepts "inf" and "nan". Both
// are parsed so that the error says "must be finite" rather than "not a number".
bool parse_double(const std::string& raw, double& value) {
  const std::string s = trim(raw);
  const std::string l = lower(s);
  if (l == ".inf" || l == "+.inf") {
    value = std::numeric_limits<double>::infinity();
    return true;
  }
  if (l == "-.inf") {
    value = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (l == ".nan") {
    value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

bool is_overridden_by(const std::string& key, const std::string& set_key) {
  if (key.compare(0, set_key.size(), set_key) != 0) return false;
  return key.size() == set_key.size() || key[set_key.size()] == '.' || key[set_key.size()] == '[';
}

}  // namespace

DeckReader::DeckReader(std::string deck_path, std::set<std::string> overridden)
    : path_(std::move(deck_path)), overridden_(std::move(overridden)) {
  dir_ = std::filesystem::path(path_).parent_path().string();
  if (dir_.empty()) dir_ = ".";
}

std::string DeckReader::where(const std::string& key, const YAML::Node& node) const {
  for (const std::string& set_key : overridden_) {
    if (is_overridden_by(key, set_key)) return "--set";
  }
  if (node.IsDefined()) {
    const YAML::Mark mark = node.Mark();
    if (!mark.is_null() && mark.line >= 0) return path_ + ":" + std::to_string(mark.line + 1);
  }
  return path_;
}

void DeckReader::fail(const std::string& key, const YAML::Node& node,
                      const std::string& what) const {
  throw InputError(key, where(key, node), what);
}

YAML::Node DeckReader::child(const YAML::Node& map, const std::string& key,
                             const std::string& name) const {
  if (!map.IsDefined() || map.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
  if (!map.IsMap()) fail(key, map, "expected a map with '" + name + "', got " + describe(map));
  const YAML::Node& const_map = map;  // const access never inserts the key
  return const_map[name];
}

YAML::Node DeckReader::required(const YAML::Node& map, const std::string& key,
                                const std::string& name, const std::string& expected) const {
  YAML::Node value = child(map, key, name);
  const std::string full = key.empty() ? name : key + "." + name;
  if (!value.IsDefined()) fail(full, map, "missing required key (" + expected + ")");
  if (value.IsNull()) {
    // An empty value's mark is where the parser found the next token: point at the key instead.
    YAML::Node at = value;
    for (const auto& kv : map) {
      if (kv.first.IsScalar() && kv.first.Scalar() == name) at.reset(kv.first);
    }
    fail(full, at, "has no value (" + expected + ")");
  }
  return value;
}

void DeckReader::check_keys(const YAML::Node& map, const std::string& key) const {
  if (!map.IsMap()) fail(key, map, "expected a map, got " + describe(map));
  const DeckKey* spec = find_deck_key(key);
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const std::string prefix = key.empty() ? "" : key + ".";
    if (!kv.first.IsScalar()) fail(key, kv.first, "keys must be plain names");
    const std::string name = kv.first.Scalar();
    if (!seen.insert(name).second) fail(prefix + name, kv.first, "duplicate key '" + name + "'");
    bool known = false;
    if (spec) {
      for (const DeckKey& c : spec->children) known = known || c.name == name;
    }
    if (!known) {
      const std::string hint = spec ? unknown_key_hint(name, *spec) : std::string();
      fail(prefix + name, kv.first, "unknown key '" + name + "'" + hint);
    }
  }
}

double DeckReader::number(const YAML::Node& node, const std::string& key) const {
  double value = 0.0;
  if (!node.IsScalar() || !parse_double(node.Scalar(), value)) {
    fail(key, node, "expected a number, got " + describe(node));
  }
  if (!std::isfinite(value)) fail(key, node, "expected a finite number, got " + describe(node));
  return value;
}

double DeckReader::positive(const YAML::Node& node, const std::string& key) const {
  const double value = number(node, key);
  if (!(value > 0.0)) fail(key, node, "expected a positive number, got " + describe(node));
  return value;
}

double DeckReader::non_negative(const YAML::Node& node, const std::string& key) const {
  const double value = number(node, key);
  if (value < 0.0) fail(key, node, "expected a number >= 0, got " + describe(node));
  return value;
}

YAML::Node DeckReader::key_node(const YAML::Node& map, const std::string& name) {
  YAML::Node at;
  at.reset(map);
  if (map.IsMap()) {
    for (const auto& kv : map) {
      if (kv.first.IsScalar() && kv.first.Scalar() == name) at.reset(kv.first);
    }
  }
  return at;
}

int DeckReader::integer(const YAML::Node& node, const std::string& key, long min_value) const {
  const std::string what = min_value == 1   ? "a positive integer"
                           : min_value == 0 ? "an integer >= 0"
                                            : "an integer >= " + std::to_string(min_value);
  if (!node.IsScalar()) fail(key, node, "expected " + what + ", got " + describe(node));
  const std::string s = trim(node.Scalar());
  char* end = nullptr;
  errno = 0;
  const long long value = s.empty() ? 0 : std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || value > INT_MAX ||
      value < min_value) {
    fail(key, node, "expected " + what + ", got " + describe(node));
  }
  return int(value);
}

bool DeckReader::boolean(const YAML::Node& node, const std::string& key) const {
  if (node.IsScalar()) {
    const std::string s = lower(trim(node.Scalar()));
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  fail(key, node, "expected true or false, got " + describe(node));
}

std::string DeckReader::text(const YAML::Node& node, const std::string& key) const {
  if (!node.IsScalar() || trim(node.Scalar()).empty()) {
    fail(key, node, "expected a non-empty string, got " + describe(node));
  }
  return node.Scalar();
}

std::string DeckReader::existing_file(const YAML::Node& node, const std::string& key) const {
  const std::string name = text(node, key);
  std::filesystem::path path(name);
  if (path.is_relative()) path = std::filesystem::path(dir_) / path;
  path = path.lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    fail(key, node, "file '" + name + "' not found (looked for '" + path.string() + "')");
  }
  return path.string();
}

NpyArray read_deck_npy(const DeckReader& r, const YAML::Node& node, const std::string& key) {
  const std::string path = r.existing_file(node, key);
  try {
    return read_npy(path);
  } catch (const InputError& e) {
    r.fail(key, node, bare_message(e.what(), e.key(), ""));
  }
}

std::string DeckReader::choice(const YAML::Node& node, const std::string& key,
                               const std::vector<std::string>& options) const {
  std::string list;
  for (std::size_t i = 0; i < options.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == options.size() ? " or " : ", ") + options[i];
  }
  if (node.IsScalar()) {
    const std::string s = trim(node.Scalar());
    for (const std::string& o : options) {
      if (s == o) return o;
    }
    const std::string near = nearest_key(s, options);
    fail(key, node,
         "expected " + list + ", got " + describe(node) +
             (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
  fail(key, node, "expected " + list + ", got " + describe(node));
}

std::string DeckReader::describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a map";
  return "'" + node.Scalar() + "'";
}

std::string number_text(double value) {
  std::ostringstream s;
  s << value;
  return s.str();
}

YAML::Node yaml_number(double value) {
  char buf[64];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return YAML::Node(std::string(buf));
}

YAML::Node yaml_list(const std::vector<double>& values) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (double v : values) list.push_back(yaml_number(v));
  list.SetStyle(YAML::EmitterStyle::Flow);
  return list;
}

std::string bare_message(const std::string& formatted, const std::string& key,
                         const std::string& where) {
  std::string s = formatted;
  if (!where.empty() && s.compare(0, where.size() + 2, where + ": ") == 0) {
    s = s.substr(where.size() + 2);
  }
  const std::string quoted = "'" + key + "': ";
  if (!key.empty() && s.compare(0, quoted.size(), quoted) == 0) s = s.substr(quoted.size());
  return s;
}

}  // namespace pwave::io
