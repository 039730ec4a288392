# What the language packages (cmake/PythonWheel.cmake: python-wheel,
# cmake/NodePackage.cmake: node-package) share.

# Sets `out` to why this build makes no package for `interpreter`, or "":
# an instrumented (sanitizer, TSan, fuzz) library cannot be loaded into an
# uninstrumented interpreter.
# With `allow_asan`, an ASan+UBSan build (PTC_SANITIZE) makes its package
# anyway: its tests preload the sanitizer runtimes into the interpreter.
function(ptc_binding_instrumented_reason out interpreter)
  set(reason "")
  if(PTC_TSAN OR PTC_FUZZ OR (PTC_SANITIZE AND NOT "${ARGV2}" STREQUAL "allow_asan"))
    string(CONCAT reason "plain builds only: an instrumented library cannot be loaded into an "
                         "uninstrumented ${interpreter}")
  endif()
  set(${out} "${reason}" PARENT_SCOPE)
endfunction()

# A target that only says why it cannot be built, and fails: the build goes
# on without the package, and asking for it by name says why.
function(ptc_binding_unavailable_target target reason)
  add_custom_target(${target}
                    COMMAND ${CMAKE_COMMAND} -E echo "${target}: ${reason}"
                    COMMAND ${CMAKE_COMMAND} -E false VERBATIM)
endfunction()

# Script mode (cmake -P, at build time): runs the command ARGN in `stage`;
# fails, naming `target` and showing what the command printed, unless it
# succeeds and leaves `output`.
function(ptc_binding_run target stage output)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${stage} RESULT_VARIABLE status
                  OUTPUT_VARIABLE log ERROR_VARIABLE log)
  if(NOT status EQUAL 0 OR NOT EXISTS ${output})
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "${target}: `${command}` in ${stage} failed (${status}) or made no "
                        "${output}:\n${log}")
  endif()
endfunction()
