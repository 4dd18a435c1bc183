// pwave: the command-line driver. Starts MPI (when launched by mpirun/srun), picks this rank's
// GPU, starts Kokkos, runs a command and maps errors to exit codes: 0 success, 2 bad input or
// usage (InputError), 1 anything else. With several ranks, errors every rank sees are agreed
// on and printed once by rank 0; a failure on some ranks only aborts the job (MPI_Abort).

#include <Kokkos_Core.hpp>
#include <iostream>
#include <optional>
#include <string>

#include "backends/host_pages.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "mpi_context.hpp"
#include "pwave/core/error.hpp"
#include "pwave/core/log.hpp"
#include "pwave/parallel/communicator.hpp"
#include "pwave/parallel/device.hpp"

namespace {

// One line on stderr, whatever the message holds (yaml-cpp messages may span lines).
int report(const char* what, int code) {
  std::string line = what;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::cerr << "pwave: error: " << line << std::endl;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything else: may re-execute pwave with huge pages for its host arrays.
  pwave::backend::request_huge_pages(argv);
  // MPI first (finalised last, after Kokkos), so that the error paths below can still use it;
  // only under an MPI launcher: started alone, pwave is one rank without MPI. An Open MPI 4
  // singleton forks a daemon, and two starting together can fail in MPI_Init (a race on the
  // user's session folder in /tmp), which failed command-line tests now and then under ctest -j2.
  std::optional<pwave::parallel::Environment> mpi;
  if (pwave::parallel::started_by_mpi_launcher()) mpi.emplace(argc, argv);
  const pwave::parallel::Communicator world;
  pwave::cli::set_world(&world);
  const bool root = world.is_root();
  // A failure not every rank saw: the others may wait in a collective, so end the job.
  const auto fail = [&](const char* what, int code) {
    if (world.size() == 1) return report(what, code);
    report((std::string("rank ") + std::to_string(world.rank()) + ": " + what).c_str(), code);
    world.abort(code);
  };
  try {
    const pwave::cli::CommandLine cl = pwave::cli::parse_command_line(argc, argv);
    // --help and --version come before Kokkos, whose initialisation also reacts to --help.
    if (cl.command == "help") {
      if (root) std::cout << pwave::cli::help_text();
      return 0;
    }
    if (cl.command == "version") {
      if (root) std::cout << pwave::cli::version_text();
      return 0;
    }
    // One GPU per rank: the device is chosen from the local rank before Kokkos starts.
    const auto device = pwave::parallel::set_kokkos_device_from_local_rank(world.local_rank());
    Kokkos::ScopeGuard kokkos(argc, argv);
    if (!root) pwave::log::set_quiet(true);
    if (root && world.size() > 1) {
      pwave::log::info(std::to_string(world.size()) + " MPI ranks" +
                       (device.note.empty() ? std::string() : "; " + device.note));
    }
    return cl.command == "run" ? pwave::cli::run_command(cl) : pwave::cli::check_command(cl);
  } catch (const pwave::cli::AgreedFailure& e) {
    if (root) report(e.what(), e.code);
    return e.code;
  } catch (const pwave::InputError& e) {
    return fail(e.what(), 2);
  } catch (const pwave::RuntimeError& e) {
    return fail(e.what(), 1);
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
}
