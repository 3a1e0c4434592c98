//===- ProbeWriter.cpp - The probe's files, off the training thread -------===//

#include "ProbeWriter.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

using namespace ddpharness::detail;

/// A slow disk makes training wait rather than the queue grow without end.
static constexpr size_t MaxQueuedBytes = size_t(64) << 20;
/// The writer wakes at this much queued, or after FlushInterval: a step
/// only queues its record, and waking a thread at every step costs the
/// training thread its core on a busy machine.
static constexpr size_t WakeBytes = size_t(1) << 20;
static constexpr std::chrono::milliseconds FlushInterval(50);

static size_t bytesOf(const std::vector<float> &Values,
                      const std::string &Line) {
  return Values.size() * sizeof(float) + Line.size();
}

ProbeWriter::ProbeWriter(const std::string &Base) : Base(Base) {
  Jsonl = std::fopen((Base + ".jsonl").c_str(), "w");
  Bin = std::fopen((Base + ".bin").c_str(), "wb");
  if (!Jsonl || !Bin) {
    std::string Why = std::strerror(errno);
    if (Jsonl)
      std::fclose(Jsonl);
    if (Bin)
      std::fclose(Bin);
    throw std::runtime_error("probe: cannot write " + Base +
                             ".{jsonl,bin}: " + Why);
  }
  Thread = std::thread([this] { run(); });
}

ProbeWriter::~ProbeWriter() {
  {
    std::lock_guard<std::mutex> Guard(Lock);
    Closing = true;
  }
  Wake.notify_one();
  Thread.join();
  std::fclose(Jsonl);
  std::fclose(Bin);
  if (!Failure.empty())
    std::fprintf(stderr, "%s\n", Failure.c_str());
}

void ProbeWriter::push(std::vector<float> Values, std::string Line) {
  std::unique_lock<std::mutex> Guard(Lock);
  Room.wait(Guard,
            [&] { return QueuedBytes < MaxQueuedBytes || !Failure.empty(); });
  if (!Failure.empty())
    throw std::runtime_error(Failure);
  QueuedBytes += bytesOf(Values, Line);
  Queue.push_back({std::move(Values), std::move(Line)});
  bool WakeNow = QueuedBytes >= WakeBytes;
  Guard.unlock();
  if (WakeNow)
    Wake.notify_one();
}

void ProbeWriter::run() {
  std::unique_lock<std::mutex> Guard(Lock);
  while (true) {
    Wake.wait_for(Guard, FlushInterval,
                  [&] { return Closing || QueuedBytes >= WakeBytes; });
    bool Last = Closing;
    std::deque<Record> Batch;
    Batch.swap(Queue);
    bool Failed = !Failure.empty();
    Guard.unlock();
    std::string Error = Failed || Batch.empty() ? "" : write(Batch);
    Guard.lock();
    for (const Record &R : Batch)
      QueuedBytes -= bytesOf(R.Values, R.Line);
    if (!Error.empty())
      Failure = Error;
    Room.notify_all();
    if (Last)
      return;
  }
}

std::string ProbeWriter::write(const std::deque<Record> &Batch) {
  // Every value of the batch reaches the .bin before a line of it.
  for (const Record &R : Batch) {
    size_t Count = R.Values.size();
    if (std::fwrite(R.Values.data(), sizeof(float), Count, Bin) != Count)
      return "probe: short write to " + Base + ".bin: " + std::strerror(errno);
  }
  if (std::fflush(Bin) != 0)
    return "probe: short write to " + Base + ".bin: " + std::strerror(errno);
  for (const Record &R : Batch)
    if (std::fputs(R.Line.c_str(), Jsonl) < 0)
      return "probe: short write to " + Base + ".jsonl: " +
             std::strerror(errno);
  if (std::fflush(Jsonl) != 0)
    return "probe: short write to " + Base + ".jsonl: " + std::strerror(errno);
  return "";
}
