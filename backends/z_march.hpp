#pragma once
// The z-marching launch of a 3D stencil update: the GPU-shaped alternative to the MDRange
// launch of backends/launch.hpp for the interior box of a 3D grid.
//
// Each team owns an (x, y) tile of the box and marches down its depths. Every point of the tile
// keeps its column's 2R + 1 values of u^n around the current depth in registers (a queue shifted
// by one depth per step: one new value read from memory per point and depth), and the team puts
// the current depth's plane of the tile, with a halo of R points on each side, in team scratch
// (shared) memory: the x and y taps then come from scratch, the z taps from registers, and each
// u^n value is read from memory about (1 + halo ring / tile) times instead of once per tap (the
// scheme of the best published 3D finite-difference GPU kernels, Micikevicius 2009).
//
// Tile shapes per backend below. Host backends run it too (one thread per team, looping over
// the tile's points), so that the code GPUs run is tested on a CPU against the MDRange path.
// Backend names may appear here and in launch.hpp, nowhere else in shared code.

#include <Kokkos_Core.hpp>
#include <type_traits>

#include "backends/launch.hpp"
#include "pwave/core/kokkos_compat.hpp"

namespace pwave::backend {

/// The (x, y) tile a team of the z-marching launch owns. GPUs: one thread per point, a warp
/// along x (coalesced loads and stores), 8 warps per team. Host backends: one thread per team.
template <class Exec>
struct ZMarchTile {
  static constexpr int x = runs_on_host<Exec>() ? 16 : 32;
  static constexpr int y = runs_on_host<Exec>() ? 4 : 8;
  /// Threads of a team; each handles (x y) / threads points of the tile.
  static constexpr int threads = runs_on_host<Exec>() ? 1 : x * y;
};

/// u^n's taps of one point of the z-marching launch (see ScaledStencil::laplacian_of): its
/// column's queue `q` (q[R + j] = u at depth + j) and its place `p` in the scratch plane of the
/// tile, whose rows are `ps` values apart.
template <class T, int R>
struct MarchTaps {
  const T* q;
  const T* p;
  int ps;
  KOKKOS_INLINE_FUNCTION T center() const { return q[R]; }
  KOKKOS_INLINE_FUNCTION T z(int j) const { return q[R + j] + q[R - j]; }
  KOKKOS_INLINE_FUNCTION T x(int j) const { return p[j] + p[-j]; }
  KOKKOS_INLINE_FUNCTION T y(int j) const { return p[j * ps] + p[-j * ps]; }
};

/// Calls f.update(shot, iz, iy, ix, taps) for shot in [0, ns) and every cell of box b of a 3D
/// grid, the taps of u^n being a MarchTaps. F provides `radius`, `value_type`, the wavefield it
/// reads (`u_cur`, [shot][z + halo][(y + hy) ys + x + halo]) and that layout (`halo`, `hy`,
/// `ys`). Cells of u^n outside the wavefield's extents read as 0 (only points outside the box,
/// which update nothing, ever read them).
template <class Exec, class F>
void for_each_cell_z_march(const char* name, const Exec& exec, int ns, const Box& b, const F& f) {
  if (ns <= 0 || b.empty()) return;
  using T = typename F::value_type;
  constexpr int R = F::radius;
  using Tile = ZMarchTile<Exec>;
  constexpr int TX = Tile::x, TY = Tile::y, team = Tile::threads;
  constexpr int P = TX * TY / team;  // points per thread
  constexpr int SX = TX + 2 * R;     // scratch plane: the tile and its halo
  constexpr int SY = TY + 2 * R;
  constexpr int ring = SX * SY - TX * TY;  // halo points, loaded from memory at each depth
  static_assert(TX * TY % team == 0, "a tile's points must divide among its threads");
  const int tiles_x = (b.x1 - b.x0 + TX - 1) / TX, tiles_y = (b.y1 - b.y0 + TY - 1) / TY;
  const int tiles = tiles_x * tiles_y;

  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using Plane = Kokkos::View<T*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const Policy policy = Policy(exec, ns * tiles, team)
                            .set_scratch_size(0, Kokkos::PerTeam(Plane::shmem_size(SX * SY)));
  const auto u = f.u_cur;
  const int halo = f.halo, hy = f.hy, ys = f.ys;
  const int fz = int(u.extent(1)), fy = int(u.extent(2)) / ys;
  Kokkos::parallel_for(
      name, policy, KOKKOS_LAMBDA(const Member& m) {
        const int s = m.league_rank() / tiles, tile = m.league_rank() % tiles;
        const int x0 = b.x0 + (tile % tiles_x) * TX, y0 = b.y0 + (tile / tiles_x) * TY;
        Plane plane(m.team_scratch(0), SX * SY);
        // u^n at wavefield depth z of padded cell (iy, ix), 0 outside the wavefield.
        const auto load = [&](int z, int iy, int ix) -> T {
          const bool inside =
              z >= 0 && z < fz && iy + hy >= 0 && iy + hy < fy && ix + halo >= 0 && ix + halo < ys;
          return inside ? u(s, z, (iy + hy) * ys + ix + halo) : T(0);
        };
        T q[P][2 * R + 1];
        PWAVE_UNROLL
        for (int k = 0; k < P; ++k) {
          const int p = m.team_rank() + k * team, iy = y0 + p / TX, ix = x0 + p % TX;
          PWAVE_UNROLL
          for (int j = 1; j <= 2 * R; ++j) q[k][j] = load(b.z0 + halo - R + j - 1, iy, ix);
        }
        for (int iz = b.z0; iz < b.z1; ++iz) {
          const int z = iz + halo;
          PWAVE_UNROLL
          for (int k = 0; k < P; ++k) {  // the queues move one depth down
            const int p = m.team_rank() + k * team, iy = y0 + p / TX, ix = x0 + p % TX;
            PWAVE_UNROLL
            for (int j = 0; j < 2 * R; ++j) q[k][j] = q[k][j + 1];
            q[k][2 * R] = load(z + R, iy, ix);
          }
          m.team_barrier();  // the previous depth's taps are read
          PWAVE_UNROLL
          for (int k = 0; k < P; ++k) {
            const int p = m.team_rank() + k * team;
            plane((p / TX + R) * SX + p % TX + R) = q[k][R];
          }
          for (int r = m.team_rank(); r < ring; r += team) {  // the halo: bands, then sides
            int sy, sx;
            if (r < 2 * R * SX) {
              sy = r / SX, sx = r % SX;
              if (sy >= R) sy += TY;
            } else {
              const int c = (r - 2 * R * SX) % (2 * R);
              sy = R + (r - 2 * R * SX) / (2 * R), sx = c < R ? c : TX + c;
            }
            plane(sy * SX + sx) = load(z, y0 - R + sy, x0 - R + sx);
          }
          m.team_barrier();  // the plane is complete
          PWAVE_UNROLL
          for (int k = 0; k < P; ++k) {
            const int p = m.team_rank() + k * team, iy = y0 + p / TX, ix = x0 + p % TX;
            if (iy < b.y1 && ix < b.x1) {
              const MarchTaps<T, R> taps{q[k], &plane((p / TX + R) * SX + p % TX + R), SX};
              f.update(s, iz, iy, ix, taps);
            }
          }
        }
      });
}

/// for_each_box_3d over `cuts` with its inner box (the one whose functor make(false, false,
/// false) gives: no strip) launched by for_each_cell_z_march instead when `march`, else as the
/// other boxes; `skip_center` leaves the inner box out either way (a caller that updates it
/// elsewhere).
template <class Exec, class Make>
void for_each_box_3d_marched(const char* name, const Exec& exec, int ns, const BoxCuts& cuts,
                             const Make& make, bool march, bool skip_center = false) {
  for_each_box_3d(name, exec, ns, cuts, make, skip_center || march);
  if (march && !skip_center) {
    using F = std::false_type;
    const Box center{cuts.z[1], cuts.z[2], cuts.y[1], cuts.y[2], cuts.x[1], cuts.x[2]};
    for_each_cell_z_march(name, exec, ns, center, make(F{}, F{}, F{}));
  }
}

}  // namespace pwave::backend
