//===- ProbeWriter.h - The probe's files, written off the training thread -===//
//
// The probe formats a step's record on the training thread and queues it
// here; a thread of its own, every 50 ms or at 1 MiB queued, appends the
// queued values to probe-rank<R>.bin and then their JSON lines to
// probe-rank<R>.jsonl, flushing each, so a reader never sees a line whose
// offsets point past the end of the .bin. Destruction writes whatever is
// still queued.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_SRC_PROBEWRITER_H
#define DDPHARNESS_SRC_PROBEWRITER_H

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
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

  /// Queues one step: \p Values for the .bin, then \p Line for the .jsonl.
  /// Waits while much is queued already; throws std::runtime_error when an
  /// earlier write failed.
  void push(std::vector<float> Values, std::string Line);

private:
  struct Record {
    std::vector<float> Values;
    std::string Line;
  };

  void run();
  /// Writes the records; an error message, or empty.
  std::string write(const std::deque<Record> &Batch);

  std::string Base;
  FILE *Jsonl = nullptr;
  FILE *Bin = nullptr;
  std::mutex Lock;
  std::condition_variable Wake, Room;
  std::deque<Record> Queue;
  size_t QueuedBytes = 0;
  bool Closing = false;
  std::string Failure;
  std::thread Thread;
};

} // namespace detail
} // namespace ddpharness

#endif
