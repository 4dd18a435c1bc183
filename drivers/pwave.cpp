// pwave: the command-line driver. Parses arguments, starts Kokkos, runs a command and maps
// errors to exit codes: 0 success, 2 bad input or usage (InputError), 1 anything else.

#include <Kokkos_Core.hpp>
#include <iostream>
#include <string>

#include "command_line.hpp"
#include "commands.hpp"
#include "pwave/core/error.hpp"

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
  try {
    const pwave::cli::CommandLine cl = pwave::cli::parse_command_line(argc, argv);
    // --help and --version come before Kokkos, whose initialisation also reacts to --help.
    if (cl.command == "help") {
      std::cout << pwave::cli::help_text();
      return 0;
    }
    if (cl.command == "version") {
      std::cout << pwave::cli::version_text();
      return 0;
    }
    Kokkos::ScopeGuard kokkos(argc, argv);
    return cl.command == "run" ? pwave::cli::run_command(cl) : pwave::cli::check_command(cl);
  } catch (const pwave::InputError& e) {
    return report(e.what(), 2);
  } catch (const pwave::RuntimeError& e) {
    return report(e.what(), 1);
  } catch (const std::exception& e) {
    return report(e.what(), 1);
  }
}
