// The tests' view of an operator's implementation list (src/ops/dispatch.h): the entries a
// differential test compares with "ref", taken from the list itself so that a new entry is
// tested by being listed.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <vector>

namespace gridops::testing {

/// Every entry of `list` but "ref" (test-only entries included), then each family alias
/// once ("fast": the automatic choice among the fast entries), in list order.
template <class E>
std::vector<std::string> fast_entries(std::span<const E> list) {
  std::vector<std::string> names, aliases;
  for (const E& e : list) {
    if (std::string(e.name) != "ref") names.push_back(e.name);
    if (e.alias != nullptr &&
        std::find(aliases.begin(), aliases.end(), e.alias) == aliases.end()) {
      aliases.push_back(e.alias);
    }
  }
  names.insert(names.end(), aliases.begin(), aliases.end());
  return names;
}

/// The entry of `list` named `name`, or null.
template <class E>
const E* find_entry(std::span<const E> list, const std::string& name) {
  for (const E& e : list) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

}  // namespace gridops::testing
