// Atomic output files: write under a temporary name, rename() onto the final name on commit.

#include "pwave/io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "pwave/core/error.hpp"

namespace pwave::io {
namespace {

std::string errno_text(int err) {
  return std::strerror(err);
}

// The directory part of `path` ("." when there is none), to fsync after a rename.
std::string parent_directory(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Flushes `path` to stable storage so that a crash right after rename() cannot leave the final
// name pointing at an empty or partial file (ext4/xfs may reorder metadata and data writes).
void fsync_path(const std::string& path, int flags, bool required) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    if (required) {
      throw RuntimeError("cannot open '" + path + "' to flush it: " + errno_text(errno));
    }
    return;
  }
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  // Some file systems refuse fsync on directories (EINVAL); that only weakens durability.
  if (rc != 0 && required) {
    throw RuntimeError("cannot flush '" + path + "' to disk: " + errno_text(err));
  }
}

}  // namespace

AtomicFile::AtomicFile(std::string final_path) : final_(std::move(final_path)) {
  if (final_.empty()) throw RuntimeError("cannot write a file with an empty name");
  // Same directory as the final name, so that rename() never crosses a file system.
  temp_ = final_ + ".partial-" + std::to_string(static_cast<long>(::getpid()));
  // Create it now so that an unwritable directory fails before any expensive work is done.
  const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    throw RuntimeError("cannot create '" + temp_ + "' (temporary file for '" + final_ +
                       "'): " + errno_text(errno));
  }
  ::close(fd);
}

AtomicFile::~AtomicFile() {
  // Errors are ignored: a destructor must not throw, and the file may already be gone.
  if (!committed_) std::remove(temp_.c_str());
}

void AtomicFile::commit() {
  if (committed_) return;
  fsync_path(temp_, O_RDONLY | O_CLOEXEC, true);
  if (std::rename(temp_.c_str(), final_.c_str()) != 0) {
    throw RuntimeError("cannot rename '" + temp_ + "' to '" + final_ + "': " + errno_text(errno));
  }
  committed_ = true;
  fsync_path(parent_directory(final_), O_RDONLY | O_DIRECTORY | O_CLOEXEC, false);
}

void write_text_file(const std::string& path, const std::string& text) {
  AtomicFile file(path);
  std::FILE* f = std::fopen(file.temp_path().c_str(), "wb");
  if (!f) throw RuntimeError("cannot open '" + file.temp_path() + "': " + errno_text(errno));
  const std::size_t written = std::fwrite(text.data(), 1, text.size(), f);
  const int write_err = errno;
  if (written != text.size()) {
    std::fclose(f);
    throw RuntimeError("cannot write '" + file.temp_path() + "': " + errno_text(write_err));
  }
  // fclose flushes the buffer; a full disk often shows up only here.
  if (std::fclose(f) != 0) {
    throw RuntimeError("cannot write '" + file.temp_path() + "': " + errno_text(errno));
  }
  file.commit();
}

}  // namespace pwave::io
