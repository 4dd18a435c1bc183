#pragma once
// SEG-Y output of shot gathers (through segyio).

#include <string>
#include <vector>

#include "pwave/acquisition/geometry.hpp"

namespace pwave::io {

/// Writes traces [shot][receiver][time] (float32 IEEE, big-endian SEG-Y rev 1) atomically:
/// shots[s].receivers.size() traces of shot s (rows past them, padding of a shot with fewer
/// receivers than `nreceivers`, are not written).
/// Each trace header carries: FieldRecord = shot+1, TraceNumber = receiver+1, SourceX, SourceY,
/// GroupX, GroupY in centimetres with scalar -100 (SourceGroupScalar), SourceDepth and
/// ReceiverGroupElevation (-z), offset, sample interval (microseconds) and sample count; `dt` is
/// in seconds. SourceY / GroupY hold the depth z in 2D and the y coordinate when `three_d`;
/// offset is receiver x - source x (2D) or the horizontal distance (3D), in whole metres.
/// Throws RuntimeError.
void write_shot_gathers_segy(const std::string& path, const float* traces, int nshots,
                             int nreceivers, int nt, double dt,
                             const std::vector<ShotGeometry>& shots, bool three_d = false);

}  // namespace pwave::io
