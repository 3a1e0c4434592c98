//===- OutputLines.h - Splitting a rank's output into printable lines -----===//
//
// Ranks print whatever they like: binary bytes, lines of megabytes, output
// without a final newline. LineSplitter turns a byte stream into lines that
// are safe to print behind a `[rank R]` prefix: bounded in length and free of
// control bytes and broken UTF-8.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_OUTPUTLINES_H
#define DDPHARNESS_LAUNCHER_OUTPUTLINES_H

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ddpharness {

/// Escapes what a terminal should not receive: control bytes other than tab
/// become `\xNN`, and so does every byte that is not part of valid UTF-8.
std::string sanitizeLine(std::string_view Raw);

class LineSplitter {
public:
  /// Lines longer than this are cut into pieces of at most this many bytes.
  static constexpr size_t MaxLineBytes = 4096;

  /// \p Emit receives each sanitized line (without its newline).
  explicit LineSplitter(std::function<void(const std::string &)> Emit)
      : Emit(std::move(Emit)) {}

  void feed(const char *Data, size_t Size);
  /// Emits what is left after the last newline (output that did not end in
  /// one).
  void finish();

private:
  void emitRaw(std::string_view Raw);

  std::function<void(const std::string &)> Emit;
  std::string Pending;
};

/// A line of the backtrace LibTorch 2.x appends to every c10::Error's
/// message ("Exception raised from ...", then "frame #N: ..."): the line
/// that says what went wrong comes before it.
bool isBacktraceLine(std::string_view Line);

} // namespace ddpharness

#endif
