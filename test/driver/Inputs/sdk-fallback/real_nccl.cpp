// Uses a function only the installed <nccl.h> declares.
#include <nccl.h>

int nccl_build() { return site_nccl_build_number(); }
