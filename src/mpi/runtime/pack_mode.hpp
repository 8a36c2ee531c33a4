#pragma once
// How a message whose slots form several ranges in memory goes out (docs/mpi.md, "How a
// schedule runs"; the measurement: docs/calibration.md, "Packing vs derived datatype"). Either
// way a send operation is one message. Element types that are not contiguous always use the
// datatype (executor.cpp says why).
namespace topocoll::mpi {

enum class PackMode {
  datatype,  // one hindexed datatype over the ranges; the MPI library gathers them
  copy,      // the runtime copies the ranges into a contiguous staging buffer (and back)
};

// TOPOCOLL_PACK (`datatype` or `copy`, any case); unset or invalid (reported once): the
// default. With TOPOCOLL_VERBOSE the mode is reported once per process and mode. Read with the
// other settings, when a TOPOCOLL_ variable changed (config.cpp), not on every call: two
// getenv over mpiexec's environment were a quarter of a small call's instructions.
[[nodiscard]] PackMode pack_mode();
[[nodiscard]] const char* pack_mode_name(PackMode mode);

}  // namespace topocoll::mpi
