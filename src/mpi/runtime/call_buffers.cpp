#include "call_buffers.hpp"

#include "core/partition.hpp"
#include "executor.hpp"
#include "pack_mode.hpp"

namespace topocoll::mpi {
namespace {

SlotSizes offsets_of(const BlockPartition& partition) {
  SlotSizes sizes;
  sizes.user_offsets.reserve(static_cast<std::size_t>(partition.blocks()) + 1);
  for (int b = 0; b < partition.blocks(); ++b)
    sizes.user_offsets.push_back(partition.offset(static_cast<BlockIndex>(b)));
  sizes.user_offsets.push_back(partition.total());
  return sizes;
}

// Copies the blocks of a vector between the real layout and the padded one (every block
// `block` elements long); padding is filled with the vector's first element so that a
// user-defined operator only ever sees values the caller supplied.
void copy_padded(const Plan& plan, const ElementType& type, char* real, char* padded, bool in) {
  const auto& offsets = plan.real_offsets;
  const std::uint64_t total = offsets.back();
  for (std::size_t b = 0; b + 1 < offsets.size(); ++b) {
    const std::uint64_t size = offsets[b + 1] - offsets[b];
    char* slot = type.at(padded, b * plan.padded_block);
    if (!in) {
      copy_elements(type.at(real, offsets[b]), slot, size, type);
      continue;
    }
    copy_elements(slot, type.at(real, offsets[b]), size, type);
    for (std::uint64_t i = size; i < plan.padded_block && total > 0; ++i)
      copy_elements(type.at(slot, i), real, 1, type);
  }
}

}  // namespace

SlotSizes chunk_offsets(const ScheduleInfo& info, const std::vector<std::uint64_t>& counts) {
  SlotSizes sizes;
  sizes.user_offsets.push_back(0);
  const int per_chunk = info.blocks_per_chunk();
  for (std::uint64_t count : counts) {
    const BlockPartition split(count, per_chunk);
    for (int b = 0; b < per_chunk; ++b)
      sizes.user_offsets.push_back(sizes.user_offsets.back() +
                                   split.size(static_cast<BlockIndex>(b)));
  }
  return sizes;
}

ProgramKey key_of(const Choice& c) { return ProgramKey::of(c.algorithm, c.request); }

const Plan& uniform_plan(CommState& state, const Choice& c, std::uint64_t count) {
  if (const Plan* recent = state.recent_plan(c.algorithm, c.request, count)) return *recent;
  const ProgramKey key = key_of(c);
  const RankProgram& program = state.program(c.algorithm, c.request);
  const Plan& plan = state.plan(key, program, offsets_of(BlockPartition(program.info, count)),
                                c.request.commutative);
  state.remember_plan(key, count, plan);
  return plan;
}

int run(CommState& state, const Choice& choice, const Plan& plan, const ElementType& type,
        MPI_Op op, char* user, char* receive) {
  const bool commutative = choice.request.commutative;
  ExecutionContext context;
  context.max_message_bytes = choice.max_message_bytes;
  context.segment_bytes = choice.segment_bytes;
  context.types = &plan.types;
  context.pack = choice.pack;
  context.requests = &state.requests;
  context.comm = state.comm();
  context.type = type;
  context.op = op;
  context.commutative = commutative;
  state.workspace.reserve(type, plan.workspace_elements);
  context.bases = {user, receive, state.workspace.base()};
  if (plan.padded_block == 0) return execute_plan(plan, context);
  const std::uint64_t blocks = plan.real_offsets.size() - 1;
  char* regions[2] = {user, receive};
  for (int r = 0; r < 2; ++r) {
    if (!regions[r]) continue;
    state.padded[r].reserve(type, blocks * plan.padded_block);
    context.bases[static_cast<std::size_t>(r)] = state.padded[r].base();
    copy_padded(plan, type, regions[r], state.padded[r].base(), true);
  }
  const int rc = execute_plan(plan, context);
  // Only what the schedule may have written goes back (a read-only input stays untouched).
  if (rc == MPI_SUCCESS && plan.writes_user_region)
    copy_padded(plan, type, user, state.padded[0].base(), false);
  if (rc == MPI_SUCCESS && receive) copy_padded(plan, type, receive, state.padded[1].base(), false);
  return rc;
}

std::uint64_t bytes_of(MPI_Count count, MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return 0;
  if (const ElementType* named = ElementType::named(type))
    return static_cast<std::uint64_t>(count) * named->size;
  MPI_Count size = 0;
  PMPI_Type_size_x(type, &size);
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

char* packed_view(char* buffer, MPI_Count count, const ElementType& type, ElementBuffer& area,
                  std::uint64_t area_bytes, bool pack) {
  if (type.contiguous) return buffer + type.true_lb;
  area.reserve(ElementType::bytes(), area_bytes);
  if (pack) pack_elements(area.base(), buffer, static_cast<std::uint64_t>(count), type);
  return area.base();
}

}  // namespace topocoll::mpi
