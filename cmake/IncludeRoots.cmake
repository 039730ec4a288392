# What each library may include, in one place. A library's include root is a
# folder of links in the build tree holding only its own folder and those of
# the layers below it, so an include that points the wrong way does not
# build. (scripts/check-layering says the same of every file, compiled or
# not.) Public headers are listed one by one: error, host_value, limits and
# tools are the runtime's view of the host; ptc.hpp is the embedding API.
#
# An entry is a folder or file of the source tree, linked whole; "DIR/*" links
# the files of DIR but none of its sub-folders (a room above it, such as
# protocol/agent/model over protocol/agent).
set(PTC_SEES_runtime runtime include/ptc/error.hpp include/ptc/host_value.hpp
                     include/ptc/limits.hpp include/ptc/tools.hpp)
set(PTC_SEES_frontend ${PTC_SEES_runtime} frontend)
set(PTC_SEES_compiler ${PTC_SEES_frontend} compiler)
set(PTC_SEES_vm ${PTC_SEES_compiler} vm)
set(PTC_SEES_scheduler ${PTC_SEES_vm} scheduler)
set(PTC_SEES_embedding ${PTC_SEES_scheduler} embedding include/ptc/ptc.hpp
                       include/ptc/worker_pool.hpp)
set(PTC_SEES_isolation ${PTC_SEES_embedding} isolation)
set(PTC_SEES_capi ${PTC_SEES_embedding} capi include/ptc/ptc.h)
set(PTC_SEES_net ${PTC_SEES_runtime} protocol/net)
set(PTC_SEES_lisp_eval ${PTC_SEES_embedding} protocol/lisp_eval)
set(PTC_SEES_store ${PTC_SEES_embedding} protocol/store)
set(PTC_SEES_upstream ${PTC_SEES_embedding} protocol/net protocol/upstream
                      include/ptc/upstreams.hpp)
set(PTC_SEES_agent ${PTC_SEES_lisp_eval} protocol/agent/*)
set(PTC_SEES_model ${PTC_SEES_agent} protocol/net protocol/agent/model)
set(PTC_SEES_mcp ${PTC_SEES_lisp_eval} protocol/store protocol/mcp)
set(PTC_SEES_libptc_protocol ${PTC_SEES_model} capi include/ptc/ptc.h include/ptc/ptc_protocol.h
                             protocol/libptc_protocol)

# Gives `target` the include root of `layer` (PUBLIC: what links it may see
# what it sees). `include/` inside the root also serves <ptc/...> includes.
function(ptc_include_root target layer)
  set(root ${CMAKE_BINARY_DIR}/include-roots/${layer})
  list(REMOVE_DUPLICATES PTC_SEES_${layer})
  foreach(entry ${PTC_SEES_${layer}})
    if(entry MATCHES "^(.*)/\\*$")
      file(GLOB files LIST_DIRECTORIES false CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${CMAKE_MATCH_1}/*)
      foreach(file ${files})
        file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR} ${file})
        ptc_link_into_root(${root} ${relative})
      endforeach()
    else()
      ptc_link_into_root(${root} ${entry})
    endif()
  endforeach()
  file(MAKE_DIRECTORY ${root}/include)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>
                                              $<BUILD_INTERFACE:${root}/include>)
endfunction()

function(ptc_link_into_root root entry)
  get_filename_component(parent ${root}/${entry} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT EXISTS ${root}/${entry})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${entry} ${root}/${entry} SYMBOLIC)
  endif()
endfunction()

# Roots are made afresh at each configure: a file added to a "DIR/*" folder
# needs a new link.
file(REMOVE_RECURSE ${CMAKE_BINARY_DIR}/include-roots)

# Programs above every layer (the CLI, tests, benchmarks, bindings) see the
# whole tree.
add_library(ptc_whole_tree INTERFACE)
target_include_directories(ptc_whole_tree INTERFACE ${PROJECT_SOURCE_DIR}
                                                    ${PROJECT_SOURCE_DIR}/include)
