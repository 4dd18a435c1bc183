#pragma once
// The approximate `full` history: the second time difference D^n = u^{n+1} - 2u^n + u^{n-1}
// (= w (L u^n + f^n), what the imaging condition needs) kept every stride-th step, stored in
// the run's precision, bfloat16, or int8 with a per-snapshot scale.

#include <cstdint>
#include <string>
#include <type_traits>

#include "pwave/physics/acoustic/kernels.hpp"
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

/// bfloat16 from a float: round to nearest even on the upper 16 bits (finite values).
KOKKOS_INLINE_FUNCTION std::uint16_t to_bf16(float f) {
  union {
    float f;
    std::uint32_t u;
  } v{f};
  const std::uint32_t rounding = 0x7FFFu + ((v.u >> 16) & 1u);
  return std::uint16_t((v.u + rounding) >> 16);
}
KOKKOS_INLINE_FUNCTION float from_bf16(std::uint16_t h) {
  union {
    std::uint32_t u;
    float f;
  } v{std::uint32_t(h) << 16};
  return v.f;
}
/// int8 of v with the scale `scale` (max |v| / 127 of its set): v / scale rounded half away from
/// zero; 0 for a zero scale (a set of zeros).
KOKKOS_INLINE_FUNCTION std::int8_t to_int8(float v, float scale) {
  const float q = scale > 0 ? v / scale : 0.0f;
  return std::int8_t(q < 0 ? q - 0.5f : q + 0.5f);
}
KOKKOS_INLINE_FUNCTION float from_int8(std::int8_t q, float scale) {
  return float(q) * scale;
}

/// The approximate `full` history (Storage::full with a stride or compression): D^n of the
/// stored steps n = 0, stride, 2 stride, ... on the padded grid (2D), in one of three arrays
/// (the one of `compression`). Memory: ceil(nt / stride) grids of the stored format plus one
/// wavefield (u^{n-1}) per shot.
template <class T>
struct DifferenceHistory {
  int stride = 1;
  Compression compression = Compression::none;
  Kokkos::View<T****, Kokkos::LayoutRight, MemSpace> plain;             ///< [k][shot][z][x]
  Kokkos::View<std::uint16_t****, Kokkos::LayoutRight, MemSpace> half;  ///< bf16
  Kokkos::View<std::int8_t****, Kokkos::LayoutRight, MemSpace> bytes;   ///< int8
  Kokkos::View<float**, Kokkos::LayoutRight, MemSpace> scale;           ///< [k][shot], int8
  Field<T> previous;  ///< u^{n-1} of the next stored step, kept one step

  /// Bytes per shot for the state `st` of an nt-step run with options.stride and
  /// options.compression: the stored steps and u^{n-1} (int8's scales, one float per stored
  /// step, are left out).
  static double bytes_per_shot(const physics::AcousticState<T>& st, int nt,
                               const StorageOptions& options) {
    const double stored = (nt + options.stride - 1) / options.stride;
    return stored * st.nz * st.nx * stored_value_bytes(options.compression, sizeof(T)) +
           double(st.u_cur.extent(1)) * st.u_cur.extent(2) * sizeof(T);
  }
  /// Room for `count` shots of an nt-step run on the padded grid of `st` with options.stride
  /// (at least 1) and options.compression; the stored steps uninitialised (forward() writes
  /// each before the backward run reads it).
  static DifferenceHistory allocate(const physics::AcousticState<T>& st, int nt, int count,
                                    const StorageOptions& options) {
    const auto uninit = [](const char* name) {
      return Kokkos::view_alloc(std::string(name), Kokkos::WithoutInitializing);
    };
    DifferenceHistory d;
    d.stride = options.stride;
    d.compression = options.compression;
    const int stored = (nt + d.stride - 1) / d.stride;
    d.previous = Field<T>("pwave::history_previous", count, st.u_cur.extent(1), st.u_cur.extent(2));
    if (d.compression == Compression::none) {
      d.plain = decltype(d.plain)(uninit("pwave::history_d"), stored, count, st.nz, st.nx);
    } else if (d.compression == Compression::bf16) {
      d.half = decltype(d.half)(uninit("pwave::history_bf16"), stored, count, st.nz, st.nx);
    } else {
      d.bytes = decltype(d.bytes)(uninit("pwave::history_int8"), stored, count, st.nz, st.nx);
      d.scale = decltype(d.scale)("pwave::history_scale", stored, count);
    }
    return d;
  }
  /// Whether it has room for `count` shots.
  bool holds(int /*nt*/, int count) const { return int(previous.extent(0)) >= count; }
};

/// Writes D = u^{n+1} - 2u^n + u^{n-1} of stored step k (fields in halo layout), in format C.
template <class T, Compression C>
struct StoreDifference {
  DifferenceHistory<T> h;
  Field<T> u_next, u_cur;
  int k, halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    const int z = iz + halo, x = ix + halo;
    const T d = u_next(s, z, x) - T(2) * u_cur(s, z, x) + h.previous(s, z, x);
    if constexpr (C == Compression::none) {
      h.plain(k, s, iz, ix) = d;
    } else if constexpr (C == Compression::bf16) {
      h.half(k, s, iz, ix) = to_bf16(float(d));
    } else {
      h.bytes(k, s, iz, ix) = to_int8(float(d), h.scale(k, s));
    }
  }
};

/// Imaging for stored step k: acc += stride * G^{n+1} D^n (see AccumulateGradient).
template <class T, Compression C>
struct AccumulateDifference {
  DifferenceHistory<T> h;
  Field<T> acc, g;
  int k, halo;
  KOKKOS_INLINE_FUNCTION void operator()(int s, int iz, int ix) const {
    T d;
    if constexpr (C == Compression::none)
      d = h.plain(k, s, iz, ix);
    else if constexpr (C == Compression::bf16)
      d = T(from_bf16(h.half(k, s, iz, ix)));
    else
      d = T(from_int8(h.bytes(k, s, iz, ix), h.scale(k, s)));
    acc(s, iz, ix) += T(h.stride) * g(s, iz + halo, ix + halo) * d;
  }
};

}  // namespace pwave::propagation
