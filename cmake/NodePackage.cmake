# The npm package ptc-lisp (bindings/node): the Node-API addon
# build/node/ptc_lisp.node and `cmake --build build --target node-package`,
# which stages the package (index.js, index.d.ts, README.md, LICENSE, the
# addon, ptc-worker beside it (the worker processes of isolated runs: the
# addon's ptc::WorkerPool looks for it in the addon's folder) and a
# package.json without devDependencies) in build/node-package and
# packs it with `npm pack` into build/ptc-lisp-<version>.tgz. The addon links
# libptc.a and the protocol layer's objects, so the package needs no libptc
# on the machine (only the Debian shared libraries the engine links, as the
# ptc package's Depends say); it exports the two Node-API entry points and
# nothing else. It is compiled against the headers of the pinned
# node-api-headers package (bindings/node/package-lock.json, installed by
# scripts/setup with npm ci): nothing is downloaded at build time. Both are
# part of ALL in plain builds and in ASan+UBSan builds (whose tests run node
# with the sanitizer runtimes preloaded: an instrumented addon cannot be
# loaded into node otherwise); TSan and fuzz builds make none.
#
# This file is also the staging step, run with cmake -P at build time
# (inputs NODE, NPM, PACKAGE_DIR, ADDON, WORKER, SOURCE_DIR, STAGE, DIST_DIR, TARBALL,
# VERSION).
if(CMAKE_SCRIPT_MODE_FILE)
  file(REMOVE_RECURSE ${STAGE})
  file(MAKE_DIRECTORY ${STAGE})
  file(GLOB old_tarballs ${DIST_DIR}/ptc-lisp-*.tgz)
  if(old_tarballs)
    file(REMOVE ${old_tarballs})
  endif()
  foreach(name index.js index.d.ts README.md)
    file(COPY_FILE ${PACKAGE_DIR}/${name} ${STAGE}/${name})
  endforeach()
  file(COPY_FILE ${SOURCE_DIR}/LICENSE ${STAGE}/LICENSE)
  file(COPY_FILE ${ADDON} ${STAGE}/ptc_lisp.node)
  # Executable in the tarball (npm pack keeps the mode; npm install too).
  file(COPY ${WORKER} DESTINATION ${STAGE}
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                        WORLD_READ WORLD_EXECUTE)
  # The published package.json: the project's version, the addon's cpu, no
  # devDependencies (they build and check the package; a user installs none).
  execute_process(
    COMMAND ${NODE} -e [=[
const fs = require('fs');
const [from, to, version] = process.argv.slice(1);
const manifest = JSON.parse(fs.readFileSync(from, 'utf8'));
delete manifest.devDependencies;
manifest.version = version;
manifest.cpu = [process.arch]; // the addon is machine code for this one
fs.writeFileSync(to, JSON.stringify(manifest, null, 2) + '\n');
]=] ${PACKAGE_DIR}/package.json ${STAGE}/package.json ${VERSION}
    RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "node-package: writing ${STAGE}/package.json failed (${status})")
  endif()
  include(${CMAKE_CURRENT_LIST_DIR}/BindingPackages.cmake)
  ptc_binding_run(node-package ${STAGE} ${TARBALL}
                  ${NPM} pack --offline --silent --pack-destination ${DIST_DIR})
  return()
endif()

set(PTC_NODE_DIR ${PROJECT_SOURCE_DIR}/bindings/node)
set(PTC_NODE_API_INCLUDE ${PTC_NODE_DIR}/node_modules/node-api-headers/include)
set(PTC_NODE_TARBALL ${CMAKE_BINARY_DIR}/ptc-lisp-${PROJECT_VERSION}.tgz)
find_program(PTC_NODE node)
find_program(PTC_NPM npm)

include(${CMAKE_CURRENT_LIST_DIR}/BindingPackages.cmake)
ptc_binding_instrumented_reason(PTC_NODE_UNAVAILABLE node allow_asan)
if(PTC_NODE_UNAVAILABLE)
elseif(NOT PTC_NODE OR NOT PTC_NPM)
  set(PTC_NODE_UNAVAILABLE "node and npm are needed (scripts/setup installs them)")
  message(STATUS "node-package: no package, ${PTC_NODE_UNAVAILABLE}")
elseif(NOT EXISTS ${PTC_NODE_API_INCLUDE}/node_api.h)
  string(CONCAT PTC_NODE_UNAVAILABLE "${PTC_NODE_API_INCLUDE} is missing: run scripts/setup "
                                     "(npm ci in bindings/node), then reconfigure")
  # The build goes on without the package; node_package_tests says it is missing.
  message(STATUS "node-package: no package, ${PTC_NODE_UNAVAILABLE}")
endif()

if(PTC_NODE_UNAVAILABLE)
  ptc_binding_unavailable_target(node-package "${PTC_NODE_UNAVAILABLE}")
  return()
endif()

file(GLOB PTC_NODE_SOURCES CONFIGURE_DEPENDS ${PTC_NODE_DIR}/src/*.cpp)
add_library(ptc_node_addon MODULE ${PTC_NODE_SOURCES} $<TARGET_OBJECTS:ptc_lisp_eval>
                                   $<TARGET_OBJECTS:ptc_agent>)
add_dependencies(ptc_node_addon ptc_lisp_eval ptc_agent)
target_link_libraries(ptc_node_addon PRIVATE ptc_options ptc_static fmt::fmt)
target_include_directories(ptc_node_addon PRIVATE ${PROJECT_SOURCE_DIR})
target_include_directories(ptc_node_addon SYSTEM PRIVATE ${PTC_NODE_API_INCLUDE})
# Node-API 8: Node >= 12.22, 14.17, 16 (the package asks for Node >= 20).
target_compile_definitions(ptc_node_addon PRIVATE NAPI_VERSION=8)
set_target_properties(ptc_node_addon PROPERTIES
                      PREFIX "" OUTPUT_NAME ptc_lisp SUFFIX .node
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/node
                      CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
# Only the Node-API entry points are exported: the engine's symbols (from
# libptc.a, compiled with default visibility) stay inside the addon, so
# another addon or a libptc.so in the same process cannot interpose them.
# The napi_* functions stay undefined: node provides them when it loads the addon.
set(PTC_NODE_SYMBOL_MAP ${CMAKE_CURRENT_BINARY_DIR}/ptc_lisp_node.map)
file(CONFIGURE OUTPUT ${PTC_NODE_SYMBOL_MAP} CONTENT [=[
{
  global:
    napi_register_module_v1;
    node_api_module_get_api_version_v1;
  local:
    *;
};
]=])
target_link_options(ptc_node_addon PRIVATE "LINKER:--version-script=${PTC_NODE_SYMBOL_MAP}")
set_property(TARGET ptc_node_addon APPEND PROPERTY LINK_DEPENDS ${PTC_NODE_SYMBOL_MAP})

# engine_loop.node: ptc::run in a C++ loop inside node, the baseline of
# bindings/node/bench/overhead.mjs (not packed).
add_library(ptc_node_engine_loop MODULE ${PTC_NODE_DIR}/bench/engine_loop/engine_loop.cpp)
target_link_libraries(ptc_node_engine_loop PRIVATE ptc_options ptc_static)
target_include_directories(ptc_node_engine_loop PRIVATE ${PROJECT_SOURCE_DIR})
target_include_directories(ptc_node_engine_loop SYSTEM PRIVATE ${PTC_NODE_API_INCLUDE})
target_compile_definitions(ptc_node_engine_loop PRIVATE NAPI_VERSION=8)
set_target_properties(ptc_node_engine_loop PROPERTIES
                      PREFIX "" OUTPUT_NAME engine_loop SUFFIX .node
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/node
                      CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
target_link_options(ptc_node_engine_loop PRIVATE "LINKER:--version-script=${PTC_NODE_SYMBOL_MAP}")

add_custom_command(
  OUTPUT ${PTC_NODE_TARBALL}
  COMMAND ${CMAKE_COMMAND} -DNODE=${PTC_NODE} -DNPM=${PTC_NPM} -DPACKAGE_DIR=${PTC_NODE_DIR}
          -DADDON=$<TARGET_FILE:ptc_node_addon> -DWORKER=$<TARGET_FILE:ptc-worker>
          -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DSTAGE=${CMAKE_BINARY_DIR}/node-package -DDIST_DIR=${CMAKE_BINARY_DIR}
          -DTARBALL=${PTC_NODE_TARBALL} -DVERSION=${PROJECT_VERSION}
          -P ${CMAKE_CURRENT_LIST_FILE}
  DEPENDS ptc_node_addon ptc-worker ${PTC_NODE_DIR}/index.js ${PTC_NODE_DIR}/index.d.ts
          ${PTC_NODE_DIR}/README.md ${PTC_NODE_DIR}/package.json ${PROJECT_SOURCE_DIR}/LICENSE
          ${CMAKE_CURRENT_LIST_FILE}
  COMMENT "Packing the npm package ${PTC_NODE_TARBALL}"
  VERBATIM)
add_custom_target(node-package ALL DEPENDS ${PTC_NODE_TARBALL})
