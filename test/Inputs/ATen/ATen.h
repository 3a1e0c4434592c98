// ddplint mock of <ATen/ATen.h> (LibTorch 1.13).
#pragma once
#include <c10/macros/Macros.h>
#include <c10/util/intrusive_ptr.h>
#include <c10/core/GradMode.h>
#include <ATen/core/Tensor.h>
#include <ATen/Functions.h>
#include <ATen/core/ivalue.h>
