# Finds segyio (no CMake config in the Debian package) and defines pwave::segyio.
# Installed with pwave and included by pwaveConfig.cmake, which sets PWAVE_SEGYIO_HINTS (the
# include and library folders found at build time) and PWAVE_SEGYIO_PACKAGE_MODE (report a
# failure in PWAVE_SEGYIO_ERROR instead of stopping).
set(PWAVE_SEGYIO_ERROR "")
if(NOT TARGET pwave::segyio)
  find_path(PWAVE_SEGYIO_INCLUDE segyio/segy.h HINTS ${PWAVE_SEGYIO_HINTS})
  find_library(PWAVE_SEGYIO_LIB segyio HINTS ${PWAVE_SEGYIO_HINTS})
  if(NOT PWAVE_SEGYIO_INCLUDE OR NOT PWAVE_SEGYIO_LIB)
    set(PWAVE_SEGYIO_ERROR "pwave: segyio not found (apt-get install libsegyio-dev)")
    if(NOT PWAVE_SEGYIO_PACKAGE_MODE)
      message(FATAL_ERROR "${PWAVE_SEGYIO_ERROR}")
    endif()
  else()
    add_library(pwave::segyio INTERFACE IMPORTED)
    set_target_properties(pwave::segyio PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${PWAVE_SEGYIO_INCLUDE}"
      INTERFACE_LINK_LIBRARIES "${PWAVE_SEGYIO_LIB}")
  endif()
endif()
