// Result files that are either written whole or reported as not written: every write,
// flush and close is checked, and a failure throws OutputError naming the path and the
// system's reason (a full disk, a read-only directory). Nothing here prints.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ibcc {

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `text` to `path` whole: into a temporary file beside it, then renamed over it, so
// a reader sees the old file or the new one, never half of one. A path that exists and is
// not a regular file (/dev/stdout, /dev/full) is written directly, still checked.
void write_file_atomic(const std::string& path, const std::string& text);

// A file written as a run goes (flows.csv as intervals complete): append, then flush() at
// the end of each interval so a reader (or an interrupted run) finds whole lines.
class StreamedFile {
 public:
  explicit StreamedFile(std::string path);  // creates or truncates; OutputError if it cannot
  StreamedFile(const StreamedFile&) = delete;
  StreamedFile& operator=(const StreamedFile&) = delete;
  ~StreamedFile();

  void write(std::string_view text);
  void flush();  // OutputError if what was written did not reach the file
  void close();  // flush and close; OutputError on failure
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const char* doing) const;
  std::string path_;
  std::ofstream out_;
};

// An exclusive lock on a directory's lock file (flock), held until destroyed or the process
// ends, however it ends (kill -9 included). OutputError if the lock file cannot be created;
// held() is false when another process holds it.
class FileLock {
 public:
  explicit FileLock(const std::string& path);
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();
  bool held() const { return held_; }

 private:
  int fd_ = -1;
  bool held_ = false;
};

}  // namespace ibcc
