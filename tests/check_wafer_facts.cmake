# Fails if a wafer fact is typed into code outside its one definition, engine/fabric/wafer.{h,cpp}:
# the PE's SRAM (48 KiB, 48 * 1024), the clock (1.1e9), the SRAM bandwidth (12 bytes a cycle).
# Comments may name them; code and the strings it shows read wl::kSramBytesPerPe, wl::kClockHz ...
# Run as: cmake -DROOT=<repository> -P check_wafer_facts.cmake
cmake_policy(SET CMP0007 NEW)
file(GLOB_RECURSE files "${ROOT}/engine/*.h" "${ROOT}/engine/*.cpp" "${ROOT}/ui/*.h" "${ROOT}/ui/*.cpp"
     "${ROOT}/cli/*.h" "${ROOT}/cli/*.cpp")
list(FILTER files EXCLUDE REGEX "/engine/fabric/wafer\\.(h|cpp)$")
set(bad "")
foreach(f ${files})
  file(STRINGS "${f}" lines REGEX "48 KiB|48 ?\\* ?1024|1\\.1e9|\\* 12\\.0|12\\.0 \\*|49152")
  foreach(l ${lines})
    string(REGEX REPLACE "^[ \t]*//.*" "" code "${l}")        # a comment line
    string(REGEX REPLACE "[ \t]//.*$" "" code "${code}")     # a comment after the code
    if(code MATCHES "48 KiB|48 ?\\* ?1024|1\\.1e9|\\* 12\\.0|12\\.0 \\*|49152")
      list(APPEND bad "${f}: ${l}")
    endif()
  endforeach()
endforeach()
if(bad)
  list(JOIN bad "\n  " msg)
  message(FATAL_ERROR "a wafer fact typed outside engine/fabric/wafer.h (read it from there):\n  ${msg}")
endif()
list(LENGTH files n)
message(STATUS "wafer facts check: ${n} files clean")
