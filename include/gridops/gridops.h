// The umbrella header: everything gridops offers.
#pragma once

#include "gridops/convert.h"
#include "gridops/dtype.h"
#include "gridops/isa.h"
#include "gridops/parallel.h"
#include "gridops/status.h"
#include "gridops/tensor.h"
#include "gridops/version.h"
#include "gridops/ops/affine_grid.h"
#include "gridops/ops/affine_warp.h"
#include "gridops/ops/gather.h"
#include "gridops/ops/grid_sample.h"
#include "gridops/ops/modes.h"
#include "gridops/ops/ms_deform_attn.h"
#include "gridops/ops/pad.h"
#include "gridops/ops/resample.h"
#include "gridops/ops/resize.h"
