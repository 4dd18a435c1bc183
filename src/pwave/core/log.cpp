#include "pwave/core/log.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>

namespace pwave::log {
namespace {
std::ofstream& file() {
  static std::ofstream f;
  return f;
}
bool& quiet() {
  static bool q = false;
  return q;
}
void emit(const std::string& prefix, const std::string& line, bool force_terminal) {
  if (force_terminal || !quiet()) std::cerr << prefix << line << std::endl;
  if (file().is_open()) file() << prefix << line << std::endl;
}
std::string seconds_text(double s) {
  char buf[64];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.1fs", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, (int(s) % 3600) / 60);
  }
  return buf;
}
}  // namespace

void open_file(const std::string& path) {
  file().close();
  file().open(path, std::ios::trunc);
}
void close_file() { file().close(); }
void set_quiet(bool q) { quiet() = q; }
void info(const std::string& line) { emit("pwave: ", line, false); }
void warn(const std::string& line) { emit("pwave: warning: ", line, true); }

Progress::Progress(std::string label, long total, double interval_s)
    : label_(std::move(label)), total_(total), interval_(interval_s) {
  start_ = last_ = std::chrono::steady_clock::now();
}

void Progress::update(long done) {
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() < interval_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double frac = total_ > 0 ? double(done) / double(total_) : 1.0;
  const double eta = frac > 0 ? elapsed * (1.0 - frac) / frac : 0.0;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: %ld/%ld (%.0f%%), elapsed %s, ETA %s", label_.c_str(), done,
                total_, 100.0 * frac, seconds_text(elapsed).c_str(), seconds_text(eta).c_str());
  info(buf);
}

void Progress::finish() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  info(label_ + ": done in " + seconds_text(elapsed));
}

}  // namespace pwave::log
