// Which sanitizer this translation unit is built with. GCC defines
// __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang only answers
// __has_feature(address_sanitizer) / __has_feature(thread_sanitizer).
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define PTC_SANITIZER_ADDRESS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTC_SANITIZER_ADDRESS 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define PTC_SANITIZER_THREAD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PTC_SANITIZER_THREAD 1
#endif
#endif
