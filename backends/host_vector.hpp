#pragma once
// The host backends' SIMD layer for the kernels' row paths (physics/*/kernels.hpp: rows(),
// lines(), block()): a vector of the native width through the GCC/Clang vector extension, and
// software prefetch of the regions a row loop streams. Compiler and instruction-set names live
// here, not in the physics.
//
// With GCC or Clang on a host-only build the interior uses the compiler's vector extension at
// the native width (16 floats with AVX-512); other compilers, and host spaces of GPU builds,
// get a plain loop the compiler may vectorise itself.
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__) && \
    !defined(__SYCL_DEVICE_ONLY__) && !defined(PWAVE_NO_HOST_VECTOR_EXT)
#define PWAVE_HOST_VECTOR_EXT 1
#endif

#include <cstdint>
#include <type_traits>

namespace pwave::backend::host {

#if defined(__AVX512F__)
inline constexpr int vector_bytes = 64;
#elif defined(__AVX__)
inline constexpr int vector_bytes = 32;
#else
inline constexpr int vector_bytes = 16;
#endif
inline constexpr int cache_line = 64;

#ifdef PWAVE_HOST_VECTOR_EXT
/// A vector of T filling one native register, with unaligned loads and stores.
template <class T>
struct Vec {
  typedef T type __attribute__((vector_size(vector_bytes)));
  static constexpr int width = vector_bytes / int(sizeof(T));
  static type load(const T* p) {
    type v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(T* p, const type& v) { __builtin_memcpy(p, &v, sizeof v); }
  static type splat(T x) { return type{} + x; }
  /// Lanes [lo, width) of a, lanes [0, lo) of b (a bitwise select: values are not rounded).
  static type lanes_from(int lo, const type& a, const type& b) {
    typedef std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t> I;
    typedef I mask __attribute__((vector_size(vector_bytes)));
    mask lane;
    for (int k = 0; k < width; ++k) lane[k] = I(k);
    const mask m = lane >= I(lo);  // all ones where taken from a
    return (type)(((mask)a & m) | ((mask)b & ~m));
  }
};

// Forced inline: GCC deems a function that only prefetches free of side effects and deletes
// the calls before it would inline them.
#define PWAVE_HOST_INLINE __attribute__((always_inline)) inline

/// Software prefetch of a contiguous region spread evenly over the `iterations` of a loop, a
/// few lines per iteration. The loops stream rows that the hardware prefetchers, which stop at
/// 4 KiB pages and track few streams, do not fetch early enough. An empty region prefetches
/// the line at `fallback` (already in cache) instead, so that the loop has no branch.
template <bool Write>
struct RegionPrefetch {
  const char* base = nullptr;
  long step = 0;  ///< bytes per iteration, 16.16 fixed point

  RegionPrefetch(const void* fallback, const void* p, long bytes, long iterations)
      : base(static_cast<const char*>(p)) {
    step = iterations > 0 && bytes > 0 ? (bytes << 16) / iterations : 0;
    if (!p || step == 0) base = static_cast<const char*>(fallback), step = 0;
  }
  /// Lines [it * bytes / iterations, + Lines * 64) of the region.
  template <int Lines>
  PWAVE_HOST_INLINE void touch(long it) const {
    const char* p = base + ((it * step) >> 16);
    for (int k = 0; k < Lines; ++k) __builtin_prefetch(p + k * cache_line, Write ? 1 : 0, 3);
  }
};
#endif

}  // namespace pwave::backend::host
