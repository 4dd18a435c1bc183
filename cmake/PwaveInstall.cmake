# `cmake --install <build> --prefix P`: the library, its headers (include paths as in the tree:
# "pwave/...", plus the backends/ headers public headers include: launch.hpp, host_vector.hpp),
# the pwave executable, tools/pwave-plot, and a CMake package: find_package(pwave) gives
# pwave::pwave with Kokkos, Kokkos Kernels, yaml-cpp, segyio and (when built with it) MPI found
# again for the user, from where this build found them. Included at the end of the top-level
# CMakeLists.txt.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(PWAVE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/pwave" CACHE STRING
    "Where the pwave CMake package goes, relative to the prefix")

install(TARGETS pwave EXPORT pwaveTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/src/pwave/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/pwave"
        FILES_MATCHING PATTERN "*.hpp")
install(FILES "${PROJECT_BINARY_DIR}/src/pwave/generated/pwave/core/version.hpp"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/pwave/core")
install(FILES "${PROJECT_SOURCE_DIR}/backends/launch.hpp" "${PROJECT_SOURCE_DIR}/backends/host_vector.hpp"
              "${PROJECT_SOURCE_DIR}/backends/wavefront.hpp"
              "${PROJECT_SOURCE_DIR}/backends/host_pages.hpp"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/backends")
install(PROGRAMS "${PROJECT_SOURCE_DIR}/tools/pwave-plot" DESTINATION "${CMAKE_INSTALL_BINDIR}")

install(EXPORT pwaveTargets NAMESPACE pwave:: DESTINATION "${PWAVE_INSTALL_CMAKEDIR}")
# What pwaveConfig.cmake needs to find the same dependencies again.
set(PWAVE_PACKAGE_HAVE_MPI ${PWAVE_ENABLE_MPI})
get_filename_component(_pwave_segyio_libdir "${PWAVE_SEGYIO_LIB}" DIRECTORY)
set(PWAVE_PACKAGE_SEGYIO_HINTS "${PWAVE_SEGYIO_INCLUDE};${_pwave_segyio_libdir}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/pwaveConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/pwaveConfig.cmake" INSTALL_DESTINATION "${PWAVE_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/pwaveConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/pwaveConfig.cmake"
              "${PROJECT_BINARY_DIR}/pwaveConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/PwaveKokkos.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/PwaveSegyio.cmake"
        DESTINATION "${PWAVE_INSTALL_CMAKEDIR}")
