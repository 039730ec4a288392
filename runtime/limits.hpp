// The limits of a run are public (include/ptc/limits.hpp): hosts set them in
// RunOptions. The engine includes them from here like its other runtime headers.
#pragma once

#include "include/ptc/limits.hpp"
