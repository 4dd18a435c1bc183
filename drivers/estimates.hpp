#pragma once
// Figures `pwave check` prints and `pwave run` logs: padded grid and memory of a forward run.

#include <cstddef>

#include "pwave/propagation/forward_problem.hpp"
#include "pwave/propagation/storage.hpp"

namespace pwave::cli {

/// The grid the propagator works on: the model plus the CPML layers on each side (cells).
struct PaddedGrid {
  int nz = 0;
  int nx = 0;
  int ny = 1;  ///< 1 in 2D
  long cells() const { return long(nz) * long(ny) * long(nx); }
};

/// Model grid plus boundary.width on each side (front and back too for a 3D model).
PaddedGrid padded_grid(const ForwardProblem& problem);

/// Memory of a forward run in bytes, following the allocations of
/// propagation/acoustic_propagator.cpp (3D: the same arrays with a y axis: wavefields
/// [nz+2h][ny+2h][nx+2h], CPML memory variables on the six strips). The counts per equation
/// are its descriptor's (physics/<equation>/physics.hpp: wavefields, model arrays, profiles,
/// cpml_memory_of): the elastic equation keeps 5 wavefields (2D; 9 in 3D) and 2 x axes CPML
/// memory variables per strip cell.
struct MemoryEstimate {
  int batch = 0;            ///< shots propagated together
  double wavefields = 0;    ///< per shot: 2 time levels on the padded grid + stencil halo (+ a flux
                            ///< per axis for variable density; velocities and stresses, elastic)
  double cpml = 0;          ///< per shot: psi, psi_next, zeta on the x and z (and y) CPML strips
                            ///< (elastic: 2 x axes memory variables per strip cell)
  double receivers = 0;     ///< per shot: traces [receiver][time]
  double per_shot = 0;      ///< sum of the three above
  double model = 0;         ///< v^2 dt^2 on the padded grid, CPML profiles, cell indices
  double device_total = 0;  ///< batch * per_shot + model
  double host_traces = 0;   ///< all shots' traces returned to the host
};

/// Memory of the wavefield history a gradient keeps (see pwave::Storage), in bytes.
struct HistoryEstimate {
  int batch = 0;  ///< shots propagated together (and stored together)
  /// (nt + 1) snapshots of the padded grid (elastic: nt steps' update terms); with a stride or
  /// compression (2D acoustic) ceil(nt / stride) second differences in that format and one
  /// wavefield, or (elastic) ceil(nt / stride) states in that format and the backward run's decoded
  /// state.
  double full_per_shot = 0;
  double boundary_per_shot = 0;  ///< (nt + 1) snapshots of the CPML frame + a stencil band
                                 ///< (elastic: every wavefield on the strips, no band, and
                                 ///< every memory variable)
  double frame_cells = 0;        ///< cells of that frame
  /// Checkpoint storage: the steps between checkpoints, and the bytes per shot: the elastic
  /// equation's ceil(nt / k) checkpointed states plus the backward run's segment, k steps'
  /// update terms (ElasticPropagator::history_bytes_per_shot); the acoustic equations' ceil(nt /
  /// k) checkpoints of u^{n-1}, u^n and the strips' psi and zeta, and a segment of k + 2
  /// wavefields on the padded grid (CheckpointHistory::bytes_per_shot).
  int checkpoint_interval = 0;
  double checkpoint_per_shot = 0;
  /// The backward run's adjoint state and imaging per shot, and its batch-independent part
  /// (propagation::backward_memory).
  double backward_per_shot = 0;
  double backward_fixed = 0;
};

/// Estimates the history of a gradient over `shots_per_iteration` shots (all shots of a
/// gradient run, inversion.batch_size of an fwi run) with values of `value_bytes` bytes and the
/// settings of `storage` (checkpoint_interval; full's stride and compression), following the
/// propagators' history_bytes_per_shot.
HistoryEstimate estimate_history(const ForwardProblem& problem, std::size_t value_bytes,
                                 int shots_per_iteration,
                                 const StorageOptions& storage = StorageOptions());

/// Estimates the memory of forward_model for `problem` with values of `value_bytes` bytes
/// (4 for float32, 8 for float64).
MemoryEstimate estimate_memory(const ForwardProblem& problem, std::size_t value_bytes);

}  // namespace pwave::cli
