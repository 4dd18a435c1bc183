#include "mpi_context.hpp"

namespace pwave::cli {
namespace {
const parallel::Communicator* current = nullptr;
}

const parallel::Communicator& world() {
  static const parallel::Communicator single = parallel::Communicator::self();
  return current ? *current : single;
}

void set_world(const parallel::Communicator* comm) {
  current = comm;
}

}  // namespace pwave::cli
