#include "pwave/inversion/conditioning.hpp"

#include <cmath>

namespace pwave {
namespace {

template <class T>
Kokkos::View<T*, MemSpace> gaussian_taps(double sigma_cells, const char* name) {
  const int r = sigma_cells > 0 ? int(std::ceil(3.0 * sigma_cells)) : 0;
  Kokkos::View<T*, MemSpace> taps(std::string(name), 2 * r + 1);
  auto h = Kokkos::create_mirror_view(taps);
  double sum = 0;
  for (int k = -r; k <= r; ++k) {
    const double w = r > 0 ? std::exp(-0.5 * k * k / (sigma_cells * sigma_cells)) : 1.0;
    h(k + r) = T(w);
    sum += w;
  }
  for (int k = 0; k <= 2 * r; ++k) h(k) = T(h(k) / sum);
  Kokkos::deep_copy(taps, h);
  return taps;
}

}  // namespace

template <class T>
GradientConditioner<T>::GradientConditioner(const Grid& grid,
                                            const std::vector<ShotGeometry>& shots,
                                            double water_depth, double source_taper,
                                            double smoothing)
    : grid_(grid) {
  const int plane = grid.ny * grid.nx;
  mask_ = GridView<T>("pwave::gradient_mask", grid.nz, plane);
  scratch_ = GridView<T>("pwave::gradient_scratch", grid.nz, plane);
  auto h = Kokkos::create_mirror_view(mask_);
  for (int iz = 0; iz < grid.nz; ++iz) {
    for (int q = 0; q < plane; ++q) {
      const double z = iz * grid.dz, x = (q % grid.nx) * grid.dx, y = (q / grid.nx) * grid.dy;
      double m = z < water_depth ? 0.0 : 1.0;
      if (source_taper > 0) {
        for (const ShotGeometry& s : shots) {
          const double dy = grid.is_3d() ? y - s.source.y : 0.0;
          const double r =
              std::sqrt(std::pow(x - s.source.x, 2) + std::pow(z - s.source.z, 2) + dy * dy);
          if (r < source_taper) m *= 0.5 - 0.5 * std::cos(pi * r / source_taper);
        }
      }
      h(iz, q) = T(m);
    }
  }
  Kokkos::deep_copy(mask_, h);
  masked_ = water_depth > 0 || source_taper > 0;
  kernel_z_ = gaussian_taps<T>(smoothing / grid.dz, "pwave::smooth_z");
  kernel_x_ = gaussian_taps<T>(smoothing / grid.dx, "pwave::smooth_x");
  kernel_y_ = gaussian_taps<T>(grid.is_3d() ? smoothing / grid.dy : 0.0, "pwave::smooth_y");
}

template <class T>
void GradientConditioner<T>::apply(const GridView<T>& grad) const {
  using Range2 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
  const int plane = grid_.ny * grid_.nx;
  const Range2 cells({0, 0}, {grid_.nz, plane});
  const GridView<T> mask = mask_, tmp = scratch_;
  if (masked_) {
    Kokkos::parallel_for(
        "pwave::inversion::mask_gradient", cells,
        KOKKOS_LAMBDA(const int iz, const int ix) { grad(iz, ix) *= mask(iz, ix); });
  }
  const int rz = int(kernel_z_.extent(0)) / 2, rx = int(kernel_x_.extent(0)) / 2;
  const int ry = int(kernel_y_.extent(0)) / 2;
  if (rz == 0 && rx == 0 && ry == 0) return;
  const auto kz = kernel_z_, kx = kernel_x_, ky = kernel_y_;
  const int nz = grid_.nz, nx = grid_.nx, ny = grid_.ny;
  // Separable Gaussian (columns q = iy nx + ix); near the edges the taps inside the model are
  // renormalised. In 3D the y pass runs first, from grad into tmp and back.
  if (ry > 0) {
    Kokkos::parallel_for(
        "pwave::inversion::smooth_y", cells, KOKKOS_LAMBDA(const int iz, const int q) {
          const int iy = q / nx, ix = q % nx;
          T sum = 0, wsum = 0;
          for (int k = -ry; k <= ry; ++k) {
            const int y = iy + k;
            if (y >= 0 && y < ny) sum += ky(k + ry) * grad(iz, y * nx + ix), wsum += ky(k + ry);
          }
          tmp(iz, q) = sum / wsum;
        });
    Kokkos::deep_copy(grad, tmp);
  }
  Kokkos::parallel_for(
      "pwave::inversion::smooth_x", cells, KOKKOS_LAMBDA(const int iz, const int q) {
        const int row = q - q % nx, ix = q % nx;
        T sum = 0, wsum = 0;
        for (int k = -rx; k <= rx; ++k) {
          const int x = ix + k;
          if (x >= 0 && x < nx) sum += kx(k + rx) * grad(iz, row + x), wsum += kx(k + rx);
        }
        tmp(iz, q) = sum / wsum;
      });
  Kokkos::parallel_for(
      "pwave::inversion::smooth_z", cells, KOKKOS_LAMBDA(const int iz, const int ix) {
        T sum = 0, wsum = 0;
        for (int k = -rz; k <= rz; ++k) {
          const int z = iz + k;
          if (z >= 0 && z < nz) sum += kz(k + rz) * tmp(z, ix), wsum += kz(k + rz);
        }
        grad(iz, ix) = sum / wsum;
      });
  if (masked_) {  // smoothing must not leak gradient back into the masked zone
    Kokkos::parallel_for(
        "pwave::inversion::mask_gradient", cells,
        KOKKOS_LAMBDA(const int iz, const int ix) { grad(iz, ix) *= mask(iz, ix); });
  }
}

template class GradientConditioner<float>;
template class GradientConditioner<double>;

}  // namespace pwave
