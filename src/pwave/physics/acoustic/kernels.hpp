#pragma once
// The cell updates of the constant-density acoustic scheme: the batch's device data
// (acoustic_state.hpp), the stencil (scaled_stencil.hpp), the interior update
// (interior_step.hpp) and the update in the CPML frame with the scheme's formulas
// (cpml_step.hpp).

#include "pwave/physics/acoustic/acoustic_state.hpp"
#include "pwave/physics/acoustic/cpml_step.hpp"
#include "pwave/physics/acoustic/interior_step.hpp"
#include "pwave/physics/acoustic/scaled_stencil.hpp"
