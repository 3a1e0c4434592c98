// A file no compile database lists, whose headers the plain C++17 command
// cannot find.
#include <torch/torch.h>

int main() { return 0; }
