#pragma once
// Wavefield storage strategies for the backward (adjoint) pass.

#include <string>

namespace pwave {

/// How forward() keeps what the gradient needs.
enum class Storage {
  /// Every snapshot u^n on the padded grid: memory (nt + 1) * padded cells per shot. With a
  /// stride or compression (StorageOptions) it keeps instead the second time difference
  /// u^{n+1} - 2u^n + u^{n-1} every stride-th step, possibly compressed: approximate.
  full,
  /// Only the CPML strips plus a stencil-radius band inside them, every step; the interior is
  /// rebuilt backwards in time from the two final fields (the leapfrog scheme is reversible
  /// where no CPML memory term acts). Memory (nt + 1) * frame cells per shot: proportional to
  /// the perimeter, not the area. Exact to rounding.
  boundary,
  /// The whole propagator state every k steps (k = ceil(sqrt(nt)) by default); going backwards,
  /// each k-step segment is recomputed from its checkpoint into a k-snapshot buffer. Memory
  /// ~ 2 sqrt(nt) fields per shot, one extra forward run. Bitwise the same as `full`.
  checkpoint,
};

/// Number format of stored `full` snapshots.
enum class Compression {
  none,  ///< the run's precision
  bf16,  ///< bfloat16: 8 significant bits, half the memory of float32
  int8,  ///< 8-bit integers with one scale per snapshot and shot: a quarter of float32
};

/// A strategy and its settings.
struct StorageOptions {
  Storage strategy = Storage::boundary;
  int interval = 0;  ///< checkpoint: steps between checkpoints (0 = ceil(sqrt(nt)))
  int stride = 1;    ///< full: image every stride-th step (weights scaled by stride)
  Compression compression = Compression::none;  ///< full

  StorageOptions() = default;
  StorageOptions(Storage s) : strategy(s) {}  // NOLINT: a bare strategy is a valid option set
  /// True when the `full` settings keep every step in the run's precision (whichever strategy is
  /// chosen: the memory estimates report `full` beside the selected one).
  bool full_settings_exact() const { return stride <= 1 && compression == Compression::none; }
  /// True for the exact `full` history (all snapshots, uncompressed).
  bool exact_full() const { return strategy == Storage::full && full_settings_exact(); }
};

/// Bytes of one value stored in `compression`, for values of `value_bytes` bytes.
inline double stored_value_bytes(Compression compression, double value_bytes) {
  return compression == Compression::none   ? value_bytes
         : compression == Compression::bf16 ? 2.0
                                            : 1.0;
}

/// "full" / "boundary" / "checkpoint".
inline const char* to_string(Storage s) {
  return s == Storage::full ? "full" : s == Storage::boundary ? "boundary" : "checkpoint";
}
inline const char* to_string(const StorageOptions& s) {
  return to_string(s.strategy);
}
inline const char* to_string(Compression c) {
  return c == Compression::none ? "none" : c == Compression::bf16 ? "bf16" : "int8";
}

}  // namespace pwave
