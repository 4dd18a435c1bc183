#pragma once
// The approximate `full` history of an equation whose gradient images whole states (elastic):
// what every stride-th step's imaging reads of the states before and after it, in the run's
// precision, bfloat16, or int8 with one scale per stored field, slot and shot.

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "pwave/core/types.hpp"
#include "pwave/propagation/compressed_storage.hpp"
#include "pwave/propagation/storage.hpp"

namespace pwave::propagation {

/// One field's stored states [slot][shot][rows][cols] in each format (one of them allocated)
/// and the int8 scales of all fields [slot][field][shot].
template <class T>
struct SampledField {
  template <class V>
  using Slots = Kokkos::View<V****, Kokkos::LayoutRight, MemSpace>;
  Slots<T> plain;
  Slots<std::uint16_t> half;
  Slots<std::int8_t> bytes;
};

/// The bits of |v| as an unsigned integer: non-negative floats order as their bits do, and an
/// integer maximum vectorises on hosts where a floating-point one does not.
template <class T>
KOKKOS_INLINE_FUNCTION auto magnitude_bits(T v) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  union {
    T t;
    Bits b;
  } u{v};
  return Bits(u.b & (~Bits(0) >> 1));
}
template <class T, class Bits>
KOKKOS_INLINE_FUNCTION T from_magnitude_bits(Bits b) {
  union {
    Bits b;
    T t;
  } u{b};
  return u.t;
}

/// scale(slot, f, s) = max |field(s, ., .)| / 127 for shot s (`cells` values from `field`, shot
/// after shot): one team per shot, written on the device (the time loop does not wait for the
/// host).
template <class T>
struct SampleScale {
  const T* field;
  long cells;
  Kokkos::View<float***, Kokkos::LayoutRight, MemSpace> scale;
  int slot, f;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    using Bits = decltype(magnitude_bits(T()));
    const int s = team.league_rank();
    const T* const shot = field + s * cells;
    Bits peak = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, cells),
        [&](const long c, Bits& m) {
          const Bits b = magnitude_bits(shot[c]);
          m = b > m ? b : m;
        },
        Kokkos::Max<Bits>(peak));
    Kokkos::single(Kokkos::PerTeam(team),
                   [&]() { scale(slot, f, s) = float(from_magnitude_bits<T>(peak)) / 127.0f; });
  }
};

/// Stores (Load = false) a field's first shots (`cells` values per shot, contiguous) into its
/// slot in format C, or loads them back times `weight` (Load = true): the slot's values at
/// plain, half or bytes (the one of C), int8's scales of the slot and field at scale[shot]. One
/// team per block of a shot's values, so that the scale is found once per team.
template <class T, Compression C, bool Load>
struct SampleCopy {
  static constexpr long block = 8192;  ///< values per team
  T* field;
  T* plain;
  std::uint16_t* half;
  std::int8_t* bytes;
  const float* scale;
  long cells;
  T weight;

  /// Teams for `count` shots.
  int teams(int count) const { return count * int((cells + block - 1) / block); }
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const long blocks = (cells + block - 1) / block;
    const long s = team.league_rank() / blocks, b = team.league_rank() % blocks;
    const long first = s * cells + b * block;
    const long last = s * cells + (b + 1 < blocks ? (b + 1) * block : cells);
    const float sc = C == Compression::int8 ? scale[s] : 0.0f;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last),
                         [&](const long i) { at(i, sc); });
  }
  KOKKOS_INLINE_FUNCTION void at(long i, float sc) const {
    if constexpr (Load) {
      T v;
      if constexpr (C == Compression::none)
        v = plain[i];
      else if constexpr (C == Compression::bf16)
        v = T(from_bf16(half[i]));
      else
        v = T(from_int8(bytes[i], sc));
      field[i] = weight * v;
    } else {
      const T v = field[i];
      if constexpr (C == Compression::none) {
        plain[i] = v;
      } else if constexpr (C == Compression::bf16) {
        half[i] = to_bf16(float(v));
      } else {
        bytes[i] = to_int8(float(v), sc);
      }
    }
  }
};

/// Storage::full with a stride or compression for an equation whose imaging reads whole states
/// (the fields of its state's checkpointed(), as CheckpointHistory keeps them): for n = 0,
/// stride, 2 stride, ..., in slot n / stride, the fields step n's imaging reads from the state
/// before the step and those it reads from the state after it (State::imaged_after(k) tells
/// which): together one state per slot. The backward run decodes a slot into one state and
/// images those steps alone, weighted by stride (approximate: a stride above 1 skips the steps
/// between, a compression rounds the states). Memory per shot: ceil(nt / stride) states of the
/// stored format (int8's scales, one float per slot, field and shot, left out).
template <class T>
struct SampledStateHistory {
  int stride = 1;
  Compression compression = Compression::none;
  std::vector<SampledField<T>> fields;  ///< one per checkpointed field (empty ones empty)
  Kokkos::View<float***, Kokkos::LayoutRight, MemSpace> scale;  ///< [slot][field][shot], int8

  /// Slots of an nt-step run: one per imaged step.
  static int slots_for(int nt, int stride) { return (nt + stride - 1) / stride; }
  /// Bytes per shot for the state `st` of an nt-step run with options.stride and
  /// options.compression.
  template <class State>
  static double bytes_per_shot(const State& st, int nt, const StorageOptions& options) {
    double state = 0;
    for (const Field<T>& f : st.checkpointed()) state += double(f.extent(1)) * f.extent(2);
    return slots_for(nt, options.stride) * state *
           stored_value_bytes(options.compression, sizeof(T));
  }
  /// Room for `count` shots (the shots of `st`) of an nt-step run, uninitialised (forward()
  /// writes every slot before the backward run reads it).
  template <class State>
  static SampledStateHistory allocate(const State& st, int nt, int count,
                                      const StorageOptions& options) {
    SampledStateHistory h;
    h.stride = options.stride;
    h.compression = options.compression;
    const int slots = slots_for(nt, h.stride);
    int k = 0;
    for (const Field<T>& f : st.checkpointed()) {
      SampledField<T> s;
      if (f.size() > 0) {
        const auto uninit = [&](const char* format) {
          return Kokkos::view_alloc("pwave::sampled_" + std::string(format) + "_" + f.label(),
                                    Kokkos::WithoutInitializing);
        };
        const int rows = int(f.extent(1)), cols = int(f.extent(2));
        if (h.compression == Compression::none) {
          s.plain = decltype(s.plain)(uninit("state"), slots, count, rows, cols);
        } else if (h.compression == Compression::bf16) {
          s.half = decltype(s.half)(uninit("bf16"), slots, count, rows, cols);
        } else {
          s.bytes = decltype(s.bytes)(uninit("int8"), slots, count, rows, cols);
        }
      }
      h.fields.push_back(s);
      ++k;
    }
    if (h.compression == Compression::int8) {
      h.scale = decltype(h.scale)("pwave::sampled_scale", slots, k, count);
    }
    return h;
  }
  /// Whether it has room for `count` shots of an nt-step run.
  bool holds(int nt, int count) const {
    for (const SampledField<T>& f : fields) {
      const std::size_t slots = f.plain.extent(0) + f.half.extent(0) + f.bytes.extent(0);
      const std::size_t shots = f.plain.extent(1) + f.half.extent(1) + f.bytes.extent(1);
      if (slots == 0) continue;
      return int(slots) == slots_for(nt, stride) && int(shots) >= count;
    }
    return false;
  }

  /// Whether step n's fields are kept (and it is imaged), and their slot.
  bool samples(int n) const { return n % stride == 0; }
  int slot(int n) const { return n / stride; }

  /// The fields of `st` (shots [0, count)) that the imaging reads from the state after a step
  /// (`after`) or before it (State::imaged_after) into slot `slot`.
  template <class State>
  void store(const ExecSpace& exec, const State& st, int slot, int count, bool after) const {
    with_compression(compression, [&](auto c) {
      constexpr Compression C = decltype(c)::value;
      for_each_field(st, [&](const Field<T>& field, int f) {
        if (State::imaged_after(f) != after) return;
        const SampleCopy<T, C, false> copy = copy_of<C, false>(field, f, slot, T(1));
        if constexpr (C == Compression::int8) {
          Kokkos::parallel_for("pwave::propagation::sample_scales",
                               Kokkos::TeamPolicy<ExecSpace>(exec, count, Kokkos::AUTO),
                               SampleScale<T>{field.data(), copy.cells, scale, slot, f});
        }
        launch("pwave::propagation::store_sample", exec, count, copy);
      });
    });
  }
  /// Every field of `st` (shots [0, count)) = weight x its value in slot `slot`.
  template <class State>
  void load(const ExecSpace& exec, const State& st, int slot, int count, T weight) const {
    with_compression(compression, [&](auto c) {
      constexpr Compression C = decltype(c)::value;
      for_each_field(st, [&](const Field<T>& field, int f) {
        launch("pwave::propagation::load_sample", exec, count,
               copy_of<C, true>(field, f, slot, weight));
      });
    });
  }

 private:
  /// f(field, index) for each field of st.checkpointed() that exists.
  template <class State, class F>
  static void for_each_field(const State& st, F&& f) {
    int k = 0;
    for (const Field<T>& field : st.checkpointed()) {
      if (field.size() > 0) f(field, k);
      ++k;
    }
  }
  /// The copy of field f (checkpointed()'s index) to or from slot `slot`: the slot's first
  /// value of the format in use, and its int8 scales.
  template <Compression C, bool Load>
  SampleCopy<T, C, Load> copy_of(const Field<T>& field, int f, int slot, T weight) const {
    const SampledField<T>& s = fields[std::size_t(f)];
    SampleCopy<T, C, Load> copy{field.data(), nullptr,
                                nullptr,      nullptr,
                                nullptr,      long(field.extent(1)) * long(field.extent(2)),
                                weight};
    // Pointer arithmetic on the host (device views are not dereferenced here).
    if constexpr (C == Compression::none) copy.plain = s.plain.data() + slot * s.plain.stride(0);
    if constexpr (C == Compression::bf16) copy.half = s.half.data() + slot * s.half.stride(0);
    if constexpr (C == Compression::int8) {
      copy.bytes = s.bytes.data() + slot * s.bytes.stride(0);
      copy.scale = scale.data() + slot * scale.stride(0) + f * scale.stride(1);
    }
    return copy;
  }
  /// One launch over the values of shots [0, count) (contiguous: the shot is a field's first
  /// index, LayoutRight).
  template <class Copy>
  static void launch(const char* label, const ExecSpace& exec, int count, const Copy& copy) {
    Kokkos::parallel_for(
        label, Kokkos::TeamPolicy<ExecSpace>(exec, copy.teams(count), Kokkos::AUTO), copy);
  }
};

/// The forward loop's keeper of a SampledStateHistory (forward_loop.hpp): for every sampled
/// step n, the fields its imaging reads of the state before it (`steps.fields(p)`) and after it
/// (`steps.fields(p ^ 1)`, the state step n + 1 starts from), shots [0, count).
template <class T, class Steps>
struct KeepSamples {
  const SampledStateHistory<T>& history;
  const Steps& steps;
  int count;
  void before(const ExecSpace& exec, int p, int n) const {
    if (history.samples(n)) history.store(exec, steps.fields(p), history.slot(n), count, false);
  }
  void after(const ExecSpace& exec, int p, int n) const {
    if (history.samples(n)) history.store(exec, steps.fields(p ^ 1), history.slot(n), count, true);
  }
  void finish(const ExecSpace&, int, int) const {}
};

}  // namespace pwave::propagation
