#pragma once
// SEG-Y output of shot gathers (through segyio).

#include <string>
#include <vector>

#include "pwave/acquisition/geometry.hpp"
#include "pwave/core/types.hpp"
#include "pwave/io/segy_gathers.hpp"

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

/// Writes synthetic traces [shot][receiver][time] (time.nt samples at `dt`, from t = 0) of the
/// shots `observed` holds as a SEG-Y file laid out as the observed file: the traces read as
/// observed data (SegyTraces::file_traces: each shot's, in order; traces left out of the
/// acquisition are left out here too), each with the trace header of the observed trace it
/// models copied byte for byte except the sample count (byte 115) and interval (117), which are
/// set to the file's; its samples resampled (TraceResampler) onto the file's own time axis
/// (its sample interval and count, starting at its recording delay, byte 109), the reverse of
/// what observed.resample does when reading, or copied when the axes are the same. The binary
/// header is the observed file's with IEEE float32 samples (format 5), big-endian, no extended
/// textual headers; the textual header says what the file is. Atomic (AtomicFile). Throws
/// RuntimeError.
template <class T>
void write_synthetic_segy(const std::string& path, const SegyTraces& observed,
                          const HostArray3<T>& synthetic, double dt);

}  // namespace pwave::io
