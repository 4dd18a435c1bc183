#pragma once
// Command-line overrides of deck values: --set key.sub=value, applied to the YAML tree before
// it is validated, so an overridden value goes through exactly the checks a deck value does.

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <vector>

namespace pwave::io {

/// Applies each "key.sub=value" (value parsed as YAML: 2500, [100, 200], {file: vp.bin}) to
/// `root`, in order. Intermediate maps are created where the schema allows the key; unknown
/// keys, list indices and setting a key under a non-map value throw InputError(key, "--set", ..).
/// Returns the dotted keys that were set or created.
std::set<std::string> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides);

}  // namespace pwave::io
