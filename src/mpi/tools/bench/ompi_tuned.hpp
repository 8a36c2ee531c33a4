#pragma once
// Open MPI's own algorithms, forced through coll_tuned, for comparison in the same run.
//
// coll_tuned_use_dynamic_rules is read-only after MPI_Init (MPI_T scope "read-only"), so
// prepare_environment() sets OMPI_MCA_coll_tuned_use_dynamic_rules=1 in this process before
// MPI_Init when an ompi-* algorithm is requested (a value the user exported wins). With dynamic
// rules on and nothing forced, coll_tuned falls back to its fixed decision, so `mpi` still
// measures the default. coll_tuned_<coll>_algorithm is writable at run time through MPI_T and
// is captured when a communicator is created: forced_communicator() writes it, duplicates
// MPI_COMM_WORLD, and writes 0 ("ignore") back.
#include <mpi.h>

#include <string>
#include <vector>

namespace topocoll::bench {

inline constexpr const char* kOmpiPrefix = "ompi-";

[[nodiscard]] bool is_ompi_algorithm(const std::string& name);

// Before MPI_Init.
void prepare_environment(const std::vector<std::string>& algorithms);

// A communicator on which `collective` (coll_tuned's name, e.g. "allreduce") runs Open MPI's
// algorithm `name` ("ompi-ring", "ompi-recdoub", "ompi-rabenseifner" or "ompi-<item>" for any
// item of coll_tuned_<collective>_algorithm). Throws BadFlag naming the accepted values.
[[nodiscard]] MPI_Comm forced_communicator(const std::string& collective, const std::string& name);

// Before MPI_Finalize: ends the MPI tool interface session forced_communicator() opened.
void finish_tool_interface();

}  // namespace topocoll::bench
