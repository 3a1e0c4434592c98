// Preloaded into ddp-scenario (LD_PRELOAD) by fork-ranks-thread.test: a
// thread that exists before main, so the supervisor must not fork the ranks
// from this process and execs them afresh instead.
#include <pthread.h>
#include <unistd.h>

namespace {

void *sleepForever(void *) {
  for (;;)
    pause();
  return nullptr;
}

struct StartThread {
  StartThread() {
    pthread_t Thread;
    if (pthread_create(&Thread, nullptr, sleepForever, nullptr) == 0)
      pthread_detach(Thread);
  }
} Start;

} // namespace
