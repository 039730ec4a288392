# Every dependency is a Debian package installed by scripts/setup; nothing is
# downloaded at configure or build time.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(mimalloc REQUIRED)
find_package(fmt REQUIRED)
find_package(simdjson REQUIRED)
# Boost.Beast and Asio (header-only) for the MCP server's HTTP transport.
find_package(Boost 1.74 REQUIRED)
# OpenSSL for https upstream MCP servers (protocol/upstream/http_client.cpp).
find_package(OpenSSL 3 REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
pkg_check_modules(GMP REQUIRED IMPORTED_TARGET gmp)
# libseccomp for the jail of isolated runs' worker processes (isolation/).
pkg_check_modules(SECCOMP REQUIRED IMPORTED_TARGET libseccomp)
# hiredis for the shared store of `ptc mcp --http --store` (protocol/store).
pkg_check_modules(HIREDIS REQUIRED IMPORTED_TARGET hiredis)
# libedit (BSD editline): line editing and history for ptc repl.
pkg_check_modules(LIBEDIT REQUIRED IMPORTED_TARGET libedit)

if(TARGET mimalloc-static)
  set(PTC_MIMALLOC mimalloc-static)
else()
  set(PTC_MIMALLOC mimalloc)
endif()

if(PTC_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(PTC_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
