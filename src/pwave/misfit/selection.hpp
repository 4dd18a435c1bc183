#pragma once
// Data selection: which samples of the data the misfit sees. Each trace (shot s, receiver r)
// gets a weight per sample
//
//   W(s, r, t) = c(s, r) T(t; a, b),   a = t_first - before, b = t_first + after,
//   t_first = t0 + offset(s, r) / velocity, or the trace's picked time,
//
// c the trace's weight (0 outside the offset range, 0 for a dead observed trace, 0 for a row
// past the shot's last receiver (padding), the deck's trace weight otherwise), T a window that is 1
// on [a + taper, b - taper], 0 outside [a, b] and a half cosine on the ramps (no window: T = 1).
// The misfit of the selected data and its exact adjoint source are
//
//   J_W(d) = J(W d, W o),   dJ_W/dd = W (dJ/dd)(W d, W o),
//
// for every misfit function (misfit.hpp). offset: the horizontal source-receiver distance
// (x, and y in 3D).

#include <limits>
#include <vector>

#include "pwave/acquisition/geometry.hpp"
#include "pwave/core/kokkos_compat.hpp"
#include "pwave/core/types.hpp"
#include "pwave/misfit/misfit.hpp"

namespace pwave::misfit {

/// The deck's `gradient.selection` (every field optional; the default selects everything).
struct Selection {
  double offset_min = 0.0;                                      ///< m
  double offset_max = std::numeric_limits<double>::infinity();  ///< m
  double velocity = 0.0;  ///< m/s of the window's linear moveout; 0: no time window
  double t0 = 0.0;        ///< s: t_first at zero offset
  /// [shot][receiver] picked first-arrival times t_first (s), instead of a moveout velocity;
  /// a negative pick (no pick) gives the trace weight 0. Empty: none.
  std::vector<double> picks;
  double before = 0.0;  ///< s kept before t_first (with a window)
  double after = std::numeric_limits<double>::infinity();  ///< s kept after t_first
  double taper = 0.0;  ///< s: length of the half-cosine ramps inside the window's ends
  /// [shot][receiver] weights (>= 0) multiplying each trace; empty: every trace 1.
  std::vector<double> trace_weights;
  /// Observed traces that are all zero or hold a NaN/Inf get weight 0 (NaN ones always).
  bool exclude_dead_traces = true;

  /// Whether a time window is set (by a moveout velocity or by picks).
  bool windowed() const { return velocity > 0.0 || !picks.empty(); }
};

/// What the misfit of a gradient or an inversion is: the function and the data it sees.
struct Options {
  Misfit function = Misfit::l2;
  Selection selection;
  Options() = default;
  Options(Misfit f) : function(f) {}  // NOLINT(google-explicit-constructor): a misfit alone
};

/// Per-trace weights of the shots of one chunk, [slot][receiver]: c, a and b of the statement
/// above (times in samples), on the host while staging and on the device for the kernels.
template <class T>
class TraceSelection {
 public:
  TraceSelection() = default;
  /// For the `shots` of a problem (offsets, receiver counts), time step `dt`, chunks of at most
  /// `capacity` shots of `receivers` rows (the widest shot's receivers). Rows past a shot's
  /// own receivers get weight 0 and are not counted as dead.
  TraceSelection(const Selection& selection, const std::vector<ShotGeometry>& shots, double dt,
                 int capacity, int receivers);

  /// Slot k takes shot `shot`: its traces' weights, from `rows` (its observed traces,
  /// [receiver][nt] on the host), which are zeroed where dead, then weighted. Returns the number
  /// of dead traces excluded (all zero, or holding NaN/Inf).
  int stage(int k, int shot, T* rows, int nt);
  /// Copies the staged slots [0, count) to the device.
  void upload(int count);
  /// x(k, r, n) *= W for the slots k < count (on the device).
  void apply(const Traces<T>& x, int count) const;

  /// Whether the slots uploaded last all have weight 1 everywhere (apply() then does nothing).
  bool identity() const { return identity_; }

 private:
  Selection selection_;
  std::vector<double> offsets_;  // [shot][receiver] horizontal source-receiver distance, m
  std::vector<int> counts_;      // [shot] receivers (rows past them are padding, weight 0)
  double dt_ = 0.0;
  Kokkos::View<double** [3], MemSpace> table_;  // [slot][receiver]{c, a, b} (b, a in samples)
  typename Kokkos::View<double** [3], MemSpace>::host_mirror_type host_;
  bool identity_ = true;
};

/// The window T of the statement above at sample n, for a window [a, b] with ramps of `ramp`
/// samples (all in samples).
KOKKOS_INLINE_FUNCTION double selection_window(double n, double a, double b, double ramp) {
  if (n < a || n > b) return 0.0;
  if (!(ramp > 0.0)) return 1.0;
  const double up = (n - a) / ramp, down = (b - n) / ramp;
  const double x = up < down ? up : down;
  if (x >= 1.0) return 1.0;
  return 0.5 * (1.0 - math::cos(pi * x));
}

}  // namespace pwave::misfit
