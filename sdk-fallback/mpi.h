/* ddplint's fallback <mpi.h>: the MPI-3.1 C bindings that data-parallel
 * training code calls, declared so that a unit still parses on a machine
 * without an MPI installation. ddplint adds this directory with -idirafter,
 * after every other include directory, so an installed <mpi.h> always wins.
 *
 * Handles follow Open MPI's shape (Debian's MPI): pointers to opaque
 * structs, and the predefined handles are the addresses of extern objects,
 * so the checks see MPI_SUM and friends the same way with either header.
 * Nothing here is meant to be linked. */
#ifndef DDPLINT_SDK_FALLBACK_MPI_H
#define DDPLINT_SDK_FALLBACK_MPI_H

#include <stddef.h>

#define MPI_VERSION 3
#define MPI_SUBVERSION 1

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ompi_communicator_t* MPI_Comm;
typedef struct ompi_datatype_t* MPI_Datatype;
typedef struct ompi_op_t* MPI_Op;
typedef struct ompi_request_t* MPI_Request;
typedef struct ompi_group_t* MPI_Group;
typedef struct ompi_win_t* MPI_Win;
typedef struct ompi_info_t* MPI_Info;
typedef struct ompi_message_t* MPI_Message;
typedef long MPI_Aint;
typedef long long MPI_Count;
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
extern struct ompi_predefined_datatype_t ompi_mpi_char, ompi_mpi_unsigned_char, ompi_mpi_byte,
    ompi_mpi_short, ompi_mpi_int, ompi_mpi_long, ompi_mpi_long_long_int, ompi_mpi_unsigned,
    ompi_mpi_unsigned_long, ompi_mpi_unsigned_long_long, ompi_mpi_float, ompi_mpi_double,
    ompi_mpi_long_double, ompi_mpi_int8_t, ompi_mpi_uint8_t, ompi_mpi_int16_t, ompi_mpi_uint16_t,
    ompi_mpi_int32_t, ompi_mpi_uint32_t, ompi_mpi_int64_t, ompi_mpi_uint64_t, ompi_mpi_c_bool,
    ompi_mpi_2int, ompi_mpi_float_int, ompi_mpi_double_int, ompi_mpi_packed, ompi_mpi_signed_char,
    ompi_mpi_unsigned_short, ompi_mpi_wchar, ompi_mpi_long_int, ompi_mpi_short_int,
    ompi_mpi_longdbl_int, ompi_mpi_datatype_null;
extern struct ompi_predefined_group_t ompi_mpi_group_empty;
extern struct ompi_predefined_op_t ompi_mpi_op_sum, ompi_mpi_op_max, ompi_mpi_op_min, ompi_mpi_op_prod,
    ompi_mpi_op_land, ompi_mpi_op_lor, ompi_mpi_op_lxor, ompi_mpi_op_band, ompi_mpi_op_bor,
    ompi_mpi_op_bxor, ompi_mpi_op_maxloc, ompi_mpi_op_minloc;
extern struct ompi_predefined_request_t ompi_request_null;
extern struct ompi_predefined_info_t ompi_mpi_info_null;

#define MPI_COMM_WORLD ((MPI_Comm)(void*)&ompi_mpi_comm_world)
#define MPI_COMM_SELF ((MPI_Comm)(void*)&ompi_mpi_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)(void*)&ompi_mpi_comm_null)

#define MPI_CHAR ((MPI_Datatype)(void*)&ompi_mpi_char)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)(void*)&ompi_mpi_unsigned_char)
#define MPI_BYTE ((MPI_Datatype)(void*)&ompi_mpi_byte)
#define MPI_SHORT ((MPI_Datatype)(void*)&ompi_mpi_short)
#define MPI_INT ((MPI_Datatype)(void*)&ompi_mpi_int)
#define MPI_LONG ((MPI_Datatype)(void*)&ompi_mpi_long)
#define MPI_LONG_LONG ((MPI_Datatype)(void*)&ompi_mpi_long_long_int)
#define MPI_LONG_LONG_INT ((MPI_Datatype)(void*)&ompi_mpi_long_long_int)
#define MPI_UNSIGNED ((MPI_Datatype)(void*)&ompi_mpi_unsigned)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)(void*)&ompi_mpi_unsigned_long)
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)(void*)&ompi_mpi_unsigned_long_long)
#define MPI_FLOAT ((MPI_Datatype)(void*)&ompi_mpi_float)
#define MPI_DOUBLE ((MPI_Datatype)(void*)&ompi_mpi_double)
#define MPI_LONG_DOUBLE ((MPI_Datatype)(void*)&ompi_mpi_long_double)
#define MPI_INT8_T ((MPI_Datatype)(void*)&ompi_mpi_int8_t)
#define MPI_UINT8_T ((MPI_Datatype)(void*)&ompi_mpi_uint8_t)
#define MPI_INT16_T ((MPI_Datatype)(void*)&ompi_mpi_int16_t)
#define MPI_UINT16_T ((MPI_Datatype)(void*)&ompi_mpi_uint16_t)
#define MPI_INT32_T ((MPI_Datatype)(void*)&ompi_mpi_int32_t)
#define MPI_UINT32_T ((MPI_Datatype)(void*)&ompi_mpi_uint32_t)
#define MPI_INT64_T ((MPI_Datatype)(void*)&ompi_mpi_int64_t)
#define MPI_UINT64_T ((MPI_Datatype)(void*)&ompi_mpi_uint64_t)
#define MPI_C_BOOL ((MPI_Datatype)(void*)&ompi_mpi_c_bool)
#define MPI_2INT ((MPI_Datatype)(void*)&ompi_mpi_2int)
#define MPI_FLOAT_INT ((MPI_Datatype)(void*)&ompi_mpi_float_int)
#define MPI_DOUBLE_INT ((MPI_Datatype)(void*)&ompi_mpi_double_int)
#define MPI_PACKED ((MPI_Datatype)(void*)&ompi_mpi_packed)
#define MPI_SIGNED_CHAR ((MPI_Datatype)(void*)&ompi_mpi_signed_char)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)(void*)&ompi_mpi_unsigned_short)
#define MPI_WCHAR ((MPI_Datatype)(void*)&ompi_mpi_wchar)
#define MPI_LONG_INT ((MPI_Datatype)(void*)&ompi_mpi_long_int)
#define MPI_SHORT_INT ((MPI_Datatype)(void*)&ompi_mpi_short_int)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)(void*)&ompi_mpi_longdbl_int)
#define MPI_DATATYPE_NULL ((MPI_Datatype)(void*)&ompi_mpi_datatype_null)
#define MPI_GROUP_EMPTY ((MPI_Group)(void*)&ompi_mpi_group_empty)

#define MPI_SUM ((MPI_Op)(void*)&ompi_mpi_op_sum)
#define MPI_MAX ((MPI_Op)(void*)&ompi_mpi_op_max)
#define MPI_MIN ((MPI_Op)(void*)&ompi_mpi_op_min)
#define MPI_PROD ((MPI_Op)(void*)&ompi_mpi_op_prod)
#define MPI_LAND ((MPI_Op)(void*)&ompi_mpi_op_land)
#define MPI_LOR ((MPI_Op)(void*)&ompi_mpi_op_lor)
#define MPI_LXOR ((MPI_Op)(void*)&ompi_mpi_op_lxor)
#define MPI_BAND ((MPI_Op)(void*)&ompi_mpi_op_band)
#define MPI_BOR ((MPI_Op)(void*)&ompi_mpi_op_bor)
#define MPI_BXOR ((MPI_Op)(void*)&ompi_mpi_op_bxor)
#define MPI_MAXLOC ((MPI_Op)(void*)&ompi_mpi_op_maxloc)
#define MPI_MINLOC ((MPI_Op)(void*)&ompi_mpi_op_minloc)

#define MPI_REQUEST_NULL ((MPI_Request)(void*)&ompi_request_null)
#define MPI_INFO_NULL ((MPI_Info)(void*)&ompi_mpi_info_null)
#define MPI_IN_PLACE ((void*)1)
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_ANY_SOURCE -1
#define MPI_ANY_TAG -1
#define MPI_PROC_NULL -2
#define MPI_UNDEFINED -32766
#define MPI_SUCCESS 0
#define MPI_ERR_OTHER 16
#define MPI_ERR_REQUEST 7
#define MPI_CART 1
#define MPI_GRAPH 2
#define MPI_DIST_GRAPH 3
#define MPI_BOTTOM ((void*)0)
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MODE_NOPRECEDE 2
#define MPI_LOCK_EXCLUSIVE 1
#define MPI_LOCK_SHARED 2

enum { MPI_COMM_TYPE_SHARED };

enum {
  MPI_THREAD_SINGLE,
  MPI_THREAD_FUNNELED,
  MPI_THREAD_SERIALIZED,
  MPI_THREAD_MULTIPLE
};

/* The environment. */
int MPI_Init(int* argc, char*** argv);
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided);
int MPI_Initialized(int* flag);
int MPI_Finalize(void);
int MPI_Finalized(int* flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Get_processor_name(char* name, int* resultlen);
int MPI_Error_string(int errorcode, char* string, int* resultlen);

/* Communicators: local queries and constructors. */
int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm);
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm);
int MPI_Comm_free(MPI_Comm* comm);
int MPI_Type_size(MPI_Datatype datatype, int* size);

/* Point-to-point. */
int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status);
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status);
int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request);
int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request);
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm* newintercomm);

/* Completion of non-blocking operations. */
int MPI_Wait(MPI_Request* request, MPI_Status* status);
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status);
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status);
int MPI_Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]);
int MPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status);
int MPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[]);
int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[]);
int MPI_Request_free(MPI_Request* request);
int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count);

/* Collectives, blocking and non-blocking. */
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
int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request);
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request);
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm);
int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request);
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm);
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm);

/* One-sided communication: not collective once the window exists, which is
 * why code may call it under a rank condition. */
int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win);
int MPI_Win_free(MPI_Win* win);
int MPI_Win_fence(int assert_, MPI_Win win);
int MPI_Win_lock(int lock_type, int rank, int assert_, MPI_Win win);
int MPI_Win_unlock(int rank, MPI_Win win);
int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);

/* What Boost.MPI's own headers use besides: datatypes built for
 * serialised values, groups, graph topologies, matched probes, memory. */
typedef void(MPI_User_function)(void*, void*, int*, MPI_Datatype*);
int MPI_Type_commit(MPI_Datatype *type);
int MPI_Type_free(MPI_Datatype *type);
int MPI_Topo_test(MPI_Comm comm, int *status);
int MPI_Op_free(MPI_Op *op);
int MPI_Get_address(const void *location, MPI_Aint *address);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
int MPI_Type_create_struct(int count, const int array_of_block_lengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_free(MPI_Group *group);
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph);
int MPI_Free_mem(void *base);
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Cancel(MPI_Request *request);
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);
int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Request *request);

#ifdef __cplusplus
}
#endif

#endif /* DDPLINT_SDK_FALLBACK_MPI_H */
