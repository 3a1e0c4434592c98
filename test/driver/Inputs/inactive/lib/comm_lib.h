// A library header given with -I, outside the project.
#pragma once
#ifdef COMM_LIB_HAVE_NCCL
void comm_lib_allreduce(float *data, int n);
#endif
