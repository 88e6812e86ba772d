// A one-line progress bar on stderr for long jobs: shown only on a terminal and not with
// --quiet, redrawn at most a few times a second, erased when done.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace ibcc {

class ProgressBar {
 public:
  explicit ProgressBar(bool quiet) : enabled_(!quiet && isatty(STDERR_FILENO)), start_(Clock::now()) {}
  ~ProgressBar() { finish(); }

  bool enabled() const { return enabled_; }

  // fraction in [0, 1]; `what` says what is done ("2.50 of 5.00 s simulated, 1.2 M packets/s").
  void update(double fraction, const std::string& what) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(200) && fraction < 1.0) return;
    last_ = now;
    drawn_ = true;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const int width = 30;
    const int filled = static_cast<int>(fraction * width + 0.5);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(width - filled), '.');
    std::string eta = "--";
    if (fraction > 0.01) eta = format_seconds(elapsed * (1 - fraction) / fraction);
    std::fprintf(stderr, "\r[%s] %3.0f%%  %s  ETA %s   ", bar.c_str(), fraction * 100, what.c_str(), eta.c_str());
    std::fflush(stderr);
  }

  void finish() {
    if (enabled_ && drawn_) {
      std::fprintf(stderr, "\r%*s\r", 110, "");
      std::fflush(stderr);
      drawn_ = false;
    }
  }

  static std::string format_seconds(double s) {
    char buf[32];
    if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
    else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) % 3600 / 60);
    return buf;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_;
};

// Set-up stages of a big input, one line each on stderr ("ibcc run: set-up: building the
// fabric ... (12.3 s)"), so that a set-up of minutes is never silent, on a terminal or in a
// log. Shown for an input of at least 1 MB from the first stage, otherwise for the stages
// reached after the first second; never with --quiet.
class SetupLog {
 public:
  SetupLog(const char* command, bool quiet, size_t input_bytes)
      : command_(command), quiet_(quiet), big_(input_bytes >= (1u << 20)), start_(std::chrono::steady_clock::now()) {}

  void stage(const std::string& what) {
    const double s = seconds();
    if (quiet_ || (!big_ && s < 1.0)) return;
    std::fprintf(stderr, "%s: set-up: %s (%.1f s)\n", command_, what.c_str(), s);
    std::fflush(stderr);
  }
  // A line said whatever the input's size (unless --quiet): a wait the user must hear of.
  void say(const std::string& what) {
    if (quiet_) return;
    std::fprintf(stderr, "%s: %s (%.1f s)\n", command_, what.c_str(), seconds());
    std::fflush(stderr);
  }
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  const char* command_;
  bool quiet_;
  bool big_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ibcc
