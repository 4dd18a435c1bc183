#pragma once
// One GPU per rank: which device this rank uses. Kokkos reads the choice from KOKKOS_DEVICE_ID
// when it initialises, so set_kokkos_device_from_local_rank() must run after MPI starts (it
// needs the local rank) and BEFORE Kokkos::initialize / Kokkos::ScopeGuard:
//
//   pwave::parallel::Environment mpi(argc, argv);
//   pwave::parallel::Communicator world;
//   const auto dev = pwave::parallel::set_kokkos_device_from_local_rank(world.local_rank());
//   Kokkos::ScopeGuard kokkos(argc, argv);
//   if (world.is_root()) pwave::log::info(dev.note);
//
// Precedence: --kokkos-device-id on the command line (Kokkos' own, wins over the environment)
// > KOKKOS_DEVICE_ID set by the user (left alone) > PWAVE_DEVICE_ID (copied into
// KOKKOS_DEVICE_ID) > local rank modulo the number of visible devices. With one visible device
// per rank (e.g. srun --gpus-per-task=1, which narrows CUDA_VISIBLE_DEVICES) every rank gets 0.

#include <string>

namespace pwave::parallel {

/// The device id for a rank (pure, for tests): `override_text` when it is non-null and
/// non-empty (it must then be a non-negative integer, else pwave::InputError naming
/// PWAVE_DEVICE_ID), else local_rank % num_devices, else 0 when num_devices <= 0.
int select_device_id(int local_rank, int num_devices, const char* override_text);

/// select_device_id() with PWAVE_DEVICE_ID from the environment and the number of devices the
/// backend sees (backend::visible_device_count(); 0 on host-only builds, so the result is 0).
int select_device(int local_rank);

/// What set_kokkos_device_from_local_rank() did.
struct DeviceAssignment {
  bool set = false;    ///< KOKKOS_DEVICE_ID was set by this call
  int device_id = -1;  ///< the id chosen (or the user's KOKKOS_DEVICE_ID), -1 on host backends
  std::string note;    ///< one line for the log
};

/// Sets KOKKOS_DEVICE_ID (setenv, before Kokkos::initialize) to select_device(local_rank),
/// unless the user set KOKKOS_DEVICE_ID already or the build has no device backend.
DeviceAssignment set_kokkos_device_from_local_rank(int local_rank);

}  // namespace pwave::parallel
