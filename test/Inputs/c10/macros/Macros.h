// ddplint mock of <c10/macros/Macros.h> (LibTorch 1.13): export macros are
// empty, and the namespace plumbing matches the real header: `at` pulls in
// all of `c10`.
#pragma once

#ifndef C10_API
#define C10_API
#endif
#ifndef TORCH_API
#define TORCH_API
#endif
#ifndef C10_EXPORT
#define C10_EXPORT
#endif
#define C10_UNUSED __attribute__((__unused__))
#define C10_DEPRECATED __attribute__((deprecated))
#define C10_DEPRECATED_MESSAGE(m) __attribute__((deprecated(m)))

namespace c10 {}
namespace caffe2 {
using namespace c10;
}
namespace at {
using namespace c10;
}
