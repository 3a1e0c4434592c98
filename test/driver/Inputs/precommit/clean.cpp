// Nothing to report.
#include <torch/torch.h>

int answer() { return 42; }
