// A miniature driver for the exit-code tests: how a failure on one rank ends every rank.
//   exit_probe agree : the last rank fails to read its input inside run_collectively(); every
//                      rank returns the agreed code (2), rank 0 alone prints the message.
//   exit_probe abort : the last rank throws in the middle of a loop of collectives the others
//                      are waiting in; main() catches it and calls Communicator::abort(1).
#include <Kokkos_Core.hpp>
#include <cstring>
#include <iostream>
#include <string>

#include "pwave/core/error.hpp"
#include "pwave/parallel/communicator.hpp"
#include "pwave/parallel/device.hpp"

using namespace pwave::parallel;

int main(int argc, char** argv) {
  Environment mpi(argc, argv);
  Communicator world;
  set_kokkos_device_from_local_rank(world.local_rank());
  const std::string mode = argc > 1 ? argv[1] : "agree";
  try {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const Status s = run_collectively(world, [&] {
      if (mode == "agree" && world.rank() == world.size() - 1) {
        throw pwave::InputError("observed.file", "", "cannot open obs.npy on this node");
      }
    });
    if (!s.ok()) {
      if (world.is_root()) {
        std::cerr << "pwave: error: " << s.message << " (rank " << s.rank << ")" << std::endl;
      }
      return s.code;
    }
    for (int it = 0; it < 100; ++it) {
      if (mode == "abort" && it == 3 && world.rank() == world.size() - 1) {
        throw pwave::RuntimeError("iteration 3: lost the device");
      }
      world.allreduce_sum(1.0);
    }
  } catch (const std::exception& e) {
    std::cerr << "pwave: error (rank " << world.rank() << "): " << e.what() << std::endl;
    world.abort(1);  // the other ranks wait in a collective: end them all
  }
  return 0;
}
