// ddplint mock of <c10/core/GradMode.h> (LibTorch 1.13).
#pragma once
#include <c10/macros/Macros.h>

namespace c10 {
struct C10_API GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};
struct C10_API AutoGradMode {
  AutoGradMode(bool enabled) : prev_mode(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_mode); }
  bool prev_mode;
};
struct C10_API NoGradGuard : public AutoGradMode {
  NoGradGuard() : AutoGradMode(/*enabled=*/false) {}
};
} // namespace c10

namespace at {
using GradMode = c10::GradMode;
using AutoGradMode = c10::AutoGradMode;
using NoGradGuard = c10::NoGradGuard;
} // namespace at
