#pragma once
// Typed access to a deck's YAML tree. Every failure throws InputError naming the full dotted
// key and where it was written: "deck.yaml:12", or "--set" for a value given on the command line.

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

namespace pwave::io {

/// Reads typed values out of deck nodes and reports errors with key and line.
class DeckReader {
 public:
  /// `deck_path` as the user wrote it (used in messages); `overridden` holds the dotted keys
  /// replaced by --set (their values, and everything below them, report "--set").
  DeckReader(std::string deck_path, std::set<std::string> overridden);

  const std::string& deck_path() const { return path_; }
  /// Folder of the deck; relative file names in the deck are relative to it.
  const std::string& deck_dir() const { return dir_; }

  /// "file:line" of `node` (1-based), "--set" for overridden keys, or the deck path alone.
  std::string where(const std::string& key, const YAML::Node& node) const;
  /// Throws InputError(key, where(key, node), what).
  [[noreturn]] void fail(const std::string& key, const YAML::Node& node,
                         const std::string& what) const;

  /// True if `node` holds a value (defined and not null).
  static bool given(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }
  /// The node of the key `name` in `map` (its line is where the user wrote the key), else `map`.
  static YAML::Node key_node(const YAML::Node& map, const std::string& name);
  /// The value of `name` in the map `map` (undefined node if absent); `key` is the map's key.
  YAML::Node child(const YAML::Node& map, const std::string& key, const std::string& name) const;
  /// Like child(), but a missing or empty value is an error saying what is expected.
  YAML::Node required(const YAML::Node& map, const std::string& key, const std::string& name,
                      const std::string& expected) const;
  /// Requires a map and rejects keys the schema does not list under `key`, and duplicates.
  void check_keys(const YAML::Node& map, const std::string& key) const;

  /// A finite number.
  double number(const YAML::Node& node, const std::string& key) const;
  /// A finite number > 0.
  double positive(const YAML::Node& node, const std::string& key) const;
  /// A finite number >= 0.
  double non_negative(const YAML::Node& node, const std::string& key) const;
  /// An integer in [min_value, 2^31).
  int integer(const YAML::Node& node, const std::string& key, long min_value) const;
  /// true/false (also yes/no, on/off).
  bool boolean(const YAML::Node& node, const std::string& key) const;
  /// A non-empty string.
  std::string text(const YAML::Node& node, const std::string& key) const;
  /// The path of the file a deck key names (`node`: its value): relative to the deck's folder,
  /// normalised. Fails "file 'x' not found (looked for 'y')" unless it is a regular file.
  std::string existing_file(const YAML::Node& node, const std::string& key) const;
  /// One of `options`.
  std::string choice(const YAML::Node& node, const std::string& key,
                     const std::vector<std::string>& options) const;

  /// "'abc'", "a list", "a map" or "nothing", for "expected ..., got ..." messages.
  static std::string describe(const YAML::Node& node);

 private:
  std::string path_, dir_;
  std::set<std::string> overridden_;
};

/// A number as deck error messages print it (std::ostream defaults: 6 significant digits).
std::string number_text(double value);
/// A number node written in the shortest form that reads back exactly (0.001, not 0.0010000).
YAML::Node yaml_number(double value);
/// A flow-style list node of numbers: [1, 2.5, 3].
YAML::Node yaml_list(const std::vector<double>& values);

/// The .npy file `node` names (DeckReader::existing_file), read whole; errors in its format
/// name `key` and the line.
struct NpyArray;
NpyArray read_deck_npy(const DeckReader& reader, const YAML::Node& node, const std::string& key);

/// The message of an InputError without its "where: 'key': " prefix, to re-throw it with a
/// better key and place.
std::string bare_message(const std::string& formatted, const std::string& key,
                         const std::string& where);

}  // namespace pwave::io
