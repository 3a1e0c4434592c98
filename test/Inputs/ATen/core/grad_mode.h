// ddplint mock of <ATen/core/grad_mode.h> (LibTorch 1.13).
#pragma once
#include <c10/core/GradMode.h>
