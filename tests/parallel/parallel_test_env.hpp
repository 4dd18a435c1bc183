#pragma once
// The communicator every parallel test uses (set up by test_parallel_main.cpp). Tests run on
// all ranks in the same order; a test that calls a collective must reach it on every rank, so
// checks use EXPECT_* (ASSERT_* returns early) before or after collectives, never between.

#include "pwave/parallel/communicator.hpp"

namespace pwave::parallel::test_env {
const Communicator& world();
}  // namespace pwave::parallel::test_env
