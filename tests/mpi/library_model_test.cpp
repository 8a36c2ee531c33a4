// The model of the MPI library's own choice that `auto` predicts against (runtime/
// library_model.cpp): the thresholds of each library's documented default selection, on both
// sides of each, and every name it gives is a registry algorithm of that collective.
#include "runtime/library_model.hpp"

#include <gtest/gtest.h>

#include "core/registry.hpp"

namespace {

using topocoll::mpi::library_algorithm;
using topocoll::mpi::MpiCollective;
using topocoll::mpi::MpiLibrary;

TEST(LibraryModel, OpenMpiAllreduceSwitchesToTheRingAt10000Bytes) {
  EXPECT_EQ(library_algorithm(MpiLibrary::open_mpi, MpiCollective::allreduce, 4, 8, true),
            "recdoub-lat");
  EXPECT_EQ(library_algorithm(MpiLibrary::open_mpi, MpiCollective::allreduce, 4, 9999, true),
            "recdoub-lat");
  EXPECT_EQ(library_algorithm(MpiLibrary::open_mpi, MpiCollective::allreduce, 4, 10000, true),
            "ring");
  // Above the threshold a non-commutative operator gets an algorithm the registry lacks.
  EXPECT_EQ(library_algorithm(MpiLibrary::open_mpi, MpiCollective::allreduce, 4, 10000, false), "");
}

TEST(LibraryModel, MpichAllreduceIsRabenseifnerAbove2048Bytes) {
  EXPECT_EQ(library_algorithm(MpiLibrary::mpich, MpiCollective::allreduce, 4, 2048, true),
            "recdoub-lat");
  EXPECT_EQ(library_algorithm(MpiLibrary::mpich, MpiCollective::allreduce, 4, 2049, true),
            "recdoub-bw");
  EXPECT_EQ(library_algorithm(MpiLibrary::mpich, MpiCollective::allreduce, 4, 1 << 20, false),
            "recdoub-lat");
}

TEST(LibraryModel, MpichAllgatherByTotalSizeAndPowerOfTwo) {
  // 4 x 1024 B in all, a power of two: recursive doubling; 3 ranks: Bruck; 3 x 40000 B: ring.
  EXPECT_EQ(library_algorithm(MpiLibrary::mpich, MpiCollective::allgather, 4, 1024, true),
            "recdoub-bw");
  EXPECT_EQ(library_algorithm(MpiLibrary::mpich, MpiCollective::allgather, 3, 1024, true),
            "bruck-bw");
  EXPECT_EQ(library_algorithm(MpiLibrary::mpich, MpiCollective::allgather, 3, 40000, true), "ring");
}

TEST(LibraryModel, UnmodelledCollectivesAndLibrariesGiveNothing) {
  for (MpiLibrary library : {MpiLibrary::open_mpi, MpiLibrary::mpich, MpiLibrary::other})
    for (MpiCollective c : {MpiCollective::bcast, MpiCollective::reduce, MpiCollective::gather,
                            MpiCollective::scatter, MpiCollective::alltoall})
      EXPECT_EQ(library_algorithm(library, c, 4, 64, true), "");
  EXPECT_EQ(library_algorithm(MpiLibrary::other, MpiCollective::allreduce, 4, 64, true), "");
}

TEST(LibraryModel, EveryNameIsARegistryAlgorithmOfItsCollective) {
  for (MpiLibrary library : {MpiLibrary::open_mpi, MpiLibrary::mpich})
    for (const auto& m : topocoll::mpi::kMpiCollectives)
      for (int p : {2, 3, 4, 16})
        for (std::uint64_t bytes : {8ull, 2049ull, 10000ull, 70000ull, 1ull << 20})
          for (bool commutative : {true, false}) {
            const std::string name = library_algorithm(library, m.id, p, bytes, commutative);
            if (name.empty()) continue;
            const auto* algo = topocoll::registry().find(name);
            ASSERT_NE(algo, nullptr) << name;
            EXPECT_TRUE(algo->supports(m.core)) << name << " " << m.name;
          }
}

}  // namespace
