#pragma once
// The chain rule of the gradients: from imaging sums on the padded grid to dJ/d(material
// parameter) on the model grid, the CPML cells folded onto the edge cells they copy.
// AcousticPropagator::model_gradients (defined in chain_rule.cpp) applies it for its equation.

#include "pwave/core/types.hpp"
#include "pwave/propagation/forward_problem.hpp"

namespace pwave {

/// Folds dJ/dw on the padded grid (w = v^2 dt^2) into dJ/dvp on the model grid:
/// dJ/dvp = sum over the padded cells copying a model cell of dJ/dw * 2 vp dt^2.
template <class T>
GridView<T> fold_to_model(const ForwardProblem& problem, const GridView<T>& grad_w);

/// The same into `out`, with vp [nz][nx] already on the device (no allocation).
template <class T>
void fold_to_model(const ForwardProblem& problem, const GridView<T>& grad_w, const GridView<T>& vp,
                   const GridView<T>& out);

/// The padding's transpose: out (model grid) = for each model cell, the sum of `padded` over
/// the padded cells that copy it (itself, and the CPML cells beyond it on an edge).
template <class T>
void fold_padding(const ForwardProblem& problem, const GridView<T>& padded, const GridView<T>& out);

}  // namespace pwave
