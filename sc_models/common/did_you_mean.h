// "Did you mean": the nearest of a set of names to a mistyped word, for error messages (a
// subcommand, an option, a scenario key, a metric).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace ibcc {

// Levenshtein distance between `a` and `b`.
inline size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The closest of `names` to `word`, if it is close enough to be a typo (at most two edits, or
// a third of the word's length); the shorter name on a tie.
inline std::optional<std::string> closest(const std::string& word, const std::vector<std::string>& names) {
  std::optional<std::string> best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& n : names) {
    const size_t d = edit_distance(word, n);
    if (d < best_d || (d == best_d && best && n.size() < best->size())) {
      best_d = d;
      best = n;
    }
  }
  return best;
}

}  // namespace ibcc
