#pragma once
// Where each shot's source and receivers act on the padded grid: their taps (cells and
// weights), one tap of weight 1 for a point on a grid point, Hicks's windowed-sinc taps for a
// point between grid points (acquisition/hicks.hpp). Built on the host once per problem; the
// taps of the shots of the current batch are copied to the device when the batch changes, the
// receivers' also grouped by cell there (for the adjoint's injection).

#include <array>
#include <string>
#include <vector>

#include "pwave/physics/point_sources.hpp"
#include "pwave/propagation/forward_problem.hpp"
#include "pwave/propagation/padded_layout.hpp"

namespace pwave::propagation {

/// One cell of a point's interpolation on the padded grid.
struct Tap {
  int iz = 0, iy = 0, ix = 0;  ///< padded-grid cell (iy = 0 in 2D)
  double weight = 1.0;
};

/// The taps of position `p` (metres, model coordinates) of `problem` on the padded grid of
/// `layout`: the product of the axes' Hicks weights. With a free surface, taps above it are
/// mirrored below it with the opposite sign for the acoustic equations (the field is odd about
/// the surface: Hicks's image for a pressure-release surface); for the elastic one, whose fields
/// have no such parity, they are left out and the others scaled to keep the window's sum (a
/// constant field is still read exactly). Taps beyond the padded grid (a CPML narrower than the
/// window) are dropped. Throws InputError naming `key` when p lies outside the model.
/// `stagger`: the field's points lie that many cells further along each axis than the cells
/// (a staggered grid's half points: 0.5), so that the taps place p among them.
std::vector<Tap> point_taps(const ForwardProblem& problem, const PaddedLayout& layout,
                            const Position& p, const std::string& key,
                            const Position& stagger = {});

/// Every shot's source and receiver taps (host), and those of the current batch (device).
template <class T>
class ShotTaps {
 public:
  ShotTaps() = default;
  /// `capacity`: most shots per batch; `source_stagger`: the offsets in cells of the points of
  /// the field the sources inject into (point_taps), `component_stagger[c]` those of the field
  /// a receiver recording component c reads (ShotGeometry::components).
  ShotTaps(const ForwardProblem& problem, const PaddedLayout& layout, int capacity,
           const Position& source_stagger = {},
           const std::array<Position, component_count>& component_stagger = {});

  /// Slot k of the device tables takes shot shots[k]'s taps.
  void load(const std::vector<int>& shots);

  /// The current batch's taps: sources [slot][0][tap], receivers [slot][receiver][tap]. A shot
  /// with fewer receivers than the widest has zero-weight taps in the rows past its own.
  const physics::PointTaps<T>& sources() const { return sources_; }
  const physics::PointTaps<T>& receivers() const { return receivers_; }
  /// The current batch's receiver taps grouped by cell, [slot][cell], for the adjoint's
  /// injection of the residuals (each cell's receivers in ascending order).
  const physics::CellTaps<T>& receiver_cells() const { return receiver_cells_; }
  /// [slot][receiver]: what each receiver of the current batch records (int(Component)).
  const Kokkos::View<int**, MemSpace>& receiver_components() const { return components_; }
  /// Taps per point of the widest source, receiver (1 when every point is on a grid point).
  int source_taps() const { return int(sources_.weight.extent(2)); }
  int receiver_taps() const { return int(receivers_.weight.extent(2)); }

 private:
  int nx_ = 0;
  std::vector<std::vector<Tap>> source_;                 // [shot]
  std::vector<std::vector<std::vector<Tap>>> receiver_;  // [shot][receiver]
  std::vector<std::vector<int>> component_;              // [shot][receiver]: int(Component)
  physics::PointTaps<T> sources_, receivers_;
  physics::CellTaps<T> receiver_cells_;
  Kokkos::View<int**, MemSpace> components_;
};

}  // namespace pwave::propagation
