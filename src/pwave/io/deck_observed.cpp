#include "pwave/io/deck_observed.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

#include "pwave/core/error.hpp"
#include "pwave/io/segy_gathers.hpp"

namespace pwave::io {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("", path, what);
}

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string s;
  for (std::size_t v : shape) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "[" + s + "]";
}

// Why a .npy file cannot be read in place, with the numpy line that fixes it; "" if it can.
std::string unmappable(const NpyHeader& h) {
  const std::string resave =
      "; observed data are read in place from the file: re-save it with "
      "np.save(name, np.ascontiguousarray(a, dtype='<f4'))";
  if (h.kind != 'f') return "holds " + h.dtype + " integers, not float32 or float64" + resave;
  if (!h.native_byte_order) {
    return "holds " + h.dtype + " values in the other byte order than this machine's" + resave;
  }
  if (h.fortran_order)
    return "is stored in Fortran order (fortran_order: True), not C order" + resave;
  if (h.data_offset % h.item_size != 0) {
    return "has its data at byte " + std::to_string(h.data_offset) + ", not aligned to its values" +
           resave;
  }
  return "";
}

DeckObserved read_npy_traces(const std::string& path) {
  MappedFile file(path);
  const NpyHeader header = parse_npy_header(file.data(), file.size(), path);
  DeckObserved out;
  out.shape = header.shape;
  // Another shape is reported by the caller, with the shape the acquisition needs.
  if (header.shape.size() == 3) {
    out.traces = std::make_shared<MappedNpyTraces>(std::move(file), header);
  } else {
    const std::string why = unmappable(header);
    if (!why.empty()) fail(path, why);
  }
  return out;
}

}  // namespace

MappedNpyTraces::MappedNpyTraces(MappedFile file, NpyHeader header)
    : ObservedTraces(header.shape.size() == 3 ? header.shape[0] : 0,
                     header.shape.size() == 3 ? header.shape[1] : 0,
                     header.shape.size() == 3 ? header.shape[2] : 0),
      file_(std::move(file)),
      header_(std::move(header)) {
  const std::string why = unmappable(header_);
  if (!why.empty()) fail(file_.path(), why);
  if (header_.shape.size() != 3) {
    fail(file_.path(),
         "holds an array of shape " + shape_text(header_.shape) + ", not [shot, receiver, time]");
  }
}

MappedNpyTraces::InPlace<float> MappedNpyTraces::float32() const {
  if (holds_float64() || header_.count == 0) return {};
  return InPlace<float>(reinterpret_cast<const float*>(file_.data() + header_.data_offset), shots(),
                        receivers(), samples());
}

MappedNpyTraces::InPlace<double> MappedNpyTraces::float64() const {
  if (!holds_float64() || header_.count == 0) return {};
  return InPlace<double>(reinterpret_cast<const double*>(file_.data() + header_.data_offset),
                         shots(), receivers(), samples());
}

template <class U>
void MappedNpyTraces::copy(std::size_t shot, U* out) const {
  check_shot(shot);
  const std::size_t n = shot_size();
  const std::size_t offset = header_.data_offset + shot * n * header_.item_size;
  if (holds_float64()) {
    const double* in = reinterpret_cast<const double*>(file_.data() + offset);
    for (std::size_t i = 0; i < n; ++i) out[i] = U(in[i]);
  } else {
    const float* in = reinterpret_cast<const float*>(file_.data() + offset);
    for (std::size_t i = 0; i < n; ++i) out[i] = U(in[i]);
  }
  file_.release(offset, n * header_.item_size);
}

void MappedNpyTraces::read_shot(std::size_t shot, float* out) const {
  copy(shot, out);
}
void MappedNpyTraces::read_shot(std::size_t shot, double* out) const {
  copy(shot, out);
}

DeckObserved read_observed_file(const std::string& path, const std::string& format, double dt,
                                const SegyOptions& options, HeaderGeometry* geometry) {
  if (geometry && (format != "segy" || !options.grid)) {
    fail(path, "the acquisition can be read from SEG-Y trace headers only");
  }
  DeckObserved out =
      format == "segy" ? read_segy_gathers(path, dt, options, geometry) : read_npy_traces(path);
  out.file = path;
  out.format = format;
  return out;
}

std::pair<std::size_t, std::size_t> observed_check_range(std::size_t shots, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size) return {0, 0};
  return {shots * std::size_t(rank) / std::size_t(size),
          shots * std::size_t(rank + 1) / std::size_t(size)};
}

void check_observed_values(const DeckObserved& observed, std::size_t first_shot,
                           std::size_t last_shot) {
  if (!observed.traces) return;
  const ObservedTraces& t = *observed.traces;
  last_shot = std::min(last_shot, t.shots());
  std::vector<double> shot(t.shot_size());
  for (std::size_t s = first_shot; s < last_shot; ++s) {
    t.read_shot(s, shot.data());
    for (std::size_t i = 0; i < shot.size(); ++i) {
      if (!std::isfinite(shot[i])) {
        throw InputError("observed.file", observed.where,
                         observed.file + ": value " + std::to_string(s * t.shot_size() + i) +
                             " (C order) is not finite (gradient.selection.dead_traces: "
                             "exclude leaves such traces out)");
      }
    }
  }
}

}  // namespace pwave::io
