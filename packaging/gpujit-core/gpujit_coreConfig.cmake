# find_package(gpujit_core CONFIG): the installed gpujit-core wheel's core library as gpujit::core.
# This file is at <site-packages>/gpujit_core/lib/cmake/gpujit_core/.
get_filename_component(_gpujit_core_root "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET gpujit::core)
  add_library(gpujit::core SHARED IMPORTED)
  set_target_properties(gpujit::core PROPERTIES
    IMPORTED_LOCATION "${_gpujit_core_root}/lib/libgpujit_core.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_gpujit_core_root}/include"
    INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1
    INTERFACE_COMPILE_FEATURES cxx_std_20)
endif()
set(gpujit_core_LIBRARY_DIR "${_gpujit_core_root}/lib")
set(gpujit_core_INCLUDE_DIR "${_gpujit_core_root}/include")
unset(_gpujit_core_root)
