#pragma once
// A file mapped read-only into memory (POSIX mmap), for data too large to copy: pages are read
// from disk when first touched, are shared with every other process mapping the same file
// (ranks on one node share one copy in the page cache), and can be given back after use.

#include <cstddef>
#include <string>

namespace pwave::io {

/// Owns a read-only mapping of a whole file; unmapped on destruction. Move-only.
/// A file that shrinks while mapped makes reads past its new end fault (SIGBUS): mapped inputs
/// must not be rewritten during a run (pwave replaces files by renaming, which is safe).
class MappedFile {
 public:
  MappedFile() = default;
  /// Maps `path`. Throws InputError(key "", where = path) when it is missing, a directory or
  /// cannot be opened or mapped. An empty file maps to size() 0 and data() nullptr.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return static_cast<const unsigned char*>(addr_); }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

  /// Drops this process's pages of bytes [offset, offset + length) (widened to whole pages):
  /// they stay in the page cache and are read again from there if touched later. Without it a
  /// process that reads different parts of a large file over time ends up with all of it in
  /// its resident set. Advice only: failures are ignored.
  void release(std::size_t offset, std::size_t length) const noexcept;

 private:
  void unmap() noexcept;
  void* addr_ = nullptr;
  std::size_t size_ = 0;
  std::string path_;
};

}  // namespace pwave::io
