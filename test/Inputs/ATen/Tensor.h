// ddplint mock of <ATen/Tensor.h> (LibTorch 1.13).
#pragma once
#include <ATen/core/Tensor.h>
