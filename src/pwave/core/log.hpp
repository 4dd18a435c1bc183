#pragma once
// Minimal logging: lines go to stderr and, when opened, to a log file.

#include <chrono>
#include <string>

namespace pwave::log {

/// Opens (truncates) a log file that receives a copy of every line.
void open_file(const std::string& path);
void close_file();
/// Suppresses info lines on the terminal (they still go to the log file).
void set_quiet(bool quiet);
void info(const std::string& line);
void warn(const std::string& line);

/// Prints "label: done/total (pct%), elapsed, ETA" at most every `interval` seconds.
class Progress {
 public:
  Progress(std::string label, long total, double interval_s = 2.0);
  void update(long done);
  void finish();

 private:
  std::string label_;
  long total_;
  double interval_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace pwave::log
