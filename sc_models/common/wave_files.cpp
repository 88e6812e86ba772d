#include "common/wave_files.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "common/output_files.h"

namespace ibcc {

// The FST file format (GTKWave's fstapi.c): blocks, each a type byte and a big-endian 64-bit
// length that counts itself and the block's data. The header block (type 0) comes first and
// holds the start and end times. The blocks are walked, not decoded: fstapi's own reader can
// loop forever on a file cut short, which is what a full disk leaves.
void check_fst_file(const std::string& path, uint64_t last_time) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw OutputError("cannot write " + path + ": it cannot be read back");
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  auto u64 = [&](uint64_t at) {
    unsigned char b[8] = {};
    in.seekg(static_cast<std::streamoff>(at));
    in.read(reinterpret_cast<char*>(b), 8);
    uint64_t v = 0;
    for (unsigned char c : b) v = v << 8 | c;
    return v;
  };
  auto fail = [&](const std::string& why) {
    throw OutputError("cannot write " + path + ": " + why + " (a full disk?)");
  };
  if (size < 1 + 8 + 16) fail("it is empty or holds no FST header");
  in.seekg(0);
  if (in.get() != 0) fail("it does not start with an FST header block");
  bool hierarchy = false, geometry = false;
  for (uint64_t at = 0; at < size;) {
    in.seekg(static_cast<std::streamoff>(at));
    const int type = in.get();
    if (at + 9 > size) fail("its last block is cut short");
    const uint64_t len = u64(at + 1);
    if (len < 8 || len > size - at - 1) fail("its block at byte " + std::to_string(at) + " is cut short");
    hierarchy |= type == 4 || type == 6 || type == 7;
    geometry |= type == 3;
    at += 1 + len;
  }
  if (!hierarchy || !geometry) fail("it lacks the hierarchy or geometry written when it is closed");
  const uint64_t end = u64(1 + 8 + 8);
  if (end < last_time) {
    fail("it ends at time " + std::to_string(end) + ", before the last time written (" + std::to_string(last_time) + ")");
  }
}

void check_vcd_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw OutputError("cannot write " + path + ": it cannot be read back");
  const std::streamoff size = in.tellg();
  std::string head(static_cast<size_t>(std::min<std::streamoff>(size, 1 << 20)), '\0');
  in.seekg(0);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  char last = 0;
  if (size > 0) {
    in.seekg(size - 1);
    in.get(last);
  }
  if (size == 0 || last != '\n' || (head.find("$enddefinitions") == std::string::npos && size <= (1 << 20))) {
    throw OutputError("cannot write " + path + ": it is empty or cut short (a full disk?)");
  }
}

}  // namespace ibcc
