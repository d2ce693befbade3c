# tta_module(NAME LIBS...): a static library of every *.c in the current folder (an INTERFACE
# library while the folder has none yet), linked to LIBS.
function(tta_module name)
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.c)
  if(srcs)
    add_library(${name} STATIC ${srcs})
    target_link_libraries(${name} PUBLIC tta_common ${ARGN})
  else()
    add_library(${name} INTERFACE)
    target_link_libraries(${name} INTERFACE tta_common ${ARGN})
  endif()
endfunction()
