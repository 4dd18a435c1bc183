// GoogleTest entry point shared by every suite: Kokkos lives for the whole test run.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>

#include "backends/denormals.hpp"

int main(int argc, char** argv) {
  // Without OMP_PROC_BIND, Kokkos' OpenMP backend prints a warning on stderr at start-up (and
  // asks tests to set it to false); the command-line tests, whose pwave processes inherit this
  // environment, expect exactly one line there. A value already set wins.
  setenv("OMP_PROC_BIND", "false", 0);
  Kokkos::ScopeGuard kokkos(argc, argv);
  // As the propagators set it: every test, and every reference it computes before building one,
  // runs with subnormals flushed.
  pwave::backend::flush_subnormals_to_zero();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
