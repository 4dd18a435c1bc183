#pragma once
// Errors pwave reports to users. InputError -> exit code 2, RuntimeError -> exit code 1.

#include <stdexcept>
#include <string>

namespace pwave {

/// Bad input (deck key, file contents, geometry). `where` is "file:line" when known.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& key, const std::string& where, const std::string& what)
      : std::runtime_error(format(key, where, what)), key_(key), where_(where) {}
  const std::string& key() const { return key_; }
  const std::string& where() const { return where_; }

 private:
  static std::string format(const std::string& key, const std::string& where,
                            const std::string& what) {
    std::string s;
    if (!where.empty()) s += where + ": ";
    if (!key.empty()) s += "'" + key + "': ";
    return s + what;
  }
  std::string key_, where_;
};

/// A failure while running (numerical blow-up, I/O failure mid-run).
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pwave
