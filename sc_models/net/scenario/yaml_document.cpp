// YAML text to a yaml-cpp tree, checked first on the parser's events (yaml_document.h).
#include "net/scenario/yaml_document.h"

#include <yaml-cpp/eventhandler.h>

#include <map>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "net/scenario/scenario_yaml.h"

namespace ibcc::net {
namespace {

// One pass over a document's events: node counts with aliases expanded, cycles, duplicate keys.
class DocumentChecker : public YAML::EventHandler {
 public:
  explicit DocumentChecker(std::string name) : name_(std::move(name)) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) {
      fail(mark, "a second YAML document: a scenario is one document (remove the '---' and what follows, or put "
                 "it in its own file)");
    }
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    leaf(mark, anchor, "~", true);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    leaf(mark, anchor, value, true);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (anchor < open_.size() && open_[anchor]) {
      fail(mark, fmt::format("{}: an alias inside the node its anchor names (a cycle); a node cannot contain itself",
                             path_of_next()));
    }
    const auto scalar = scalars_.find(anchor);
    place(mark, scalar != scalars_.end() ? scalar->second : std::string(), scalar != scalars_.end());
    add(mark, anchor < sizes_.size() ? sizes_[anchor] : 1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

  int documents() const { return documents_; }

 private:
  struct Frame {
    bool map = false;
    std::string path;
    size_t index = 0;          // sequences: the next entry's index
    bool want_key = true;      // maps: the next node is a key
    std::string key;           // maps: the key of the value that comes next
    std::map<std::string, int> keys;  // maps: each key and its line
    YAML::anchor_t anchor = 0;
    uint64_t start = 0;        // count_ before this node
  };

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& what) const {
    throw ScenarioError(fmt::format("{}:{}: {}", name_, mark.line + 1, what));
  }

  // The dotted path of the node the next event starts.
  std::string path_of_next() const {
    if (stack_.empty()) return "(top level)";
    const Frame& f = stack_.back();
    if (!f.map) return fmt::format("{}[{}]", f.path, f.index);
    if (f.want_key) return f.path.empty() ? "(a key)" : f.path + " (a key)";
    return f.path.empty() ? f.key : f.path + "." + f.key;
  }

  // Records the node in its parent: a key (checked against the map's others) or a value.
  // Returns the node's own path.
  std::string place(const YAML::Mark& mark, const std::string& scalar, bool is_scalar) {
    if (stack_.empty()) return "";
    Frame& f = stack_.back();
    if (!f.map) return fmt::format("{}[{}]", f.path, f.index++);
    if (f.want_key) {
      f.want_key = false;
      f.key = is_scalar ? scalar : "<complex key>";
      const std::string path = f.path.empty() ? f.key : f.path + "." + f.key;
      if (is_scalar) {
        const auto [it, fresh] = f.keys.emplace(scalar, mark.line + 1);
        if (!fresh) fail(mark, fmt::format("{}: given twice (first at line {}); give each key once", path, it->second));
      }
      return path + " (a key)";
    }
    f.want_key = true;
    return f.path.empty() ? f.key : f.path + "." + f.key;
  }

  void add(const YAML::Mark& mark, uint64_t nodes) {
    count_ = nodes > kMaxExpandedNodes - count_ ? kMaxExpandedNodes + 1 : count_ + nodes;
    if (count_ > kMaxExpandedNodes) {
      fail(mark, fmt::format("{}: the document's aliases expand it to more than {} nodes (an alias bomb?); "
                             "write the repeated values out, or use fewer levels of aliases",
                             path_of_next(), kMaxExpandedNodes));
    }
  }

  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, const std::string& value, bool is_scalar) {
    place(mark, value, is_scalar);
    add(mark, 1);
    if (anchor) {
      set_size(anchor, 1);
      scalars_[anchor] = value;
    }
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    const std::string path = place(mark, {}, false);
    Frame f;
    f.map = map;
    f.path = path;
    f.anchor = anchor;
    f.start = count_;
    add(mark, 1);
    if (anchor) {
      if (open_.size() <= anchor) open_.resize(anchor + 1, false);
      open_[anchor] = true;
    }
    stack_.push_back(std::move(f));
  }

  void close() {
    const Frame& f = stack_.back();
    if (f.anchor) {
      open_[f.anchor] = false;
      set_size(f.anchor, count_ - f.start);
    }
    stack_.pop_back();
  }

  void set_size(YAML::anchor_t anchor, uint64_t n) {
    if (sizes_.size() <= anchor) sizes_.resize(anchor + 1, 1);
    sizes_[anchor] = n;
  }

  std::string name_;
  int documents_ = 0;
  uint64_t count_ = 0;
  std::vector<Frame> stack_;
  std::vector<uint64_t> sizes_;   // by anchor: nodes with its aliases expanded
  std::vector<bool> open_;        // by anchor: its node is still being read
  std::map<YAML::anchor_t, std::string> scalars_;  // anchors of scalars (an alias used as a key)
};

bool has_document_marker(const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    if (text.compare(at, 3, "---") == 0 || text.compare(at, 3, "...") == 0) return true;
    const size_t nl = text.find('\n', at);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return false;
}

}  // namespace

void check_text_encoding(const std::string& text, const std::string& name_for_errors) {
  size_t line = 1, line_start = 0;
  auto fail = [&](size_t at, const std::string& what) {
    throw ScenarioError(fmt::format("{}:{}: {} at column {}; the file must be UTF-8 text", name_for_errors, line, what,
                                    at - line_start + 1));
  };
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    const unsigned c = b[i];
    if (c < 0x80) {
      if (c == '\n') {
        ++line;
        line_start = i + 1;
      } else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
        fail(i, fmt::format("control character 0x{:02x}", c));
      }
      ++i;
      continue;
    }
    // Lead byte: how many continuation bytes, and the smallest code point it may encode.
    const int more = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (more < 0) fail(i, fmt::format("not UTF-8 (byte 0x{:02x})", c));
    uint32_t cp = c & (0x3f >> more);
    for (int k = 1; k <= more; ++k) {
      if (i + k >= text.size() || (b[i + k] & 0xc0) != 0x80) fail(i, fmt::format("not UTF-8 (byte 0x{:02x})", c));
      cp = cp << 6 | (b[i + k] & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[more] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      fail(i, fmt::format("not UTF-8 (byte 0x{:02x}: an overlong or invalid sequence)", c));
    }
    if (cp >= 0x80 && cp <= 0x9f && cp != 0x85) fail(i, fmt::format("control character U+{:04X}", cp));
    i += more + 1;
  }
}

YAML::Node parse_document(const std::string& text, const std::string& name_for_errors) {
  check_text_encoding(text, name_for_errors);
  try {
    // yaml-cpp builds the tree first: a syntax error is reported as such, and building is
    // safe (an alias shares its anchor's node, so neither a cycle nor a bomb expands here).
    YAML::Node root = YAML::Load(text);
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentChecker checker(name_for_errors);
    parser.HandleNextDocument(checker);
    // A second document needs a "---" or "..." at the start of a line; without one a second
    // pass is moot. (One document at a time, not a loop to the end: yaml-cpp 0.7 loops forever
    // on some malformed streams, e.g. a lone ',', found by fuzz/.)
    if (has_document_marker(text)) parser.HandleNextDocument(checker);
    return root;
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(fmt::format("{}:{}: not valid YAML: {}", name_for_errors, e.mark.line + 1, e.msg));
  }
}

}  // namespace ibcc::net
