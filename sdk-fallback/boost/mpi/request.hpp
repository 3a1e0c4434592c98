// ddplint's fallback <boost/mpi/request.hpp>: code that includes Boost.MPI's
// headers one by one gets the whole fallback declaration set.
#pragma once
#include <boost/mpi.hpp>
