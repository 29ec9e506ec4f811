// Reading a mapped file that another process cuts short: the pages past its new end would raise SIGBUS and kill the
// reader. A guarded mapping's lost pages read as zeros instead, and the reading code asks afterwards whether that
// happened (InputText turns it into "file changed while being read", exit 74). One process-wide SIGBUS handler,
// installed with the first guard; a SIGBUS outside every guarded mapping gets the disposition it had before.
#pragma once

#include <cstddef>

namespace vtools {

/// Guards the mapping [begin, begin + size): returns its slot, or -1 when every slot is taken (the caller then reads
/// the file into memory instead). At most kMaxGuardedMappings at once.
int guard_mapping(const void* begin, std::size_t size);

/// Whether a page of the mapping in `slot` was lost (the file was cut short under it) since it was guarded.
bool mapping_lost_pages(int slot);

/// Ends the guard of `slot` (before the mapping is unmapped); -1 does nothing.
void unguard_mapping(int slot);

inline constexpr int kMaxGuardedMappings = 64;

}  // namespace vtools
