#pragma once
// Transparent huge pages (2 MiB) for the host arrays. A stencil reads each cell's neighbours
// from 2R + 1 rows (2D) or planes (3D) of several arrays: with 4 KiB pages every one of those
// rows or planes is its own page, the TLB holds too few of them, and each miss is a page walk
// (two-level under a virtual machine). Backed by 2 MiB pages, a 200^3 float32 field is 16
// pages. Measured on a 2-vCPU KVM guest (bench/README.md, "Huge pages"): forward runs 1.1-1.4x
// faster (the 3D elastic one 1.4x), gradients 5-15 %, a memory copy 1.25x.
//
// Linux gives huge pages to every anonymous mapping when its THP mode is `always` (the default
// of many HPC distributions), and only to ranges a process advises when it is `madvise` (e.g.
// Debian's default). glibc >= 2.35 advises each of its large malloc mappings when the tunable
// glibc.malloc.hugetlb=1 is set, which is read once, at program start: so a program that wants
// it re-executes itself with the tunable set, before anything else happens.

#include <string>

namespace pwave::backend {

/// Call first thing in main(), before MPI, Kokkos or any thread starts. On Linux with glibc >=
/// 2.35, THP in `madvise` mode and GLIBC_TUNABLES not naming glibc.malloc.hugetlb, replaces the
/// process by itself (execv of /proc/self/exe with the same arguments) with
/// glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, and does not return; otherwise (or if that
/// fails) returns and the program runs as it would have. PWAVE_HUGE_PAGES=0 (or off) turns it
/// off. Every pwave program (the `pwave` driver, the benchmarks) calls it; a program linking
/// the library may call it, or set GLIBC_TUNABLES=glibc.malloc.hugetlb=1 itself.
void request_huge_pages(char** argv);

/// How this process's large host allocations are paged, one line: "on (...)" or "off (...)"
/// with the reason (`pwave --version`, the benchmarks' headers).
std::string huge_pages_status();

}  // namespace pwave::backend
