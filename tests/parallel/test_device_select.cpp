// Device selection from the local rank (pure function, then the KOKKOS_DEVICE_ID plumbing).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "backends/gpu_aware_mpi.hpp"
#include "pwave/core/error.hpp"
#include "pwave/parallel/device.hpp"

using namespace pwave::parallel;

TEST(DeviceSelect, LocalRankModuloDevices) {
  EXPECT_EQ(select_device_id(0, 4, nullptr), 0);
  EXPECT_EQ(select_device_id(3, 4, nullptr), 3);
  EXPECT_EQ(select_device_id(5, 4, nullptr), 1);
  EXPECT_EQ(select_device_id(7, 1, nullptr), 0);  // one visible GPU per task
  EXPECT_EQ(select_device_id(2, 0, nullptr), 0);  // host build / no device
  EXPECT_EQ(select_device_id(2, -1, nullptr), 0);
  EXPECT_EQ(select_device_id(-1, 4, nullptr), 0);
}

TEST(DeviceSelect, EnvironmentOverrideWins) {
  EXPECT_EQ(select_device_id(3, 4, "2"), 2);
  EXPECT_EQ(select_device_id(0, 1, "7"), 7);  // taken as given; Kokkos reports a bad id
  EXPECT_EQ(select_device_id(3, 4, ""), 3);   // empty means unset
  for (const char* bad : {"gpu1", "-1", "1.5", " "}) {
    try {
      select_device_id(0, 4, bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const pwave::InputError& e) {
      EXPECT_EQ(e.key(), "PWAVE_DEVICE_ID");
    }
  }
}

TEST(DeviceSelect, SetsKokkosDeviceIdOnlyWhenThereIsAChoice) {
  const char* k = std::getenv("KOKKOS_DEVICE_ID");
  const std::string saved = k ? k : "";
  setenv("KOKKOS_DEVICE_ID", "1", 1);
  DeviceAssignment a = set_kokkos_device_from_local_rank(3);
  EXPECT_FALSE(a.set);
  EXPECT_EQ(a.device_id, 1);
  EXPECT_NE(a.note.find("set by the user"), std::string::npos);
  unsetenv("KOKKOS_DEVICE_ID");
  a = set_kokkos_device_from_local_rank(3);
  if (!pwave::backend::device_memory_is_separate()) {
    EXPECT_FALSE(a.set);
    EXPECT_EQ(std::getenv("KOKKOS_DEVICE_ID"), nullptr);
    EXPECT_EQ(select_device(3), 0);
    EXPECT_EQ(pwave::backend::visible_device_count(), 0);
  } else {
    EXPECT_TRUE(a.set);
    EXPECT_EQ(std::to_string(a.device_id), std::string(std::getenv("KOKKOS_DEVICE_ID")));
    EXPECT_EQ(a.device_id, 3 % pwave::backend::visible_device_count());
  }
  if (k) {
    setenv("KOKKOS_DEVICE_ID", saved.c_str(), 1);
  } else {
    unsetenv("KOKKOS_DEVICE_ID");
  }
}
