#include "pwave/io/deck_overrides.hpp"

#include "pwave/core/error.hpp"
#include "pwave/io/deck_reader.hpp"
#include "pwave/io/deck_schema.hpp"

namespace pwave::io {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts(1);
  for (char c : key) {
    if (c == '.') {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

// Checks every component of `parts` against the schema; throws naming the first bad one.
void check_key_path(const std::vector<std::string>& parts) {
  const DeckKey* spec = &deck_schema();
  std::string dotted;
  for (const std::string& part : parts) {
    const std::string parent = dotted;
    dotted += (dotted.empty() ? "" : ".") + part;
    if (part.empty()) throw InputError(dotted, "--set", "empty key name in '" + dotted + "'");
    const DeckKey* next = nullptr;
    for (const DeckKey& c : spec->children) {
      if (c.name == part) next = &c;
    }
    if (!next) {
      const std::string hint = spec->children.empty()
                                   ? " ('" + parent + "' takes a value, not keys)"
                                   : unknown_key_hint(part, *spec);
      throw InputError(dotted, "--set", "unknown key '" + part + "'" + hint);
    }
    spec = next;
  }
}

void apply_one(YAML::Node& root, const std::string& assignment, std::set<std::string>& touched) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || trim(assignment.substr(0, eq)).empty()) {
    throw InputError("", "--set",
                     "expected key=value (e.g. time.nt=200), got '" + assignment + "'");
  }
  const std::string key = trim(assignment.substr(0, eq));
  const std::string text = assignment.substr(eq + 1);
  if (key.find('[') != std::string::npos) {
    throw InputError(key, "--set",
                     "list elements cannot be set one by one; set the whole list, e.g. "
                     "--set 'acquisition.sources.x=[100, 200]'");
  }
  const std::vector<std::string> parts = split_key(key);
  check_key_path(parts);

  YAML::Node value;
  try {
    value = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(key, "--set", "cannot parse value '" + text + "' as YAML: " + e.msg);
  }
  if (!DeckReader::given(value)) throw InputError(key, "--set", "needs a value (key=value)");

  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw InputError("", "--set", "the deck is not a map of keys");
  // Walk with reset(): assigning one Node handle to another would overwrite the tree node.
  YAML::Node cur;
  cur.reset(root);
  std::string dotted;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    dotted += (dotted.empty() ? "" : ".") + parts[i];
    YAML::Node next = cur[parts[i]];
    if (!next.IsDefined() || next.IsNull()) {
      cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      touched.insert(dotted);
    } else if (!next.IsMap()) {
      throw InputError(key, "--set",
                       "'" + dotted + "' is " + DeckReader::describe(next) +
                           " in the deck, not a map; set it whole, e.g. --set '" + dotted + "={" +
                           parts[i + 1] + ": ...}'");
    }
    YAML::Node child = cur[parts[i]];
    cur.reset(child);
  }
  cur[parts.back()] = value;
  touched.insert(key);
}

}  // namespace

std::set<std::string> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides) {
  std::set<std::string> touched;
  for (const std::string& o : overrides) apply_one(root, o, touched);
  return touched;
}

}  // namespace pwave::io
