#pragma once
// The bench programs' list options ("--orders 4,8"): comma-separated integers, empty items
// skipped.

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace pwave::bench {

inline std::vector<int> int_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) v.push_back(std::atoi(item.c_str()));
  }
  return v;
}

}  // namespace pwave::bench
