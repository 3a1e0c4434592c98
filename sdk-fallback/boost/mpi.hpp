// ddplint's fallback <boost/mpi.hpp> (Boost.MPI 1.74+): environment,
// communicator (rank, size, barrier, point-to-point, split), request and
// status, the collectives all_reduce, broadcast, reduce, gather, all_gather,
// scatter and all_to_all with their array, value and in-place overloads, and
// the operation function objects (std::plus works too). Declared so that a
// unit parses on a machine without Boost.MPI; ddplint adds this directory
// with -idirafter, so an installed Boost.MPI always wins. The templates have
// empty bodies so that any function object, a lambda included, is accepted.
#pragma once
#include <functional>
#include <string>
#include <vector>
#include <mpi.h>

namespace boost {
namespace mpi {

class environment {
 public:
  explicit environment(bool abort_on_exception = true);
  environment(int& argc, char**& argv, bool abort_on_exception = true);
  ~environment();
  static void abort(int errcode);
  static bool initialized();
  static bool finalized();
  static std::string processor_name();
};

class status {
 public:
  int source() const;
  int tag() const;
  int error() const;
  bool cancelled() const;
};

class request {
 public:
  request();
  status wait();
  void cancel();
};

enum comm_create_kind { comm_duplicate, comm_take_ownership, comm_attach };

class communicator {
 public:
  communicator();
  communicator(const MPI_Comm& comm, comm_create_kind kind);
  int rank() const;
  int size() const;
  void barrier() const;
  template <typename T>
  void send(int dest, int tag, const T& value) const {}
  template <typename T>
  void send(int dest, int tag, const T* values, int n) const {}
  void send(int dest, int tag) const;
  template <typename T>
  status recv(int source, int tag, T& value) const {
    return {};
  }
  template <typename T>
  status recv(int source, int tag, T* values, int n) const {
    return {};
  }
  status recv(int source, int tag) const;
  template <typename T>
  request isend(int dest, int tag, const T& value) const {
    return {};
  }
  template <typename T>
  request isend(int dest, int tag, const T* values, int n) const {
    return {};
  }
  template <typename T>
  request irecv(int source, int tag, T& value) const {
    return {};
  }
  template <typename T>
  request irecv(int source, int tag, T* values, int n) const {
    return {};
  }
  communicator split(int color) const;
  communicator split(int color, int key) const;
  void abort(int errcode) const;
  operator MPI_Comm() const;
  explicit operator bool() const;
};

template <typename T>
struct inplace_t {
  inplace_t(T& inout) : buffer(inout) {}
  T& buffer;
};
template <typename T>
struct inplace_t<T*> {
  inplace_t(T* inout) : buffer(inout) {}
  T* buffer;
};
template <typename T>
inplace_t<T> inplace(T& inout) {
  return inplace_t<T>(inout);
}
template <typename T>
inplace_t<T*> inplace(T* inout) {
  return inplace_t<T*>(inout);
}

// <boost/mpi/operations.hpp>
template <typename T>
struct maximum {
  const T& operator()(const T& x, const T& y) const { return x < y ? y : x; }
};
template <typename T>
struct minimum {
  const T& operator()(const T& x, const T& y) const { return x < y ? x : y; }
};
template <typename T>
struct bitwise_and {
  T operator()(const T& x, const T& y) const { return x & y; }
};
template <typename T>
struct bitwise_or {
  T operator()(const T& x, const T& y) const { return x | y; }
};

// <boost/mpi/collectives/all_reduce.hpp>
template <typename T, typename Op>
void all_reduce(const communicator& comm, const T* in_values, int n, T* out_values, Op op) {}
template <typename T, typename Op>
void all_reduce(const communicator& comm, inplace_t<T*> in_values, int n, Op op) {}
template <typename T, typename Op>
void all_reduce(const communicator& comm, const T& in_value, T& out_value, Op op) {}
template <typename T, typename Op>
void all_reduce(const communicator& comm, inplace_t<T> in_value, Op op) {}
template <typename T, typename Op>
T all_reduce(const communicator& comm, const T& in_value, Op op) {
  return in_value;
}

// <boost/mpi/collectives/broadcast.hpp>
template <typename T>
void broadcast(const communicator& comm, T& value, int root) {}
template <typename T>
void broadcast(const communicator& comm, T* values, int n, int root) {}

// <boost/mpi/collectives/reduce.hpp>
template <typename T, typename Op>
void reduce(const communicator& comm, const T& in_value, T& out_value, Op op, int root) {}
template <typename T, typename Op>
void reduce(const communicator& comm, const T& in_value, Op op, int root) {}
template <typename T, typename Op>
void reduce(const communicator& comm, const T* in_values, int n, T* out_values, Op op, int root) {}
template <typename T, typename Op>
void reduce(const communicator& comm, const T* in_values, int n, Op op, int root) {}

// <boost/mpi/collectives/gather.hpp>
template <typename T>
void gather(const communicator& comm, const T& in_value, std::vector<T>& out_values, int root) {}
template <typename T>
void gather(const communicator& comm, const T& in_value, T* out_values, int root) {}
template <typename T>
void gather(const communicator& comm, const T& in_value, int root) {}
template <typename T>
void gather(const communicator& comm, const T* in_values, int n, std::vector<T>& out_values, int root) {}
template <typename T>
void gather(const communicator& comm, const T* in_values, int n, T* out_values, int root) {}
template <typename T>
void gather(const communicator& comm, const T* in_values, int n, int root) {}

// <boost/mpi/collectives/all_gather.hpp>
template <typename T>
void all_gather(const communicator& comm, const T& in_value, std::vector<T>& out_values) {}
template <typename T>
void all_gather(const communicator& comm, const T& in_value, T* out_values) {}
template <typename T>
void all_gather(const communicator& comm, const T* in_values, int n, std::vector<T>& out_values) {}
template <typename T>
void all_gather(const communicator& comm, const T* in_values, int n, T* out_values) {}

// <boost/mpi/collectives/scatter.hpp>
template <typename T>
void scatter(const communicator& comm, const std::vector<T>& in_values, T& out_value, int root) {}
template <typename T>
void scatter(const communicator& comm, const T* in_values, T& out_value, int root) {}
template <typename T>
void scatter(const communicator& comm, T& out_value, int root) {}

// <boost/mpi/collectives/all_to_all.hpp>
template <typename T>
void all_to_all(const communicator& comm, const std::vector<T>& in_values, std::vector<T>& out_values) {}

} // namespace mpi
} // namespace boost
