//===- ProbeWriter.cpp - The probe's files, one step at a time ------------===//

#include "ProbeWriter.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

using namespace ddpharness::detail;

namespace {

int create(const std::string &Path) {
  return open(Path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
              0644);
}

/// Writes all of \p Size bytes (a signal may cut a write short).
bool writeAll(int Fd, const void *Data, size_t Size) {
  const char *Bytes = static_cast<const char *>(Data);
  while (Size > 0) {
    ssize_t N = ::write(Fd, Bytes, Size);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Bytes += N;
    Size -= size_t(N);
  }
  return true;
}

} // namespace

ProbeWriter::ProbeWriter(const std::string &Base) : Base(Base) {
  Jsonl = create(Base + ".jsonl");
  Bin = create(Base + ".bin");
  if (Jsonl < 0 || Bin < 0) {
    std::string Why = std::strerror(errno);
    if (Jsonl >= 0)
      close(Jsonl);
    if (Bin >= 0)
      close(Bin);
    throw std::runtime_error("probe: cannot write " + Base +
                             ".{jsonl,bin}: " + Why);
  }
}

ProbeWriter::~ProbeWriter() {
  close(Jsonl);
  close(Bin);
}

void ProbeWriter::push(std::vector<float> Values, std::string Line) {
  // The values reach the .bin before the line that points at them.
  if (!writeAll(Bin, Values.data(), Values.size() * sizeof(float)))
    throw std::runtime_error("probe: short write to " + Base +
                             ".bin: " + std::strerror(errno));
  if (!writeAll(Jsonl, Line.data(), Line.size()))
    throw std::runtime_error("probe: short write to " + Base +
                             ".jsonl: " + std::strerror(errno));
}
