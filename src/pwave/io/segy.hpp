#pragma once
// SEG-Y output of shot gathers (through segyio).

#include <string>
#include <vector>

#include "pwave/acquisition/geometry.hpp"

namespace pwave::io {

/// Writes traces [shot][receiver][time] (float32 IEEE, big-endian SEG-Y rev 1) atomically.
/// Each trace header carries: FieldRecord = shot+1, TraceNumber = receiver+1, SourceX/SourceY(=z)
/// ... in centimetres with scalar -100 (SourceGroupScalar), GroupX, GroupY, offset, sample
/// interval (microseconds) and sample count; `dt` is in seconds. Throws RuntimeError.
void write_shot_gathers_segy(const std::string& path, const float* traces, int nshots,
                             int nreceivers, int nt, double dt,
                             const std::vector<ShotGeometry>& shots);

}  // namespace pwave::io
