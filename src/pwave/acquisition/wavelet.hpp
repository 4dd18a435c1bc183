#pragma once
// Source time functions.

#include <vector>

namespace pwave {

/// Ricker wavelet s(t) = A (1 - 2 pi^2 f^2 (t - t0)^2) exp(-pi^2 f^2 (t - t0)^2) sampled at
/// t = n dt, n = 0..nt-1. f in Hz, t0 (delay) and dt in seconds; its peak is A at t = t0.
std::vector<double> ricker(double peak_frequency, double delay, double dt, int nt,
                           double amplitude = 1.0);

}  // namespace pwave
