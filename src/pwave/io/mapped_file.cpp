#include "pwave/io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "pwave/core/error.hpp"

namespace pwave::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("", path, what);
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

MappedFile::MappedFile(const std::string& path) : path_(path) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) {
    if (errno == ENOENT) fail(path, "file not found");
    fail(path, std::string("cannot open file: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) fail(path, std::string("cannot open file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, not a file");
  if (!S_ISREG(st.st_mode)) fail(path, "is not a regular file (cannot be memory-mapped)");
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ == 0) return;  // mmap refuses length 0; callers see an empty file
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, f.fd, 0);
  if (p == MAP_FAILED) {
    size_ = 0;
    fail(path, std::string("cannot map file into memory: ") + std::strerror(errno));
  }
  addr_ = p;
  // The mapping keeps the file open; the descriptor is closed by Fd.
}

MappedFile::~MappedFile() {
  unmap();
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : addr_(std::exchange(other.addr_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      path_(std::move(other.path_)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    unmap();
    addr_ = std::exchange(other.addr_, nullptr);
    size_ = std::exchange(other.size_, 0);
    path_ = std::move(other.path_);
  }
  return *this;
}

void MappedFile::unmap() noexcept {
  if (addr_) ::munmap(addr_, size_);
  addr_ = nullptr;
  size_ = 0;
}

void MappedFile::release(std::size_t offset, std::size_t length) const noexcept {
  if (!addr_ || length == 0 || offset >= size_) return;
  const long page_l = ::sysconf(_SC_PAGESIZE);
  const std::size_t page = page_l > 0 ? std::size_t(page_l) : 4096;
  const std::size_t end = offset + std::min(length, size_ - offset);
  const std::size_t begin = offset / page * page;
  const std::size_t stop = (end + page - 1) / page * page;
  // A page shared with a neighbouring range is dropped too: it is simply read again (from the
  // page cache) if that range is used later. The pages are clean and never written, so
  // MADV_DONTNEED loses nothing.
  ::madvise(static_cast<char*>(addr_) + begin, stop - begin, MADV_DONTNEED);
}

}  // namespace pwave::io
