#pragma once
// What a forward run keeps for the backward (adjoint) run: the history of one storage strategy
// (see Storage), or none.

#include <utility>
#include <variant>

#include "pwave/propagation/boundary_storage.hpp"
#include "pwave/propagation/checkpoint_history.hpp"
#include "pwave/propagation/compressed_storage.hpp"
#include "pwave/propagation/full_history.hpp"
#include "pwave/propagation/sampled_state_history.hpp"
#include "pwave/propagation/term_history.hpp"

namespace pwave::propagation {

/// Exactly one of FullHistory (Storage::full, the acoustic equations), TermHistory (the same,
/// equations imaging their updates' right-hand sides: elastic), FrameHistory (boundary),
/// CheckpointHistory (checkpoint), DifferenceHistory (full with a stride or compression, the
/// acoustic equations) and SampledStateHistory (the same, elastic), or nothing (a
/// forward run that keeps nothing: the default). A value type whose copies share the device
/// arrays (Kokkos views); get_if<H>() tells which strategy it is.
template <class T>
class WavefieldHistory {
 public:
  WavefieldHistory() = default;
  WavefieldHistory(FullHistory<T> h) : held_(std::move(h)) {}          // NOLINT: one of the six
  WavefieldHistory(TermHistory<T> h) : held_(std::move(h)) {}          // NOLINT
  WavefieldHistory(FrameHistory<T> h) : held_(std::move(h)) {}         // NOLINT
  WavefieldHistory(CheckpointHistory<T> h) : held_(std::move(h)) {}    // NOLINT
  WavefieldHistory(DifferenceHistory<T> h) : held_(std::move(h)) {}    // NOLINT
  WavefieldHistory(SampledStateHistory<T> h) : held_(std::move(h)) {}  // NOLINT

  /// The history if it is an H, else nullptr.
  template <class H>
  const H* get_if() const {
    return std::get_if<H>(&held_);
  }
  /// f(h) with the history h it holds (std::monostate for none): the strategy as a type.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), held_);
  }
  /// True for the default history, which keeps nothing.
  bool empty() const { return std::holds_alternative<std::monostate>(held_); }
  /// Whether it has room for the history of `count` shots of an nt-step run (false if empty).
  bool holds(int nt, int count) const {
    return std::visit(
        [&](const auto& h) {
          if constexpr (std::is_same_v<std::decay_t<decltype(h)>, std::monostate>) {
            return false;
          } else {
            return h.holds(nt, count);
          }
        },
        held_);
  }

 private:
  std::variant<std::monostate, FullHistory<T>, TermHistory<T>, FrameHistory<T>,
               CheckpointHistory<T>, DifferenceHistory<T>, SampledStateHistory<T>>
      held_;
};

}  // namespace pwave::propagation
