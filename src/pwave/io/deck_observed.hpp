#pragma once
// Observed data files of gradient and fwi decks: [shot][receiver][time] as .npy, or as a SEG-Y
// file of shot gathers (segy_gathers.hpp: gathers and geometry from the trace headers).
// Neither is loaded: a .npy file is memory-mapped and its values read in place, in the file's
// own dtype; a SEG-Y file is indexed once and its traces read shot by shot when needed. So a
// rank's memory holds the shots it propagates, never the whole data set.

#include <cstddef>
#include <string>
#include <vector>

#include "pwave/acquisition/geometry.hpp"
#include "pwave/core/observed.hpp"
#include "pwave/io/deck.hpp"
#include "pwave/io/mapped_file.hpp"
#include "pwave/io/npy.hpp"
#include "pwave/io/segy_gathers.hpp"

namespace pwave::io {

/// A C-order .npy array of float32 or float64 [shot][receiver][time] in native byte order,
/// mapped read-only. Reading a shot converts it to the caller's precision and then gives its
/// pages back (MappedFile::release), so touching shot after shot over an inversion does not
/// grow the process's resident set to the whole file.
class MappedNpyTraces final : public ObservedTraces {
 public:
  template <class V>
  using InPlace = Kokkos::View<const V***, Kokkos::LayoutRight, HostSpace,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  /// Takes over `file` and its parsed header (parse_npy_header, which checked the file's
  /// length). Throws InputError(key "", where = file.path()) for anything but a 3D C-order
  /// float32/float64 array in native byte order.
  MappedNpyTraces(MappedFile file, NpyHeader header);

  /// "<f4" or "<f8" (as stored).
  const std::string& dtype() const { return header_.dtype; }
  bool holds_float64() const { return header_.item_size == 8; }
  /// The values in place (unmanaged host Views into the mapping; empty for the other dtype).
  /// Valid while this object lives.
  InPlace<float> float32() const;
  InPlace<double> float64() const;

  void read_shot(std::size_t shot, float* out) const override;
  void read_shot(std::size_t shot, double* out) const override;

 private:
  template <class U>
  void copy(std::size_t shot, U* out) const;
  MappedFile file_;
  NpyHeader header_;
};

/// Opens `path` as "npy" or "segy": checks its structure and returns its shape and a reader
/// (`traces`, null when the shape is not 3D: the caller reports the shape). Values are not
/// read here (see check_observed_values). A SEG-Y file may be big- or little-endian (detected
/// from its binary header). A .npy file must hold a 3D C-order float32 or float64
/// array in native byte order. A SEG-Y file's traces are grouped into shots by FieldRecord (one
/// group per run of equal values; DeckObserved::shot_traces counts each group's traces). `dt`
/// (seconds) is checked against the SEG-Y sample interval when the file gives one; a recording
/// delay (trace byte 109, one for the whole file) needs options.resample, which shifts the
/// traces onto t = 0, dt, ... (SegyOptions). With `geometry`, every trace of a gather must have
/// the source of its first trace.
/// Throws InputError(key = "", where = path) saying what is wrong.
/// With `geometry` (SEG-Y only), the acquisition comes from the trace headers (`options`): each
/// gather is a shot, its source at (SourceX, SourceY) and datum - SurfaceElevationAtSource +
/// SourceDepth, its receivers at (GroupX, GroupY) and datum - ReceiverGroupElevation, scaled by
/// the scalars (negative: divide, positive: multiply, 0: an error unless the scalar byte is 0).
/// Model x = X (2D; Y is not read) or (x, y) = (X, Y) (3D), or with `rotate`
///   x = (X - x0) sin(azimuth) + (Y - y0) cos(azimuth),
///   y = -(X - x0) cos(azimuth) + (Y - y0) sin(azimuth)  (3D; in 2D the distance off the line).
/// Receivers outside the grid are an error naming the trace, or left out with drop_outside
/// (the traces are then skipped when reading: each shot reads its own list of traces).
DeckObserved read_observed_file(const std::string& path, const std::string& format, double dt,
                                const SegyOptions& options = {},
                                HeaderGeometry* geometry = nullptr);

/// Checks that the observed values of shots [first_shot, last_shot) are finite, reading one shot
/// at a time (the driver does with gradient.selection.dead_traces: keep; with exclude, traces
/// holding NaN/Inf are left out of the misfit and counted). Several ranks can share the work
/// (observed_check_range): each reads only its part. Throws InputError("observed.file",
/// observed.where, "<file>: value N (C order) is not finite").
void check_observed_values(const DeckObserved& observed, std::size_t first_shot,
                           std::size_t last_shot);

/// The shots rank `rank` of `size` checks: contiguous slices that together cover every shot.
std::pair<std::size_t, std::size_t> observed_check_range(std::size_t shots, int rank, int size);

}  // namespace pwave::io
