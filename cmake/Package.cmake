# `cpack` in the build directory: two Debian packages from the two install
# components (cmake/Install.cmake): `ptc` (the executable, libptc.so.N,
# libptc_protocol.so.N, ptc-worker in /usr/libexec/ptc/, the Python module,
# docs) and `libptc-dev` (headers,
# libptc.so, libptc_protocol.so, libptc.a, the CMake package, ptc.pc).
# Dependencies: dpkg-shlibdeps computes ptc's from what its files link; the
# -dev package needs what a static link of the engine needs.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ptc)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "ptc-lisp")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "PTC-Lisp: a sandboxed Clojure subset that LLMs write programs in")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "ptc-lisp maintainers <ptc-lisp@localhost>")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/ptc-lisp/ptc-lisp")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME ptc)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION interpreters)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "The ptc command (eval, run, batch, repl, the MCP server), libptc.so and
libptc_protocol.so (the lisp_eval tool and the agent loop), ptc-worker
(the jailed worker processes of isolated runs): a bytecode
compiler and register VM for PTC-Lisp, the deterministic, sandboxed Clojure
subset that LLMs write small programs in to orchestrate tools.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libptc-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "ptc (= ${PROJECT_VERSION}), libmimalloc-dev, libfmt-dev, libsimdjson-dev, libgmp-dev, libre2-dev, libxxhash-dev, libutf8proc-dev, libssl-dev, libseccomp-dev, pkg-config")
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "Headers and libraries to embed PTC-Lisp: the C++20 API (ptc/ptc.hpp), the C
API (ptc/ptc.h), libptc.so and libptc.a, a CMake package (find_package(ptc))
and ptc.pc for pkg-config.")
include(CPack)
