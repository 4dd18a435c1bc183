#pragma once
// Central finite-difference coefficients for orders 2, 4, 6 and 8.

#include <type_traits>

#include "pwave/core/kokkos_compat.hpp"

namespace pwave::physics {

/// Coefficients of an order-`Order` central stencil, radius Order/2:
///   d2u/dx2 ~ (c2[0] u_i + sum_j c2[j] (u_{i+j} + u_{i-j})) / h^2
///   du/dx   ~ (sum_j c1[j] (u_{i+j} - u_{i-j})) / h          (c1[0] = 0)
template <int Order>
struct Stencil;

template <>
struct Stencil<2> {
  static constexpr int radius = 1;
  KOKKOS_INLINE_FUNCTION static constexpr double c2(int j) { return j == 0 ? -2.0 : 1.0; }
  KOKKOS_INLINE_FUNCTION static constexpr double c1(int j) { return j == 1 ? 0.5 : 0.0; }
};

template <>
struct Stencil<4> {
  static constexpr int radius = 2;
  KOKKOS_INLINE_FUNCTION static constexpr double c2(int j) {
    return j == 0 ? -5.0 / 2.0 : j == 1 ? 4.0 / 3.0 : -1.0 / 12.0;
  }
  KOKKOS_INLINE_FUNCTION static constexpr double c1(int j) {
    return j == 1 ? 2.0 / 3.0 : j == 2 ? -1.0 / 12.0 : 0.0;
  }
};

template <>
struct Stencil<6> {
  static constexpr int radius = 3;
  KOKKOS_INLINE_FUNCTION static constexpr double c2(int j) {
    return j == 0 ? -49.0 / 18.0 : j == 1 ? 3.0 / 2.0 : j == 2 ? -3.0 / 20.0 : 1.0 / 90.0;
  }
  KOKKOS_INLINE_FUNCTION static constexpr double c1(int j) {
    return j == 1 ? 3.0 / 4.0 : j == 2 ? -3.0 / 20.0 : j == 3 ? 1.0 / 60.0 : 0.0;
  }
};

template <>
struct Stencil<8> {
  static constexpr int radius = 4;
  KOKKOS_INLINE_FUNCTION static constexpr double c2(int j) {
    return j == 0   ? -205.0 / 72.0
           : j == 1 ? 8.0 / 5.0
           : j == 2 ? -1.0 / 5.0
           : j == 3 ? 8.0 / 315.0
                    : -1.0 / 560.0;
  }
  KOKKOS_INLINE_FUNCTION static constexpr double c1(int j) {
    return j == 1   ? 4.0 / 5.0
           : j == 2 ? -1.0 / 5.0
           : j == 3 ? 4.0 / 105.0
           : j == 4 ? -1.0 / 280.0
                    : 0.0;
  }
};

/// Coefficients of an order-`Order` staggered first derivative, radius Order/2 (Fornberg):
///   du/dx at x_{i+1/2} ~ sum_k c(k) (u_{i+k} - u_{i+1-k}) / h,  k = 1..radius
/// The variable-density equation composes a forward (cell -> half point) and a backward (half
/// point -> cell) one into its second derivative.
template <int Order>
struct StaggeredStencil {
  static constexpr int radius = Order / 2;
  KOKKOS_INLINE_FUNCTION static constexpr double c(int k) {
    return Order == 2   ? (k == 1 ? 1.0 : 0.0)
           : Order == 4 ? (k == 1   ? 9.0 / 8.0
                           : k == 2 ? -1.0 / 24.0
                                    : 0.0)
           : Order == 6 ? (k == 1   ? 75.0 / 64.0
                           : k == 2 ? -25.0 / 384.0
                           : k == 3 ? 3.0 / 640.0
                                    : 0.0)
                        : (k == 1   ? 1225.0 / 1024.0
                           : k == 2 ? -245.0 / 3072.0
                           : k == 3 ? 49.0 / 5120.0
                           : k == 4 ? -5.0 / 7168.0
                                    : 0.0);
  }
};

/// True for the supported orders.
constexpr bool is_supported_order(int order) {
  return order == 2 || order == 4 || order == 6 || order == 8;
}

/// Calls f(std::integral_constant<int, order>{}) for a supported runtime `order` (the kernels
/// take the order as a template parameter); returns false, calling nothing, for any other.
template <class F>
bool with_order(int order, F&& f) {
  switch (order) {
    case 2:
      f(std::integral_constant<int, 2>{});
      return true;
    case 4:
      f(std::integral_constant<int, 4>{});
      return true;
    case 6:
      f(std::integral_constant<int, 6>{});
      return true;
    case 8:
      f(std::integral_constant<int, 8>{});
      return true;
  }
  return false;
}

}  // namespace pwave::physics
