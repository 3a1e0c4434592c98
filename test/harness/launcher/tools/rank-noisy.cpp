//===- rank-noisy.cpp - A rank whose output is hostile to line printing ---===//
//
// Prints every byte value, invalid UTF-8, a 100000-byte line, CR-LF line
// ends, interleaved stdout and stderr, and ends without a newline.
//
//===----------------------------------------------------------------------===//

#include "RankEnv.h"

#include <string>
#include <unistd.h>

static void out(int Fd, const std::string &S) {
  size_t Done = 0;
  while (Done < S.size()) {
    ssize_t N = write(Fd, S.data() + Done, S.size() - Done);
    if (N <= 0)
      return;
    Done += N;
  }
}

int main() {
  RankEnv Env = readRankEnv();
  std::string R = std::to_string(Env.Rank);
  out(1, "begin " + R + "\n");
  std::string Bytes = "bytes:";
  for (int C = 0; C < 256; ++C)
    if (C != '\n')
      Bytes.push_back(static_cast<char>(C));
  out(1, Bytes + "\n");
  out(2, "stderr line from " + R + "\n");
  out(1, "utf8: h\xc3\xa9llo bad:\xff\xfe cut:\xe2\x82 end\n");
  out(1, "long:" + std::string(100000, 'x') + "\n");
  out(1, "crlf line\r\n");
  out(1, "no newline at the end from " + R);
  return 0;
}
