#pragma once
// Writing outputs so that a final name never holds a half-written file.

#include <string>

namespace pwave::io {

/// Reserves a temporary name next to `final_path` ("<final>.partial-<pid>"); write there, then
/// commit() renames it atomically onto the final name. If destroyed without commit(), the
/// temporary file is removed. Throws RuntimeError if the directory cannot be written.
class AtomicFile {
 public:
  explicit AtomicFile(std::string final_path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& temp_path() const { return temp_; }
  const std::string& final_path() const { return final_; }
  /// Renames the temporary file onto the final name (throws RuntimeError on failure).
  void commit();

 private:
  std::string final_, temp_;
  bool committed_ = false;
};

/// Writes `text` to `path` atomically.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace pwave::io
