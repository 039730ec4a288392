// The error types are public (include/ptc/error.hpp): hosts read them in a
// Step. The engine includes them from here like its other runtime headers.
#pragma once

#include "include/ptc/error.hpp"
