// The VM's big reservations (a run's register stack and its call frames,
// sized for the deepest run allowed and touched only as far as it goes) are
// mapped straight from the kernel. Thousands of them alive at once (one per
// suspended execution) then cost address space and the pages touched, not
// the allocator's searches through thousands of large blocks.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>

namespace ptc {

inline void* map_reserved(size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

inline void unmap_reserved(void* p, size_t bytes) {
  if (p) ::munmap(p, bytes);
}

// For a std::vector that is reserved once and never grows past it.
template <class T>
struct MappedAllocator {
  using value_type = T;
  MappedAllocator() = default;
  template <class U>
  MappedAllocator(const MappedAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(map_reserved(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { unmap_reserved(p, n * sizeof(T)); }
  friend bool operator==(const MappedAllocator&, const MappedAllocator&) { return true; }
};

}  // namespace ptc
