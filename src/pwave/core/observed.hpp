#pragma once
// Observed traces [shot][receiver][time] on the host, wherever they are kept: an array in
// memory (data modelled from a true model, tests), or a file mapped into memory or read on
// demand (io::read_observed_file). Gradients and inversions read them one shot at a time into
// their own buffer of the working precision, so the whole data set is never converted, copied
// or moved to the device: only the shots being propagated are.

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "pwave/core/types.hpp"

namespace pwave {

/// Read-only access to observed traces by shot. Implementations need not be thread-safe.
class ObservedTraces {
 public:
  ObservedTraces(std::size_t shots, std::size_t receivers, std::size_t samples)
      : shots_(shots), receivers_(receivers), samples_(samples) {}
  virtual ~ObservedTraces() = default;

  std::size_t shots() const { return shots_; }
  std::size_t receivers() const { return receivers_; }
  std::size_t samples() const { return samples_; }
  /// Values of one shot: receivers() * samples().
  std::size_t shot_size() const { return receivers_ * samples_; }

  /// Copies the traces of `shot` (receiver-major, time fastest: shot_size() values) into `out`,
  /// converted to the precision of `out`. Throws std::out_of_range for a shot that does not
  /// exist, pwave::RuntimeError when a file cannot be read.
  virtual void read_shot(std::size_t shot, float* out) const = 0;
  virtual void read_shot(std::size_t shot, double* out) const = 0;

 protected:
  void check_shot(std::size_t shot) const {
    if (shot >= shots_) {
      throw std::out_of_range("observed data: no shot " + std::to_string(shot) + " (there are " +
                              std::to_string(shots_) + ")");
    }
  }

 private:
  std::size_t shots_, receivers_, samples_;
};

/// Traces of a host array [shot][receiver][time] (shared with the caller, not copied).
template <class T>
class ObservedArray final : public ObservedTraces {
 public:
  explicit ObservedArray(const HostArray3<T>& a)
      : ObservedTraces(a.extent(0), a.extent(1), a.extent(2)), a_(a) {}
  void read_shot(std::size_t shot, float* out) const override { copy(shot, out); }
  void read_shot(std::size_t shot, double* out) const override { copy(shot, out); }
  const HostArray3<T>& array() const { return a_; }

 private:
  template <class U>
  void copy(std::size_t shot, U* out) const {
    check_shot(shot);
    const T* in = a_.data() + shot * shot_size();
    if (std::is_same<T, U>::value) {
      std::memcpy(static_cast<void*>(out), in, shot_size() * sizeof(T));
    } else {
      for (std::size_t i = 0; i < shot_size(); ++i) out[i] = U(in[i]);
    }
  }
  HostArray3<T> a_;
};

}  // namespace pwave
