// ddplint mock of <torch/enum.h> (LibTorch 1.13): torch::enumtype::k<Name>
// tag types and the torch::k<Name> constants used by nn options.
#pragma once
#include <c10/macros/Macros.h>
#include <c10/util/variant.h>

#define DDPLINT_MOCK_TORCH_ENUM(name)        \
  namespace torch {                          \
  namespace enumtype {                       \
  struct k##name {                           \
    k##name() {}                             \
  };                                         \
  }                                          \
  TORCH_API extern const enumtype::k##name k##name; \
  }

DDPLINT_MOCK_TORCH_ENUM(Linear)
DDPLINT_MOCK_TORCH_ENUM(Conv1D)
DDPLINT_MOCK_TORCH_ENUM(Conv2D)
DDPLINT_MOCK_TORCH_ENUM(Conv3D)
DDPLINT_MOCK_TORCH_ENUM(Sigmoid)
DDPLINT_MOCK_TORCH_ENUM(Tanh)
DDPLINT_MOCK_TORCH_ENUM(ReLU)
DDPLINT_MOCK_TORCH_ENUM(LeakyReLU)
DDPLINT_MOCK_TORCH_ENUM(FanIn)
DDPLINT_MOCK_TORCH_ENUM(FanOut)
DDPLINT_MOCK_TORCH_ENUM(None)
DDPLINT_MOCK_TORCH_ENUM(Mean)
DDPLINT_MOCK_TORCH_ENUM(Sum)
DDPLINT_MOCK_TORCH_ENUM(Zeros)
#undef DDPLINT_MOCK_TORCH_ENUM
