#pragma once
// Zero-phase low-pass filtering of traces and wavelets for multiscale inversion.

#include <vector>

#include "pwave/core/types.hpp"

namespace pwave {

/// 4th-order Butterworth low-pass (two biquads, bilinear transform) run forwards and backwards
/// (zero phase, effective order 8). cutoff in Hz (-6 dB point), dt in seconds.
std::vector<double> lowpass(const std::vector<double>& x, double cutoff, double dt);

/// Filters every trace of [shot][receiver][time] data in place.
template <class T>
void lowpass_traces(const HostArray3<T>& data, double cutoff, double dt);

}  // namespace pwave
