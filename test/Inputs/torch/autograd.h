// ddplint mock of <torch/autograd.h> (LibTorch 1.13).
#pragma once
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>
