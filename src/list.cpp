// `ibcc list`: what ships under topologies/, with the first line of each file's own comment.
#include "list.h"

#include "cli.h"
#include "data_root.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include <fmt/format.h>

namespace ibcc {
namespace {

// The first sentence of the leading comment (after an optional shebang), shortened to fit a line.
std::string summary_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string text;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#!", 0) == 0) continue;
    if (line.rfind("#", 0) != 0) break;
    line.erase(0, line.find_first_not_of("# "));
    text += (text.empty() ? "" : " ") + line;
    if (line.find(". ") != std::string::npos || (!line.empty() && line.back() == '.')) break;
  }
  const size_t stop = text.find(". ");
  if (stop != std::string::npos) text = text.substr(0, stop + 1);
  constexpr size_t kMax = 100;
  if (text.size() > kMax) text = text.substr(0, text.rfind(' ', kMax - 4)) + " ...";
  return text;
}

}  // namespace

int run_list(const std::string& source_dir) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(source_dir) / "topologies";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    std::cerr << "ibcc list: error: " << root.string() << ": not a directory (the source tree this ibcc was built from)\n";
    return cli::kBadInput;
  }
  struct Entry {
    std::string kind, path, summary;
  };
  std::vector<Entry> entries;
  for (const auto& e : fs::recursive_directory_iterator(root, ec)) {
    if (!e.is_regular_file()) continue;
    const fs::path p = e.path();
    const std::string rel = fs::relative(p, source_dir).string();
    if (p.extension() == ".yaml") entries.push_back({"scenario", rel, summary_line(p)});
    else if (p.extension() == ".sh" && p.parent_path().filename() == "studies") entries.push_back({"study", rel, summary_line(p)});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.kind, a.path) < std::tie(b.kind, b.path);
  });
  size_t width = 0;
  for (const auto& e : entries) width = std::max(width, e.path.size());
  for (const auto& e : entries) std::cout << fmt::format("{:<8} {:<{}}  {}\n", e.kind, e.path, width, e.summary);
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace ibcc

namespace ibcc::cli {

Command add_list(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("list", "The scenarios and studies shipped under topologies/, one line each");
  return {cmd, [] { return ibcc::run_list(ibcc::data_root()); }};
}

}  // namespace ibcc::cli
