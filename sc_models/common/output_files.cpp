#include "common/output_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ibcc {
namespace {

std::string reason() { return errno ? std::strerror(errno) : std::string("I/O error"); }

}  // namespace

void write_file_atomic(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto st = fs::status(path, ec);
  const bool direct = fs::exists(st) && !fs::is_regular_file(st);
  const std::string tmp = direct ? path : path + ".tmp";
  errno = 0;
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) throw OutputError("cannot write " + path + ": " + reason());
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (!out) {
    const std::string why = reason();
    out.close();
    if (!direct) fs::remove(tmp, ec);
    throw OutputError("cannot write " + path + ": " + why);
  }
  out.close();
  if (out.fail()) {
    const std::string why = reason();
    if (!direct) fs::remove(tmp, ec);
    throw OutputError("cannot write " + path + ": " + why);
  }
  if (!direct) {
    fs::rename(tmp, path, ec);
    if (ec) {
      fs::remove(tmp, ec);
      throw OutputError("cannot write " + path + ": " + ec.message());
    }
  }
}

StreamedFile::StreamedFile(std::string path) : path_(std::move(path)) {
  errno = 0;
  out_.open(path_, std::ios::binary | std::ios::trunc);
  if (!out_) fail("create");
}

StreamedFile::~StreamedFile() {
  if (out_.is_open()) out_.close();  // errors of an abandoned file were reported by flush()
}

void StreamedFile::write(std::string_view text) {
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out_) fail("write");
}

void StreamedFile::flush() {
  errno = 0;
  out_.flush();
  if (!out_) fail("write");
}

void StreamedFile::close() {
  if (!out_.is_open()) return;
  flush();
  out_.close();
  if (out_.fail()) fail("close");
}

FileLock::FileLock(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw OutputError("cannot create " + path + ": " + std::strerror(errno));
  held_ = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

void StreamedFile::fail(const char* doing) const {
  throw OutputError(std::string("cannot ") + doing + " " + path_ + ": " + reason());
}

}  // namespace ibcc
