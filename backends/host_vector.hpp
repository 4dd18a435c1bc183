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

#include <algorithm>
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
  /// The vector type of unaligned stores. A store of it aliases T (vector types take their
  /// element's alias set); a memcpy store aliases every type, after which the compiler reloaded
  /// everything it held from memory: the View extents and data pointers of every field an
  /// elastic line kernel addresses (UpdateVelocity's vector loop: 66 scalar instructions with
  /// memcpy stores, 22 with these).
  typedef T unaligned __attribute__((vector_size(vector_bytes), aligned(alignof(T))));
  static void store(T* p, const type& v) { *reinterpret_cast<unaligned*>(p) = v; }
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
  /// Lanes [k, width) of a followed by lanes [0, k) of b (0 <= k <= width): the vector k
  /// lanes past a's first where b follows a in memory. One lane permutation when k is a
  /// constant after inlining.
  static type shifted(int k, const type& a, const type& b) {
    typedef std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t> I;
    typedef I mask __attribute__((vector_size(vector_bytes)));
    mask lane;
    for (int j = 0; j < width; ++j) lane[j] = I(j);
    return __builtin_shuffle(a, b, lane + I(k));
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
#else
#define PWAVE_HOST_INLINE inline
#endif

/// One lane with Vec's interface: the plain-loop form of a vector path, for builds without the
/// vector extension and for rows narrower than a vector.
template <class T>
struct Lane {
  typedef T type;
  static constexpr int width = 1;
  static T load(const T* p) { return *p; }
  static void store(T* p, T v) { *p = v; }
  static T splat(T x) { return x; }
  static T lanes_from(int lo, T a, T b) { return lo <= 0 ? a : b; }
};

/// The values of a row at lane offsets k in [-width, width] of an aligned vector position p:
/// `taps(k)` is the vector at p + k. Vec loads the vectors at p - width, p and p + width once,
/// aligned, and shifts lanes for each k (a load at p + k with k not a multiple of the width
/// spans two cache lines and costs two); Lane loads p + k.
template <class H, class T>
struct Taps {
  typename H::type before, here, after;
  explicit Taps(const T* p)
      : before(H::load(p - H::width)), here(H::load(p)), after(H::load(p + H::width)) {}
  typename H::type operator()(int k) const {
    return k < 0 ? H::shifted(H::width + k, before, here) : H::shifted(k, here, after);
  }
};
template <class T>
struct Taps<Lane<T>, T> {
  const T* p;
  explicit Taps(const T* q) : p(q) {}
  T operator()(int k) const { return p[k]; }
};

/// The widest vector of T this build has: Vec with the vector extension, else Lane.
#ifdef PWAVE_HOST_VECTOR_EXT
template <class T>
using Native = Vec<T>;
#else
template <class T>
using Native = Lane<T>;
#endif

/// Prefetch of the cache line at p (for writing when Write), into L1; nothing without the
/// vector extension.
template <bool Write>
PWAVE_HOST_INLINE void prefetch(const void* p) {
#ifdef PWAVE_HOST_VECTOR_EXT
  __builtin_prefetch(p, Write ? 1 : 0, 3);
#else
  (void)p;
#endif
}

/// x, opaque to the compiler: the operation that produced it (a multiply) is not fused into
/// the ones that use it (an add, as an FMA under GCC's default -ffp-contract=fast), so that a
/// value kept in a register rounds as one stored to memory and loaded back, as the cell-wise
/// path does. Costs nothing where the value stays in a register (an empty asm statement).
template <class V>
PWAVE_HOST_INLINE V rounded(V x) {
#if defined(__GNUC__) && defined(__x86_64__) && defined(__AVX512F__)
  __asm__("" : "+v"(x));
#elif defined(__GNUC__) && defined(__x86_64__)
  __asm__("" : "+x"(x));
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__("" : "+w"(x));
#elif defined(__GNUC__)
  __asm__("" : "+m"(x));
#else
  volatile V stored = x;
  x = stored;
#endif
  return x;
}

/// Calls f(i, lo, hi, partial) for vectors of H::width lanes, [i, i + width), that cover
/// [i0, i1) (i1 - i0 >= width): aligned where `align` + i is, with an unaligned vector at each
/// end. `partial` (std::true_type for the end vectors) says that only lanes [lo, hi) are
/// covered by no other vector: a pure function of its inputs may store the whole vector, an
/// in-place update stores those lanes only (H::lanes_from).
template <class H, class T, class F>
PWAVE_HOST_INLINE void for_each_vector(const T* align, int i0, int i1, const F& f) {
  constexpr int W = H::width;
  const int mis = int((reinterpret_cast<std::uintptr_t>(align + i0) / sizeof(T)) % W);
  const int ia = mis ? std::min(i0 + (W - mis), i1 - W) : i0;
  const int ie = ia + (i1 - ia) / W * W;
  if (ia > i0) f(i0, 0, ia - i0, std::true_type{});
  for (int i = ia; i < ie; i += W) f(i, 0, W, std::false_type{});
  if (ie < i1) f(i1 - W, ie - (i1 - W), W, std::true_type{});
}

/// The length of a row buffer of at least n values of T: a whole, odd number of cache lines,
/// so that buffers stacked one after another do not fall in the same L1 sets (see
/// padded_row_length in backends/launch.hpp).
template <class T>
constexpr int odd_line_length(int n) {
  int lines = (n * int(sizeof(T)) + cache_line - 1) / cache_line;
  if (lines % 2 == 0) ++lines;
  return lines * cache_line / int(sizeof(T));
}

}  // namespace pwave::backend::host
