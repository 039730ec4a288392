function(ptc_apply_warnings target)
  target_compile_options(${target} INTERFACE -Wall -Wextra -Wnon-virtual-dtor
                                             -Wimplicit-fallthrough)
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
