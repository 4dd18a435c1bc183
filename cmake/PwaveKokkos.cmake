# Finds Kokkos and Kokkos Kernels and exposes two targets the project links against:
#   pwave::kokkos         (Kokkos core + containers)
#   pwave::kokkoskernels  (Kokkos Kernels BLAS, header-instantiated on Debian)
#
# Upstream installs (>= 4.0, via -DKokkos_ROOT=... or CMAKE_PREFIX_PATH) win. Otherwise the
# Debian/Ubuntu Trilinos 13.2 packages (Kokkos 3.4.01, Serial) are used: their CMake config
# points at a non-existent include directory and lacks the Kernels target, so the targets are
# rebuilt here from the known header and library locations.
#
# Installed with pwave and included by pwaveConfig.cmake (package mode), which sets:
#   PWAVE_KOKKOS_EXPECT        "upstream" or "debian": the flavour pwave was built with; the
#                              other one is not looked for (mixing them breaks the ABI)
#   PWAVE_KOKKOS_EXPECT_HINTS  where that flavour was found at build time (searched first)
#   PWAVE_KOKKOS_PACKAGE_MODE  ON: report failure in PWAVE_KOKKOS_ERROR instead of stopping,
#                              and print nothing
# Outputs: PWAVE_KOKKOS_KIND (upstream|debian), PWAVE_KOKKOS_FLAVOUR (text),
# PWAVE_KOKKOS_VERSION, PWAVE_KOKKOS_BACKENDS, PWAVE_KOKKOS_HINTS (for the package config).

set(PWAVE_KOKKOS_ERROR "")
if(TARGET pwave::kokkos AND TARGET pwave::kokkoskernels)
  return()  # a second find_package(pwave) in the same directory
endif()
set(PWAVE_KOKKOS_FLAVOUR "")
set(PWAVE_KOKKOS_KIND "")
set(PWAVE_KOKKOS_HINTS "")

if(NOT PWAVE_KOKKOS_EXPECT STREQUAL "debian")
  if(PWAVE_KOKKOS_EXPECT STREQUAL "upstream")
    find_package(Kokkos 4.0 CONFIG QUIET HINTS ${PWAVE_KOKKOS_EXPECT_HINTS})
  else()
    find_package(Kokkos 4.0 CONFIG QUIET)
  endif()
endif()
if(Kokkos_FOUND AND TARGET Kokkos::kokkos)
  find_package(KokkosKernels CONFIG QUIET HINTS ${PWAVE_KOKKOS_EXPECT_HINTS} "${Kokkos_DIR}/..")
  if(NOT KokkosKernels_FOUND)
    set(PWAVE_KOKKOS_ERROR
        "pwave: Kokkos ${Kokkos_VERSION} found (${Kokkos_DIR}) but no Kokkos Kernels: install "
        "Kokkos Kernels of the same version (BLAS component) and pass -DKokkosKernels_ROOT=")
  else()
    add_library(pwave::kokkos INTERFACE IMPORTED)
    target_link_libraries(pwave::kokkos INTERFACE Kokkos::kokkos)
    add_library(pwave::kokkoskernels INTERFACE IMPORTED)
    target_link_libraries(pwave::kokkoskernels INTERFACE Kokkos::kokkoskernels)
    set(PWAVE_KOKKOS_KIND upstream)
    set(PWAVE_KOKKOS_FLAVOUR "upstream (${Kokkos_DIR})")
    set(PWAVE_KOKKOS_VERSION "${Kokkos_VERSION}")
    set(PWAVE_KOKKOS_BACKENDS "${Kokkos_DEVICES}")
    set(PWAVE_KOKKOS_HINTS "${Kokkos_DIR};${KokkosKernels_DIR}")
  endif()
elseif(PWAVE_KOKKOS_EXPECT STREQUAL "upstream")
  set(PWAVE_KOKKOS_ERROR
      "pwave was built with an upstream Kokkos (${PWAVE_KOKKOS_EXPECT_HINTS}) that is not found "
      "now: pass -DKokkos_ROOT=<that install>")
else()
  find_path(PWAVE_TRILINOS_INCLUDE Kokkos_Core.hpp
            HINTS ${PWAVE_KOKKOS_EXPECT_HINTS} /usr/include/trilinos /usr/local/include/trilinos
            DOC "Directory holding the Trilinos Kokkos headers")
  find_library(PWAVE_KOKKOSCORE_LIB NAMES trilinos_kokkoscore kokkoscore
               HINTS ${PWAVE_KOKKOS_EXPECT_HINTS})
  find_library(PWAVE_KOKKOSCONTAINERS_LIB NAMES trilinos_kokkoscontainers kokkoscontainers
               HINTS ${PWAVE_KOKKOS_EXPECT_HINTS})
  find_library(PWAVE_KOKKOSKERNELS_LIB NAMES trilinos_kokkoskernels kokkoskernels
               HINTS ${PWAVE_KOKKOS_EXPECT_HINTS})
  if(NOT PWAVE_TRILINOS_INCLUDE OR NOT PWAVE_KOKKOSCORE_LIB OR NOT PWAVE_KOKKOSKERNELS_LIB)
    set(PWAVE_KOKKOS_ERROR
        "pwave: no Kokkos found. Either pass -DKokkos_ROOT=<upstream install, >= 4.0> or install "
        "the Debian packages: apt-get install libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev")
  else()
    find_package(Threads REQUIRED)
    add_library(pwave::kokkos INTERFACE IMPORTED)
    set_target_properties(pwave::kokkos PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${PWAVE_TRILINOS_INCLUDE}"
      INTERFACE_LINK_LIBRARIES "${PWAVE_KOKKOSCONTAINERS_LIB};${PWAVE_KOKKOSCORE_LIB};Threads::Threads;${CMAKE_DL_LIBS}")
    add_library(pwave::kokkoskernels INTERFACE IMPORTED)
    set_target_properties(pwave::kokkoskernels PROPERTIES
      INTERFACE_LINK_LIBRARIES "${PWAVE_KOKKOSKERNELS_LIB};pwave::kokkos")
    file(STRINGS "${PWAVE_TRILINOS_INCLUDE}/KokkosCore_config.h" _pwave_kv
         REGEX "^#define KOKKOS_VERSION [0-9]+")
    string(REGEX REPLACE ".* ([0-9]+)$" "\\1" _pwave_kv "${_pwave_kv}")
    math(EXPR _maj "${_pwave_kv} / 10000")
    math(EXPR _min "${_pwave_kv} / 100 % 100")
    math(EXPR _pat "${_pwave_kv} % 100")
    set(PWAVE_KOKKOS_VERSION "${_maj}.${_min}.${_pat}")
    file(STRINGS "${PWAVE_TRILINOS_INCLUDE}/KokkosCore_config.h" _pwave_be
         REGEX "^#define KOKKOS_ENABLE_(SERIAL|OPENMP|THREADS|CUDA|HIP|SYCL)$")
    string(REGEX REPLACE "#define KOKKOS_ENABLE_" "" PWAVE_KOKKOS_BACKENDS "${_pwave_be}")
    set(PWAVE_KOKKOS_KIND debian)
    set(PWAVE_KOKKOS_FLAVOUR "Debian/Trilinos (${PWAVE_TRILINOS_INCLUDE}, repaired targets)")
    get_filename_component(_pwave_kokkos_libdir "${PWAVE_KOKKOSCORE_LIB}" DIRECTORY)
    set(PWAVE_KOKKOS_HINTS "${PWAVE_TRILINOS_INCLUDE};${_pwave_kokkos_libdir}")
  endif()
endif()

if(PWAVE_KOKKOS_ERROR AND NOT PWAVE_KOKKOS_PACKAGE_MODE)
  message(FATAL_ERROR "${PWAVE_KOKKOS_ERROR}")
endif()
if(NOT PWAVE_KOKKOS_PACKAGE_MODE)
  message(STATUS "pwave: Kokkos flavour  : ${PWAVE_KOKKOS_FLAVOUR}")
  message(STATUS "pwave: Kokkos version  : ${PWAVE_KOKKOS_VERSION}")
  message(STATUS "pwave: Kokkos backends : ${PWAVE_KOKKOS_BACKENDS}")
endif()
