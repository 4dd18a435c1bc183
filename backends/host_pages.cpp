#include "backends/host_pages.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#if defined(__linux__) && defined(__GLIBC__)
#include <gnu/libc-version.h>
#include <unistd.h>
#define PWAVE_HOST_PAGES_GLIBC 1
#endif

namespace pwave::backend {
namespace {

constexpr const char* tunable = "glibc.malloc.hugetlb";

/// The kernel's THP mode: "always", "madvise", "never", or "" where there is none.
std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "";
  const auto open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return line.substr(open + 1, close - open - 1);
}

bool turned_off() {
  const char* v = std::getenv("PWAVE_HUGE_PAGES");
  if (!v) return false;
  const std::string s = v;
  return s == "0" || s == "off" || s == "no" || s == "false";
}

/// glibc.malloc.hugetlb's value in GLIBC_TUNABLES ("" when not named there).
std::string tunable_value() {
  const char* t = std::getenv("GLIBC_TUNABLES");
  if (!t) return "";
  const std::string all = t, key = std::string(tunable) + "=";
  for (std::size_t at = 0; at <= all.size();) {  // colon-separated name=value pairs
    const std::size_t end = std::min(all.find(':', at), all.size());
    const std::string pair = all.substr(at, end - at);
    if (pair.compare(0, key.size(), key) == 0) return pair.substr(key.size());
    at = end + 1;
  }
  return "";
}

/// Whether this glibc knows glibc.malloc.hugetlb (2.35 and later).
bool glibc_has_tunable() {
#ifdef PWAVE_HOST_PAGES_GLIBC
  int major = 0, minor = 0;
  if (std::sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) != 2) return false;
  return major > 2 || (major == 2 && minor >= 35);
#else
  return false;
#endif
}

}  // namespace

void request_huge_pages(char** argv) {
#ifdef PWAVE_HOST_PAGES_GLIBC
  if (turned_off() || !tunable_value().empty() || thp_mode() != "madvise" || !glibc_has_tunable() ||
      !argv || !argv[0]) {
    return;
  }
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string with =
      (before && *before ? std::string(before) + ":" : std::string()) + tunable + "=1";
  const std::string kept = before ? before : "";
  if (setenv("GLIBC_TUNABLES", with.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Still here: the program runs on with 4 KiB pages, its environment as it was.
  if (before) {
    setenv("GLIBC_TUNABLES", kept.c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
#else
  (void)argv;
#endif
}

std::string huge_pages_status() {
  const std::string mode = thp_mode();
  if (mode.empty()) return "off (no transparent huge pages here)";
  if (mode == "never") return "off (transparent huge pages: never)";
  if (mode == "always") return "on (transparent huge pages: always)";
  const std::string value = tunable_value();
  if (!value.empty() && glibc_has_tunable()) {
    return (value == "0" ? "off (" : "on (") + std::string(tunable) + "=" + value + ")";
  }
  if (turned_off()) return "off (PWAVE_HUGE_PAGES)";
  return "off (transparent huge pages: " + mode + ", " + tunable + " not set)";
}

}  // namespace pwave::backend
