#pragma once
// The elastic step classes (Step, AdjointStep, Imaging: the launches of every kernel of a time
// step) are compiled once, in the library's elastic order units (propagation/elastic_loops.hpp,
// PWAVE_INSTANTIATE_ELASTIC_LOOPS), for every precision, order and dimension. Their headers
// declare these explicit instantiations `extern`, so that other code that includes them (the
// tests' reference runs, a user's own time loop) links to the library's copy instead of
// compiling each kernel again.
//
// PWAVE_ELASTIC_INSTANCES(WHAT, CLASS, ORDER): `WHAT template class CLASS<T, ORDER, Dim>;` for
// T = float, double and Dim = 2, 3. WHAT is `extern` (a declaration) or empty (the definition).
// PWAVE_ELASTIC_EVERY_INSTANCE(WHAT, CLASS): the same for orders 2, 4, 6 and 8.

#define PWAVE_ELASTIC_INSTANCES(WHAT, CLASS, ORDER) \
  WHAT template class CLASS<float, ORDER, 2>;       \
  WHAT template class CLASS<float, ORDER, 3>;       \
  WHAT template class CLASS<double, ORDER, 2>;      \
  WHAT template class CLASS<double, ORDER, 3>;

#define PWAVE_ELASTIC_EVERY_INSTANCE(WHAT, CLASS) \
  PWAVE_ELASTIC_INSTANCES(WHAT, CLASS, 2)         \
  PWAVE_ELASTIC_INSTANCES(WHAT, CLASS, 4)         \
  PWAVE_ELASTIC_INSTANCES(WHAT, CLASS, 6)         \
  PWAVE_ELASTIC_INSTANCES(WHAT, CLASS, 8)
