# libptc: the engine (runtime, frontend, compiler, vm, scheduler, embedding, isolation), the C API and the
# upstream MCP clients (include/ptc/upstreams.hpp) as one library a host installs and links, shared (with a SONAME and
# versioned symbols) and static. Both are built from the layer libraries'
# objects, so nothing is compiled twice.
set(PTC_ENGINE_LAYERS ptc_runtime ptc_frontend ptc_compiler ptc_vm ptc_scheduler ptc_embedding
                      ptc_isolation)
if(TARGET ptc_capi)
  list(APPEND PTC_ENGINE_LAYERS ptc_capi)
endif()
if(TARGET ptc_upstream)
  # The one HTTP(S) client (protocol/net) under the upstream MCP clients.
  list(APPEND PTC_ENGINE_LAYERS ptc_net ptc_upstream)
endif()
set(PTC_ENGINE_OBJECTS)
foreach(layer IN LISTS PTC_ENGINE_LAYERS)
  list(APPEND PTC_ENGINE_OBJECTS $<TARGET_OBJECTS:${layer}>)
endforeach()

# What the engine's objects call into: Debian shared libraries.
set(PTC_ENGINE_DEPENDENCIES ${PTC_MIMALLOC} fmt::fmt simdjson::simdjson PkgConfig::GMP
    PkgConfig::XXHASH PkgConfig::UTF8PROC PkgConfig::RE2 OpenSSL::Crypto Threads::Threads
    PkgConfig::SECCOMP ${CMAKE_DL_LIBS})
if(TARGET ptc_upstream)
  list(APPEND PTC_ENGINE_DEPENDENCIES OpenSSL::SSL)
endif()

add_library(ptc_shared SHARED ${PTC_ENGINE_OBJECTS})
add_library(ptc_static STATIC ${PTC_ENGINE_OBJECTS})
foreach(lib ptc_shared ptc_static)
  add_dependencies(${lib} ${PTC_ENGINE_LAYERS})
  set_target_properties(${lib} PROPERTIES OUTPUT_NAME ptc
                                          LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
                                          ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  target_include_directories(${lib} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${lib} INTERFACE cxx_std_20)
endforeach()

set_target_properties(ptc_shared PROPERTIES VERSION ${PROJECT_VERSION}
                                            SOVERSION ${PROJECT_VERSION_MAJOR}
                                            EXPORT_NAME ptc)
target_link_libraries(ptc_shared PRIVATE ${PTC_ENGINE_DEPENDENCIES})
# Only the public API is exported (ptc::... and ptc_...), every symbol under
# the version node PTC_<major>; the dependencies' and internal template
# instances stay local. Under the sanitizers the library leaves the sanitizer
# runtime to the executable, so -z defs (no undefined symbol) only applies to
# plain builds.
set(PTC_SYMBOL_MAP ${CMAKE_CURRENT_LIST_DIR}/ptc.map)
target_link_options(ptc_shared PRIVATE "LINKER:--version-script=${PTC_SYMBOL_MAP}")
set_property(TARGET ptc_shared APPEND PROPERTY LINK_DEPENDS ${PTC_SYMBOL_MAP})
if(NOT PTC_SANITIZE AND NOT PTC_TSAN AND NOT PTC_FUZZ)
  target_link_options(ptc_shared PRIVATE "LINKER:-z,defs")
endif()

# A host linking the static library also links what the engine calls into.
set_target_properties(ptc_static PROPERTIES EXPORT_NAME ptc_static)
target_link_libraries(ptc_static INTERFACE ${PTC_ENGINE_DEPENDENCIES})
