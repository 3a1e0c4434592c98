//===- Star.h - A minimal "process group" over TCP for test ranks ---------===//
//
// Rank 0 listens on MASTER_ADDR:MASTER_PORT (as c10d's TCPStore does) and
// the other ranks connect to it; barrier() is the collective. That makes the
// test ranks use the port the harness picked, block in a "collective" the
// way Gloo does, and notice a peer that died.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_TEST_STAR_H
#define DDPHARNESS_TEST_STAR_H

#include "RankEnv.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

class Star {
public:
  explicit Star(const RankEnv &Env) : Env(Env) {
    sockaddr_in Addr{};
    Addr.sin_family = AF_INET;
    Addr.sin_port = htons(static_cast<uint16_t>(Env.Port));
    inet_pton(AF_INET, Env.Addr.c_str(), &Addr.sin_addr);
    if (Env.Rank == 0) {
      int Listener = socket(AF_INET, SOCK_STREAM, 0);
      int One = 1;
      setsockopt(Listener, SOL_SOCKET, SO_REUSEADDR, &One, sizeof(One));
      if (bind(Listener, reinterpret_cast<sockaddr *>(&Addr), sizeof(Addr)) ||
          listen(Listener, 64))
        fail("cannot listen on MASTER_PORT");
      for (int I = 1; I < Env.WorldSize; ++I) {
        int Fd = accept(Listener, nullptr, nullptr);
        if (Fd < 0)
          fail("accept");
        Peers.push_back(Fd);
      }
      close(Listener);
      return;
    }
    for (int Try = 0; Try < 200; ++Try) {
      int Fd = socket(AF_INET, SOCK_STREAM, 0);
      if (connect(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof(Addr)) ==
          0) {
        Peers.push_back(Fd);
        return;
      }
      close(Fd);
      usleep(50000);
    }
    fail("cannot connect to rank 0");
  }

  /// Every rank must call it; returns when all have.
  void barrier() {
    char Byte = 1;
    if (Env.Rank == 0) {
      for (int Fd : Peers)
        receive(Fd);
      for (int Fd : Peers)
        (void)!write(Fd, &Byte, 1);
    } else {
      (void)!write(Peers[0], &Byte, 1);
      receive(Peers[0]);
    }
  }

  /// What a rank that skipped a collective does next: wait for a result
  /// that never comes.
  void waitForRoot() { receive(Peers[0]); }

  /// Whether to say so when a peer's connection closes. When the harness
  /// stops hung ranks one after the other, the survivors would otherwise
  /// print that in a race with their own SIGTERM.
  bool ReportPeerLoss = true;

private:
  void receive(int Fd) {
    char Byte;
    ssize_t N;
    do
      N = read(Fd, &Byte, 1);
    while (N < 0 && errno == EINTR);
    if (N == 1)
      return;
    // The peer is gone. Gloo would wait for its timeout; so do we.
    if (ReportPeerLoss)
      std::fprintf(stderr, "rank %d: peer closed its connection; waiting\n",
                   Env.Rank);
    for (;;)
      pause();
  }

  [[noreturn]] void fail(const char *What) {
    std::fprintf(stderr, "rank %d: %s (port %d): %s\n", Env.Rank, What,
                 Env.Port, std::strerror(errno));
    std::exit(3);
  }

  const RankEnv &Env;
  std::vector<int> Peers;
};

#endif
