#pragma once
// The driver's MPI world, set once in main() and read by the commands.

#include <stdexcept>
#include <string>

#include "pwave/parallel/communicator.hpp"

namespace pwave::cli {

/// The communicator of this run (a single rank when pwave was not started by mpirun/srun).
const parallel::Communicator& world();
void set_world(const parallel::Communicator* comm);

/// A failure every rank already agreed on (parallel::run_collectively): rank 0 prints it and
/// every rank exits with `code`.
struct AgreedFailure : std::runtime_error {
  AgreedFailure(int c, const std::string& what) : std::runtime_error(what), code(c) {}
  int code;
};

}  // namespace pwave::cli
