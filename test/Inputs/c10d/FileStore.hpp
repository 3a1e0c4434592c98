// ddplint mock: pre-1.9 include path <c10d/FileStore.hpp> (torch/lib/c10d).
#pragma once
#include <torch/csrc/distributed/c10d/FileStore.hpp>
