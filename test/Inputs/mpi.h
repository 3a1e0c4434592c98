/* ddplint mock of <mpi.h>: MPI-3.1 C bindings (subset), with Open MPI's
 * style of handles (pointers to opaque structs; predefined handles are
 * addresses of extern objects). */
#ifndef DDPLINT_MOCK_MPI_H
#define DDPLINT_MOCK_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ompi_communicator_t* MPI_Comm;
typedef struct ompi_datatype_t* MPI_Datatype;
typedef struct ompi_op_t* MPI_Op;
typedef struct ompi_request_t* MPI_Request;
typedef struct ompi_group_t* MPI_Group;
typedef long MPI_Aint;
typedef struct ompi_status_public_t {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int _cancelled;
  size_t _ucount;
} MPI_Status;

extern struct ompi_predefined_communicator_t ompi_mpi_comm_world;
extern struct ompi_predefined_communicator_t ompi_mpi_comm_self;
extern struct ompi_predefined_communicator_t ompi_mpi_comm_null;
extern struct ompi_predefined_datatype_t ompi_mpi_char, ompi_mpi_byte, ompi_mpi_int, ompi_mpi_long,
    ompi_mpi_long_long_int, ompi_mpi_unsigned, ompi_mpi_unsigned_long, ompi_mpi_float, ompi_mpi_double,
    ompi_mpi_int8_t, ompi_mpi_uint8_t, ompi_mpi_int32_t, ompi_mpi_int64_t, ompi_mpi_uint64_t,
    ompi_mpi_c_bool;
extern struct ompi_predefined_op_t ompi_mpi_op_sum, ompi_mpi_op_max, ompi_mpi_op_min, ompi_mpi_op_prod,
    ompi_mpi_op_land, ompi_mpi_op_lor, ompi_mpi_op_band, ompi_mpi_op_bor;
extern struct ompi_predefined_request_t ompi_request_null;

#define MPI_COMM_WORLD ((MPI_Comm)(void*)&ompi_mpi_comm_world)
#define MPI_COMM_SELF ((MPI_Comm)(void*)&ompi_mpi_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)(void*)&ompi_mpi_comm_null)

#define MPI_CHAR ((MPI_Datatype)(void*)&ompi_mpi_char)
#define MPI_BYTE ((MPI_Datatype)(void*)&ompi_mpi_byte)
#define MPI_INT ((MPI_Datatype)(void*)&ompi_mpi_int)
#define MPI_LONG ((MPI_Datatype)(void*)&ompi_mpi_long)
#define MPI_LONG_LONG ((MPI_Datatype)(void*)&ompi_mpi_long_long_int)
#define MPI_LONG_LONG_INT ((MPI_Datatype)(void*)&ompi_mpi_long_long_int)
#define MPI_UNSIGNED ((MPI_Datatype)(void*)&ompi_mpi_unsigned)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)(void*)&ompi_mpi_unsigned_long)
#define MPI_FLOAT ((MPI_Datatype)(void*)&ompi_mpi_float)
#define MPI_DOUBLE ((MPI_Datatype)(void*)&ompi_mpi_double)
#define MPI_INT8_T ((MPI_Datatype)(void*)&ompi_mpi_int8_t)
#define MPI_UINT8_T ((MPI_Datatype)(void*)&ompi_mpi_uint8_t)
#define MPI_INT32_T ((MPI_Datatype)(void*)&ompi_mpi_int32_t)
#define MPI_INT64_T ((MPI_Datatype)(void*)&ompi_mpi_int64_t)
#define MPI_UINT64_T ((MPI_Datatype)(void*)&ompi_mpi_uint64_t)
#define MPI_C_BOOL ((MPI_Datatype)(void*)&ompi_mpi_c_bool)

#define MPI_SUM ((MPI_Op)(void*)&ompi_mpi_op_sum)
#define MPI_MAX ((MPI_Op)(void*)&ompi_mpi_op_max)
#define MPI_MIN ((MPI_Op)(void*)&ompi_mpi_op_min)
#define MPI_PROD ((MPI_Op)(void*)&ompi_mpi_op_prod)
#define MPI_LAND ((MPI_Op)(void*)&ompi_mpi_op_land)
#define MPI_LOR ((MPI_Op)(void*)&ompi_mpi_op_lor)
#define MPI_BAND ((MPI_Op)(void*)&ompi_mpi_op_band)
#define MPI_BOR ((MPI_Op)(void*)&ompi_mpi_op_bor)

#define MPI_REQUEST_NULL ((MPI_Request)(void*)&ompi_request_null)
#define MPI_IN_PLACE ((void*)1)
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_ANY_SOURCE -1
#define MPI_ANY_TAG -1
#define MPI_SUCCESS 0
#define MPI_MAX_PROCESSOR_NAME 256

enum {
  MPI_THREAD_SINGLE,
  MPI_THREAD_FUNNELED,
  MPI_THREAD_SERIALIZED,
  MPI_THREAD_MULTIPLE
};

int MPI_Init(int* argc, char*** argv);
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided);
int MPI_Initialized(int* flag);
int MPI_Finalize(void);
int MPI_Finalized(int* flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
double MPI_Wtime(void);
int MPI_Get_processor_name(char* name, int* resultlen);

int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm);
int MPI_Comm_free(MPI_Comm* comm);

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status);
int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request);
int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request);
int MPI_Wait(MPI_Request* request, MPI_Status* status);
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status);
int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count);

int MPI_Barrier(MPI_Comm comm);
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request);
int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request);
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm);
int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request* request);
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm);
int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request);
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm);
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* DDPLINT_MOCK_MPI_H */
