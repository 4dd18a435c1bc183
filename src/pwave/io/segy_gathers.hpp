#pragma once
// SEG-Y files of shot gathers read as observed data: gathers found from the trace headers,
// the acquisition taken from them when asked, traces read shot by shot (resampled onto the
// simulation's time axis when asked).

#include <segyio/segy.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "pwave/acquisition/geometry.hpp"
#include "pwave/core/observed.hpp"
#include "pwave/io/deck.hpp"
#include "pwave/io/segy_file.hpp"
#include "pwave/io/trace_resampler.hpp"

namespace pwave::io {

/// Trace header bytes (1-based, as in the SEG-Y standard; segyio's field constants are these
/// numbers) of a SEG-Y file's gathers and geometry. 0 for a scalar: the file has none
/// (coordinates, or elevations and depths, as stored).
struct SegyHeaderBytes {
  int shot = 9;                 ///< FieldRecord: gathers are runs of equal values
  int source_x = 73;            ///< SourceX
  int source_y = 77;            ///< SourceY
  int group_x = 81;             ///< GroupX
  int group_y = 85;             ///< GroupY
  int scalar = 71;              ///< SourceGroupScalar (coordinates)
  int elevation_scalar = 69;    ///< ElevationScalar (elevations and depths)
  int receiver_elevation = 41;  ///< ReceiverGroupElevation
  int source_elevation = 45;    ///< SurfaceElevationAtSource
  int source_depth = 49;        ///< SourceDepth
};

/// How a SEG-Y file's traces make gathers and, when asked, the acquisition.
struct SegyOptions {
  SegyHeaderBytes bytes;
  bool gather_by_source = false;  ///< gathers: runs of equal (SourceX, SourceY), not of `shot`
  /// Resample every trace to `nt` samples at read_observed_file's `dt` when the file's sample
  /// interval, count or recording delay differ (TraceResampler); else a different interval or
  /// a nonzero delay is an error.
  bool resample = false;
  int nt = 0;
  // The acquisition from the headers (read_observed_file's `geometry` given):
  const Grid* grid = nullptr;  ///< the model: positions are checked inside it
  double datum = 0.0;          ///< m: z = datum - elevation (+ source depth)
  bool rotate = false;         ///< map survey (X, Y) with origin and azimuth
  double x0 = 0.0, y0 = 0.0;   ///< survey coordinates of model (x, y) = (0, 0)
  double azimuth = 90.0;       ///< degrees clockwise from north (+Y) of the model's x axis
  bool drop_outside = false;   ///< leave out receivers outside the model (else an error)
};

/// Whether `byte` (1-based) starts a SEG-Y trace header field that segyio reads.
bool segy_trace_field(int byte);

/// The acquisition read from SEG-Y trace headers: one shot per gather, and what to log.
struct HeaderGeometry {
  std::vector<ShotGeometry> shots;
  std::vector<std::string> notes;     ///< the geometry summary (log lines)
  std::vector<std::string> warnings;  ///< traces dropped, far off the line, ...
};

/// A SEG-Y file of shot gathers, indexed once (trace headers: shots, sample count, interval)
/// and read one shot at a time with segyio. SEG-Y values are big-endian (often IBM floats) and
/// every trace has a header in front, so they cannot be used in place as a .npy file can; a
/// shot's traces are decoded into a small buffer instead. Shots may hold different numbers of
/// traces: a shot is read into receivers() rows, those past its own traces zero. A shot's
/// traces are a list of the file's trace numbers (traces left out of the acquisition are
/// skipped). Made by read_observed_file; a writer of synthetics on the data's own axis and
/// headers (write_synthetic_segy, segy.hpp) asks it for the traces it read.
class SegyTraces final : public ObservedTraces {
 public:
  /// How the file is laid out (segyio's reading parameters).
  struct Layout {
    std::string path;
    int format = SEGY_IEEE_FLOAT_4_BYTE;  ///< sample format code (1 IBM, 5 IEEE)
    bool little_endian = false;
    long trace0 = 0;      ///< byte offset of the first trace
    int trace_bsize = 0;  ///< bytes of one trace's samples
    /// The file's time axis: its sample count and interval (s), and `start` the recording
    /// delay (trace byte 109, s) of its traces.
    TimeAxis axis;
  };

  /// `index`: the file's traces (0-based) of every shot in turn; `first`: where each shot's list
  /// starts in `index`, and index.size() (shots + 1). `resampler`: from the file's axis to the
  /// simulation's (null: the file's samples as they are).
  SegyTraces(std::unique_ptr<segy_file, SegyCloser> fp, Layout layout, std::vector<int> index,
             std::vector<std::size_t> first, std::size_t receivers, std::size_t samples,
             std::shared_ptr<const TraceResampler> resampler);

  void read_shot(std::size_t shot, float* out) const override { copy(shot, out); }
  void read_shot(std::size_t shot, double* out) const override { copy(shot, out); }

  const Layout& layout() const { return layout_; }
  /// The file's traces (0-based, file order) read as shot `shot`'s receivers, in order.
  std::vector<int> file_traces(std::size_t shot) const;
  /// The 240-byte header of the file's trace `trace` (0-based), fields big-endian as segyio's
  /// segy_get_field reads them. Throws RuntimeError.
  void read_trace_header(int trace, char* header) const;
  /// The 400-byte binary header (fields big-endian, as segyio's segy_get_bfield reads them).
  /// Throws RuntimeError.
  void read_binary_header(char* header) const;

 private:
  template <class U>
  void copy(std::size_t shot, U* out) const;
  std::unique_ptr<segy_file, SegyCloser> fp_;
  Layout layout_;
  std::vector<int> index_;
  std::vector<std::size_t> first_;
  std::shared_ptr<const TraceResampler> resampler_;  // null: the file's samples as they are
  mutable std::vector<float> buf_;                   // one trace; read_shot is not thread-safe
  mutable std::vector<double> resampled_;
};

/// Indexes the SEG-Y file `path` as observed data (read_observed_file, deck_observed.hpp, says
/// what is checked and how the geometry is read). Throws InputError(key "", where = path).
DeckObserved read_segy_gathers(const std::string& path, double dt, const SegyOptions& options,
                               HeaderGeometry* geometry);

}  // namespace pwave::io
