// The executor must move a lane past a step without messages (idle, or local copies only)
// before it blocks on the other lanes' requests: a peer may wait for that lane's next message
// before it answers them. Two ranks, two lanes each:
//   rank 0: lane 0 = [idle, send block 0 to 1 on port 0]   lane 1 = [recv block 1 from 1, port 1]
//   rank 1: lane 0 = [recv block 0 from 0, port 0]         lane 1 = [send block 1 to 0, port 1,
//                                                                   after lane 0 step 0]
// Rank 0's lane 1 completes only after rank 1 received lane 0's message, which leaves rank 0
// only once its idle step is done. An executor that waits on every request in flight before
// finishing the idle step hangs here (the ctest timeout reports it); this one must finish with
// the blocks in place.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "runtime/executor.hpp"
#include "runtime/plan.hpp"

using namespace topocoll;
using namespace topocoll::mpi;

namespace {

RankLanes lanes_of(int rank) {
  Step idle;
  Step send0{{Operation::send(1, BlockSet::single(0), 0)}, {}};
  Step recv1{{Operation::recv(1, BlockSet::single(1), Combine::copy, 1)}, {}};
  Step recv0{{Operation::recv(0, BlockSet::single(0), Combine::copy, 0)}, {}};
  Step send1{{Operation::send(0, BlockSet::single(1), 1)}, {Dependency{0, 0}}};
  if (rank == 0) return {{idle, send0}, {recv1}};
  return {{recv0}, {send1}};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "run with 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  ScheduleInfo info;
  info.algorithm = "lane-progress";
  info.ranks = 2;
  info.blocks = 2;
  info.ports = 2;
  const Plan plan = compile_plan(info, lanes_of(rank), SlotSizes{{0, 1, 2}}, true);

  // Rank 0 owns block 0 (value 10), rank 1 block 1 (value 21); each receives the other's.
  std::vector<int> data = rank == 0 ? std::vector<int>{10, 0} : std::vector<int>{0, 21};
  ElementBuffer workspace;
  ExecutionContext context;
  MPI_Comm_dup(MPI_COMM_WORLD, &context.comm);
  context.type = ElementType::of(MPI_INT);
  context.op = MPI_SUM;
  workspace.reserve(context.type, plan.workspace_elements + 1);
  context.bases = {reinterpret_cast<char*>(data.data()), nullptr, workspace.base()};
  context.types = &plan.types;

  const int rc = execute_plan(plan, context);
  const bool ok = rc == MPI_SUCCESS && data == std::vector<int>{10, 21};
  if (!ok)
    std::fprintf(stderr, "FAIL rank %d: rc %d, blocks %d %d (want 10 21)\n", rank, rc, data[0],
                 data[1]);
  int all_ok = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0 && all_ok) std::printf("ok: a lane moves past its idle step while another waits\n");
  MPI_Comm_free(&context.comm);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
