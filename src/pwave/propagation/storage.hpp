#pragma once
// Wavefield storage strategies for the backward (adjoint) pass.

#include <string>

namespace pwave {

/// How forward() keeps what the gradient needs.
enum class Storage {
  /// Every snapshot u^n on the padded grid: memory (nt + 1) * padded cells per shot.
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

/// "full" / "boundary" / "checkpoint".
inline const char* to_string(Storage s) {
  return s == Storage::full ? "full" : s == Storage::boundary ? "boundary" : "checkpoint";
}

}  // namespace pwave
