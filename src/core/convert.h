// The element conversion rules are public (gridops/convert.h); kernels include them here.
#pragma once

#include "gridops/convert.h"
