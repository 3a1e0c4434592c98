//===- ProbeWriter.h - The probe's files, one step at a time --------------===//
//
// Each step's record is written when the probe records it: its values are
// appended to probe-rank<R>.bin, then its JSON line to probe-rank<R>.jsonl,
// each with one write(2) on a file opened for appending. A reader never sees
// a line whose offsets point past the end of the .bin, and a rank that
// crashes or is killed after a step has that step on disk: a crash loses at
// most the record in flight. (A write of a few kilobytes to the page cache
// costs less than waking a writer thread would.)
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_SRC_PROBEWRITER_H
#define DDPHARNESS_SRC_PROBEWRITER_H

#include <string>
#include <vector>

namespace ddpharness {
namespace detail {

class ProbeWriter {
public:
  /// Creates \p Base.jsonl and \p Base.bin; throws std::runtime_error when
  /// it cannot.
  explicit ProbeWriter(const std::string &Base);
  ~ProbeWriter();
  ProbeWriter(const ProbeWriter &) = delete;
  ProbeWriter &operator=(const ProbeWriter &) = delete;

  /// Writes one step: \p Values to the .bin, then \p Line to the .jsonl.
  /// Throws std::runtime_error when a write fails.
  void push(std::vector<float> Values, std::string Line);

private:
  std::string Base;
  int Jsonl = -1;
  int Bin = -1;
};

} // namespace detail
} // namespace ddpharness

#endif
