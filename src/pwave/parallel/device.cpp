#include "pwave/parallel/device.hpp"

#include <climits>
#include <cstdlib>

#include "backends/gpu_aware_mpi.hpp"
#include "pwave/core/error.hpp"

namespace pwave::parallel {

int select_device_id(int local_rank, int num_devices, const char* override_text) {
  if (override_text && *override_text) {
    char* end = nullptr;
    const long v = std::strtol(override_text, &end, 10);
    if (*end != '\0' || v < 0 || v > INT_MAX) {
      throw InputError("PWAVE_DEVICE_ID", "environment",
                       "must be a non-negative integer, got '" + std::string(override_text) + "'");
    }
    return int(v);
  }
  if (num_devices <= 0) return 0;
  return (local_rank < 0 ? 0 : local_rank) % num_devices;
}

int select_device(int local_rank) {
  return select_device_id(local_rank, backend::visible_device_count(),
                          std::getenv("PWAVE_DEVICE_ID"));
}

DeviceAssignment set_kokkos_device_from_local_rank(int local_rank) {
  DeviceAssignment a;
  const char* user = std::getenv("KOKKOS_DEVICE_ID");
  if (user && *user) {
    a.device_id = std::atoi(user);
    a.note = std::string("device: KOKKOS_DEVICE_ID=") + user + " set by the user";
    return a;
  }
  if (!backend::device_memory_is_separate()) {
    a.note = "device: host backend, no device to select";
    return a;
  }
  const int n = backend::visible_device_count();
  const char* pwave_id = std::getenv("PWAVE_DEVICE_ID");
  a.device_id = select_device_id(local_rank, n, pwave_id);
  a.set = setenv("KOKKOS_DEVICE_ID", std::to_string(a.device_id).c_str(), 1) == 0;
  a.note = "device: id " + std::to_string(a.device_id) +
           (pwave_id && *pwave_id ? std::string(" from PWAVE_DEVICE_ID")
                                  : " = local rank " + std::to_string(local_rank) + " mod " +
                                        std::to_string(n) + " visible devices");
  return a;
}

}  // namespace pwave::parallel
