// Provenance of results: content hashes of input files, so that a result can be tied to the
// exact inputs it was made from (summary.json "inputs") and a sweep can tell a stale point.
#pragma once

#include <stdexcept>
#include <string>

namespace ibcc {

class ProvenanceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// SHA-256 of a byte string, as 64 lower-case hex digits.
std::string sha256_hex(const std::string& bytes);
// SHA-256 of a file's content; ProvenanceError naming the path if it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace ibcc
