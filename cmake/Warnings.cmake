function(ptc_apply_warnings target)
  target_compile_options(${target} INTERFACE -Wall -Wextra -Wshadow=local -Wnon-virtual-dtor
                                             -Wimplicit-fallthrough)
  if(PTC_WERROR)
    target_compile_options(${target} INTERFACE -Werror)
  endif()
endfunction()
