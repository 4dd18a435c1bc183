#pragma once
// Misfit functions of the synthetic traces d against the observed traces o, and their exact
// adjoint sources dJ/dd (the residual the adjoint propagation injects backwards).
//
// Every misfit is a sum over traces (one receiver of one shot, nt samples, no dt factor); norms
// and dot products below are over a trace's samples, d^ = d / ||d||, o^ = o / ||o||.
//
//  l2 (default):            J = 0.5 sum_n (d - o)^2
//                           dJ/dd = d - o
//  trace_normalized_l2:     J = 0.5 || d^ - o^ ||^2
//                           dJ/dd = (r - (d^ . r) d^) / ||d||,  r = d^ - o^
//  normalized_correlation:  J = 1 - d^ . o^       (global correlation, Choi & Alkhalifah 2012)
//                           dJ/dd = -(o^ - (d^ . o^) d^) / ||d||
//  envelope:                J = 0.5 sum_n (E(d) - E(o))^2,  E(x) = sqrt(x^2 + H(x)^2)
//                           dJ/dd = w d + H^T(w H(d)) = w d - H(w H(d)),  w = (E(d) - E(o)) / E(d)
//
// H is the discrete Hilbert transform of a trace: FFT of the trace zero-padded to the power of
// two N >= 2 nt, times -i sign(k) (DC and Nyquist bins set to zero), inverse FFT, first nt
// samples. H^T = -H exactly (see misfit.cpp).
//
// Zero traces:
//  - normalized misfits: an observed trace that is zero (dead) contributes 0 and a zero adjoint
//    source; otherwise a synthetic trace that is zero contributes J as defined with d^ = 0
//    (correlation 1, trace-normalised L2 0.5 ||o^||^2 = 0.5) and a zero adjoint source (J is not
//    differentiable there). "Zero" is: all samples 0, or a norm at most epsilon of T (1.2e-7
//    float, 2.2e-16 double) times the largest norm among the shot's traces (synthetic and
//    observed apart), i.e. negligible at the data's precision. Without that, traces before the
//    first arrival, holding only the stencil's exponentially small precursor (norms ~1e-28),
//    would be scaled to unit norm and their adjoint sources (~1 / ||d||) swamp the gradient;
//  - l2 and envelope: as defined (a dead observed trace pulls the synthetic one to zero).
// Envelope: where E(d) is below eps = 1e-10 times the trace's largest E(d), w divides by eps
// instead (E(d) = 0 has no derivative; |d|, |H(d)| <= E(d) keep w d and w H(d) bounded, and the
// adjoint source is exact wherever E(d) >= eps).

#include <optional>
#include <string>
#include <vector>

#include "pwave/core/types.hpp"

namespace pwave::misfit {

/// The misfit functions (statements above).
enum class Misfit { l2, trace_normalized_l2, normalized_correlation, envelope };

/// Every misfit, in the order of the enum.
inline const std::vector<Misfit>& all() {
  static const std::vector<Misfit> v{Misfit::l2, Misfit::trace_normalized_l2,
                                     Misfit::normalized_correlation, Misfit::envelope};
  return v;
}

/// The deck's name of a misfit: "l2", "trace_normalized_l2", "normalized_correlation",
/// "envelope".
inline const char* name(Misfit m) {
  switch (m) {
    case Misfit::trace_normalized_l2:
      return "trace_normalized_l2";
    case Misfit::normalized_correlation:
      return "normalized_correlation";
    case Misfit::envelope:
      return "envelope";
    case Misfit::l2:
      break;
  }
  return "l2";
}

/// Every name, in the order of the enum (the deck's choices).
inline std::vector<std::string> names() {
  std::vector<std::string> v;
  for (Misfit m : all()) v.emplace_back(name(m));
  return v;
}

/// The misfit called `text`; none for an unknown name.
inline std::optional<Misfit> parse(const std::string& text) {
  for (Misfit m : all()) {
    if (text == name(m)) return m;
  }
  return std::nullopt;
}

/// Device scratch of the envelope misfit, allocated on first use and kept while large enough:
/// twiddle factors of the FFT of length N (the power of two >= 2 nt) and one complex trace of
/// N values per receiver of a shot (2 N doubles each). The other misfits need none.
class Workspace {
 public:
  /// Makes room for `traces` traces of `samples` samples (no allocation when already enough).
  void reserve(int traces, int samples);
  /// N for traces of `samples` samples: the smallest power of two >= 2 samples (>= 2).
  static int fft_length(int samples);

  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> work;     ///< [trace][2 N] (re, im pairs)
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> twiddle;  ///< [N / 2][2]: cos, -sin
  int n = 0;  ///< FFT length the twiddles are for (0: none yet)
};

/// The adjoint sources of the first `count` shots of the batch buffers written into `residual`
/// (same shape as synthetic and observed, [shot][receiver][time]), and one misfit per shot
/// (accumulated in double; each shot reduced on its own, so that its value does not depend on
/// the other shots of the batch): result[k] for slot k. One device thread per trace.
/// l2 is residual = synthetic - observed and 0.5 sum residual^2, with the arithmetic of earlier
/// versions (bitwise the same results).
template <class T>
std::vector<double> misfits_and_adjoint_sources(Misfit kind, const Traces<T>& synthetic,
                                                const Traces<T>& observed,
                                                const Traces<T>& residual, int count,
                                                Workspace& workspace);

/// The same with a scratch of its own (allocated per call for envelope).
template <class T>
std::vector<double> misfits_and_adjoint_sources(Misfit kind, const Traces<T>& synthetic,
                                                const Traces<T>& observed,
                                                const Traces<T>& residual, int count);

/// out = H(in) for every trace of `in` ([shot][receiver][time]), the discrete Hilbert transform
/// the envelope misfit uses (for tests and diagnostics).
template <class T>
void hilbert(const Traces<T>& in, const Traces<T>& out, Workspace& workspace);

}  // namespace pwave::misfit
