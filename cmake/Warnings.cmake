function(ptc_apply_warnings target)
  # -Wnon-virtual-dtor is C++ only (the C API's tests are C).
  target_compile_options(${target} INTERFACE -Wall -Wextra -Wimplicit-fallthrough
                                             $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor>)
  # Locals shadowing locals: GCC spells it -Wshadow=local; clang's -Wshadow is
  # the nearest (it also covers shadowed fields and globals).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} INTERFACE -Wshadow=local)
  else()
    target_compile_options(${target} INTERFACE -Wshadow)
  endif()
  if(PTC_WERROR)
    target_compile_options(${target} INTERFACE -Werror)
  endif()
endfunction()
