#pragma once
// A check every rank agrees on (tests/mpi/splitting.cpp, pipelining.cpp): it fails on all ranks
// when it fails on any, the failing ranks say why on stderr, and rank 0 reports a pass. Through
// PMPI, so that the PMPI message counter of those tests does not count it.
#include <mpi.h>

#include <cstdio>
#include <string>

namespace topocoll::mpi_tests {

inline void agreed_check(bool ok, const std::string& what, int rank, int& failures) {
  int all_ok = ok ? 1 : 0;
  PMPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!ok) std::fprintf(stderr, "FAIL rank %d: %s\n", rank, what.c_str());
  if (!all_ok) ++failures;
  if (rank == 0 && all_ok) std::printf("ok: %s\n", what.c_str());
}

}  // namespace topocoll::mpi_tests
