#pragma once
// The approximate `full` history of an equation whose gradient images whole states (elastic):
// the state before and the state after every stride-th step, in the run's precision, bfloat16,
// or int8 with one scale per stored state, field and shot.

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "pwave/core/types.hpp"
#include "pwave/propagation/compressed_storage.hpp"
#include "pwave/propagation/storage.hpp"

namespace pwave::propagation {

/// f(std::integral_constant<Compression, c>): the format as a compile-time value.
template <class F>
void with_compression(Compression c, F&& f) {
  if (c == Compression::bf16) {
    f(std::integral_constant<Compression, Compression::bf16>());
  } else if (c == Compression::int8) {
    f(std::integral_constant<Compression, Compression::int8>());
  } else {
    f(std::integral_constant<Compression, Compression::none>());
  }
}

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

/// scale(slot, f, s) = max |field(s, ., .)| / 127 for shot s: one team per shot, written on the
/// device (the time loop does not wait for the host).
template <class T>
struct SampleScale {
  Field<T> field;
  Kokkos::View<float***, Kokkos::LayoutRight, MemSpace> scale;
  int slot, f;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int s = team.league_rank();
    const int cols = int(field.extent(2)), cells = int(field.extent(1)) * cols;
    float peak = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, cells),
        [&](const int c, float& m) {
          const T v = field(s, c / cols, c % cols);
          const float a = float(v < 0 ? -v : v);
          if (a > m) m = a;
        },
        Kokkos::Max<float>(peak));
    Kokkos::single(Kokkos::PerTeam(team), [&]() { scale(slot, f, s) = peak / 127.0f; });
  }
};

/// Stores (Load = false) field(s, r, c) into `slot` in format C, or loads it back times `weight`
/// (Load = true).
template <class T, Compression C, bool Load>
struct SampleCopy {
  Field<T> field;
  SampledField<T> stored;
  Kokkos::View<float***, Kokkos::LayoutRight, MemSpace> scale;
  int slot, f;
  T weight;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int r, int c) const {
    if constexpr (Load) {
      T v;
      if constexpr (C == Compression::none)
        v = stored.plain(slot, s, r, c);
      else if constexpr (C == Compression::bf16)
        v = T(from_bf16(stored.half(slot, s, r, c)));
      else
        v = T(float(stored.bytes(slot, s, r, c)) * scale(slot, f, s));
      field(s, r, c) = weight * v;
    } else {
      const T v = field(s, r, c);
      if constexpr (C == Compression::none) {
        stored.plain(slot, s, r, c) = v;
      } else if constexpr (C == Compression::bf16) {
        stored.half(slot, s, r, c) = to_bf16(float(v));
      } else {
        const float sc = scale(slot, f, s);
        const float q = sc > 0 ? float(v) / sc : 0.0f;
        stored.bytes(slot, s, r, c) = std::int8_t(q < 0 ? q - 0.5f : q + 0.5f);
      }
    }
  }
};

/// Storage::full with a stride or compression for an equation whose imaging reads whole states
/// (every field of its state's checkpointed(), as CheckpointHistory keeps them): the state
/// before step n and the state after it for n = 0, stride, 2 stride, ... The backward run
/// images those steps alone, weighted by stride (approximate: a stride above 1 skips the steps
/// between, a compression rounds the states). With stride 1 the state after step n is the one
/// before step n + 1, kept once. Memory per shot: slots_for(nt, stride) states of the stored
/// format (int8's scales, one float per slot, field and shot, left out).
template <class T>
struct SampledStateHistory {
  int stride = 1;
  Compression compression = Compression::none;
  std::vector<SampledField<T>> fields;  ///< one per checkpointed field (empty ones empty)
  Kokkos::View<float***, Kokkos::LayoutRight, MemSpace> scale;  ///< [slot][field][shot], int8

  /// Stored states of an nt-step run: nt for stride 1, else two per sampled step.
  static int slots_for(int nt, int stride) {
    return stride == 1 ? nt : 2 * ((nt + stride - 1) / stride);
  }
  /// Bytes per shot for the state `st` of an nt-step run with options.stride and
  /// options.compression.
  template <class State>
  static double bytes_per_shot(const State& st, int nt, const StorageOptions& options) {
    double state = 0;
    for (const Field<T>& f : st.checkpointed()) state += double(f.extent(1)) * f.extent(2);
    return slots_for(nt, options.stride) * state * value_bytes(options.compression);
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

  /// Whether step n's states are kept (and imaged).
  bool samples(int n) const { return n % stride == 0; }
  /// The slot of the state before sampled step n, and of the state after it.
  int slot_before(int n) const { return stride == 1 ? n : 2 * (n / stride); }
  int slot_after(int n) const { return stride == 1 ? n + 1 : 2 * (n / stride) + 1; }
  /// Whether forward() stores the state after sampled step n (of nt): not with stride 1 (the
  /// state before step n + 1 is that one), and not after the last step (its images are 0: no
  /// residual has reached the adjoint state then).
  bool stores_after(int n, int nt) const { return stride > 1 && n + 1 < nt; }

  /// The fields of `st` (shots [0, count)) into `slot`.
  template <class State>
  void store(const ExecSpace& exec, const State& st, int slot, int count) const {
    with_compression(compression, [&](auto c) {
      constexpr Compression C = decltype(c)::value;
      for_each_field(st, [&](const Field<T>& field, int f) {
        if constexpr (C == Compression::int8) {
          Kokkos::parallel_for("pwave::propagation::sample_scales",
                               Kokkos::TeamPolicy<ExecSpace>(exec, count, Kokkos::AUTO),
                               SampleScale<T>{field, scale, slot, f});
        }
        launch("pwave::propagation::store_sample", exec, count, field,
               SampleCopy<T, C, false>{field, fields[std::size_t(f)], scale, slot, f, T(1)});
      });
    });
  }
  /// The fields of `st` (shots [0, count)) = weight x the states in `slot`.
  template <class State>
  void load(const ExecSpace& exec, const State& st, int slot, int count, T weight) const {
    with_compression(compression, [&](auto c) {
      constexpr Compression C = decltype(c)::value;
      for_each_field(st, [&](const Field<T>& field, int f) {
        launch("pwave::propagation::load_sample", exec, count, field,
               SampleCopy<T, C, true>{field, fields[std::size_t(f)], scale, slot, f, weight});
      });
    });
  }

 private:
  static double value_bytes(Compression c) {
    return c == Compression::none ? sizeof(T) : c == Compression::bf16 ? 2.0 : 1.0;
  }
  /// f(field, index) for each field of st.checkpointed() that exists.
  template <class State, class F>
  static void for_each_field(const State& st, F&& f) {
    int k = 0;
    for (const Field<T>& field : st.checkpointed()) {
      if (field.size() > 0) f(field, k);
      ++k;
    }
  }
  template <class Copy>
  static void launch(const char* label, const ExecSpace& exec, int count, const Field<T>& field,
                     const Copy& copy) {
    Kokkos::parallel_for(label,
                         Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>(
                             exec, {0, 0, 0}, {count, int(field.extent(1)), int(field.extent(2))}),
                         copy);
  }
};

}  // namespace pwave::propagation
