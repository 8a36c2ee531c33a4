// An MSCCL algorithm as a topocoll schedule (docs/interchange.md, "MSCCL XML in").
//
// Why a receive lane per threadblock: the executor's sends are buffered (they complete once
// the data is in the connection's FIFO), while topocoll's sends complete only when the
// receive is posted. A lane per receiving threadblock that posts its receives in order, into
// private staging slots, with nothing else to wait for, makes every send complete as soon as
// the executor's would; the threadblock's own lane then consumes the staged data at its step.
#include <algorithm>
#include <map>
#include <set>

#include "core/schedule_io.hpp"
#include "interop/msccl_xml.hpp"

namespace topocoll {
namespace {

std::string at(int line) { return "MSCCL XML line " + std::to_string(line) + ": "; }

[[noreturn]] void bad(int line, const std::string& what) {
  throw ScheduleFormatError(at(line) + what);
}

// Where each MSCCL buffer of one gpu lies among topocoll's slots.
struct Layout {
  std::int64_t base[3] = {0, 0, 0};  // i, o, s
  std::int64_t size[3] = {0, 0, 0};
  // Out-of-place results land outside the user slots: copy them there at the end.
  bool final_copy = false;
  std::int64_t copy_from = 0, copy_to = 0, copy_count = 0;
};

int buffer_index(char b) { return b == 'i' ? 0 : b == 'o' ? 1 : 2; }

struct Shape {
  Collective collective = Collective::allreduce;
  int ranks = 0;
  std::int64_t blocks = 0;   // B
  std::int64_t chunk = 0;    // S for chunked collectives
  std::int64_t scratch = 0;  // max s_chunks
  std::int64_t user = 0;     // user slots
};

Layout layout_of(const Shape& sh, bool inplace, int rank) {
  Layout l;
  const std::int64_t B = sh.blocks, S = sh.chunk, extra = sh.user;
  const std::int64_t own = static_cast<std::int64_t>(rank) * S;
  switch (sh.collective) {
    case Collective::allreduce:
      l.size[0] = l.size[1] = B;
      l.base[1] = inplace ? 0 : extra;
      if (!inplace) l.final_copy = true, l.copy_from = extra, l.copy_to = 0, l.copy_count = B;
      break;
    case Collective::allgather:
      l.size[0] = S;
      l.size[1] = B;
      l.base[0] = own;
      l.base[1] = inplace ? 0 : extra;
      if (!inplace) l.final_copy = true, l.copy_from = extra, l.copy_to = 0, l.copy_count = B;
      break;
    case Collective::reduce_scatter:
      l.size[0] = B;
      l.size[1] = S;
      l.base[1] = inplace ? own : extra;
      if (!inplace) l.final_copy = true, l.copy_from = extra, l.copy_to = own, l.copy_count = S;
      break;
    default:  // alltoall: send buffer [0, B), receive buffer [B, 2B)
      l.size[0] = l.size[1] = B;
      l.base[1] = inplace ? 0 : B;
      if (inplace) l.final_copy = true, l.copy_from = 0, l.copy_to = B, l.copy_count = B;
      break;
  }
  const bool extra_output = !inplace && sh.collective != Collective::alltoall;
  l.base[2] = extra + (extra_output ? (sh.collective == Collective::reduce_scatter ? S : B) : 0);
  l.size[2] = sh.scratch;
  return l;
}

Shape shape_of(const MscclAlgo& algo) {
  Shape sh;
  const auto c = parse_collective(
      algo.coll == "reduce_scatter" || algo.coll == "reducescatter" ? "reduce-scatter" : algo.coll);
  if (!c || (*c != Collective::allreduce && *c != Collective::allgather &&
             *c != Collective::reduce_scatter && *c != Collective::alltoall))
    throw ScheduleFormatError("MSCCL XML: coll = '" + algo.coll.substr(0, 40) +
                              "' is not supported; accepted: allreduce, allgather, "
                              "reduce_scatter (or reduce-scatter), alltoall");
  sh.collective = *c;
  sh.ranks = algo.ngpus;
  if (static_cast<int>(algo.gpus.size()) != algo.ngpus)
    throw ScheduleFormatError("MSCCL XML: " + std::to_string(algo.gpus.size()) +
                              " <gpu> elements but ngpus = " + std::to_string(algo.ngpus));
  std::vector<bool> seen(static_cast<std::size_t>(algo.ngpus), false);
  for (const MscclGpu& g : algo.gpus) {
    if (seen[static_cast<std::size_t>(g.id)])
      bad(g.line, "gpu id " + std::to_string(g.id) + " appears twice");
    seen[static_cast<std::size_t>(g.id)] = true;
    sh.blocks = std::max({sh.blocks, g.i_chunks, g.o_chunks});
    sh.scratch = std::max(sh.scratch, g.s_chunks);
  }
  if (sh.collective == Collective::allgather && !algo.inplace)
    for (const MscclGpu& g : algo.gpus) sh.blocks = std::max(sh.blocks, g.i_chunks * algo.ngpus);
  if (sh.blocks == 0)
    throw ScheduleFormatError(
        "MSCCL XML: every <gpu> has i_chunks = o_chunks = 0; accepted: "
        "the chunk counts of the buffers (at least 1)");
  if (sh.collective != Collective::allreduce) {
    if (sh.blocks % sh.ranks != 0)
      throw ScheduleFormatError(
          "MSCCL XML: " + algo.coll + " buffers of " + std::to_string(sh.blocks) + " chunks on " +
          std::to_string(sh.ranks) + " gpus; accepted: a multiple of ngpus (one part per gpu)");
    sh.chunk = sh.blocks / sh.ranks;
  }
  sh.user = sh.collective == Collective::alltoall ? 2 * sh.blocks : sh.blocks;
  if (sh.user + 2 * sh.blocks + sh.scratch > (std::int64_t{1} << 30))
    throw ScheduleFormatError("MSCCL XML: buffers of more than 2^30 chunks per gpu");
  return sh;
}

struct StepKind {
  bool recv = false, send = false, reduce = false, store = false, local = false;
};

StepKind kind_of(const MscclStep& st) {
  const std::string& t = st.type;
  if (t == "s") return {false, true, false, false, false};
  if (t == "r") return {true, false, false, true, false};
  if (t == "rcs") return {true, true, false, true, false};
  if (t == "rrc") return {true, false, true, true, false};
  if (t == "rrs") return {true, true, true, false, false};
  if (t == "rrcs") return {true, true, true, true, false};
  if (t == "cpy") return {false, false, false, true, true};
  if (t == "re") return {false, false, true, true, true};
  if (t == "nop") return {};
  bad(st.line, "step type '" + t +
                   "' is not supported; accepted: s, r, rcs, rrc, rrs, rrcs, cpy, "
                   "re, nop");
}

// Steps of `rrs` and `rrcs` become two topocoll steps (reduce, then send the result).
int topocoll_steps(const MscclStep& st) { return (st.type == "rrs" || st.type == "rrcs") ? 2 : 1; }

class GpuImport {
 public:
  GpuImport(const MscclAlgo& algo, const Shape& sh, const MscclGpu& gpu)
      : algo_(algo), sh_(sh), gpu_(gpu), layout_(layout_of(sh, algo.inplace, gpu.id)) {}

  std::vector<std::vector<Step>> lanes;
  std::int64_t slots_used = 0;

  void run() {
    index_threadblocks();
    const std::size_t T = gpu_.tbs.size();
    lanes.assign(T, {});
    std::vector<std::vector<Step>> inboxes(T);
    staging_ = layout_.base[2] + layout_.size[2];
    for (std::size_t t = 0; t < T; ++t) build_threadblock(t, inboxes[t]);
    for (std::size_t t = 0; t < T; ++t) {
      if (inboxes[t].empty()) continue;
      inbox_lane_[t] = static_cast<int>(lanes.size());
      lanes.push_back(std::move(inboxes[t]));
    }
    // The receive lanes' indices are known only now: fix the main lanes' waits.
    for (auto& [ref, inbox_step] : inbox_refs_)
      lanes[ref.first][ref.second].after.push_back(
          {inbox_lane_[static_cast<std::size_t>(ref.first)], inbox_step});
    add_final_copy();
    if (lanes.empty()) lanes.emplace_back();
    slots_used = staging_;
  }

 private:
  const MscclAlgo& algo_;
  const Shape& sh_;
  const MscclGpu& gpu_;
  Layout layout_;
  std::map<int, std::size_t> tb_index_;                          // tb id -> position
  std::vector<std::map<int, int>> last_step_of_;                 // per tb: s -> last topocoll step
  std::map<int, int> inbox_lane_;                                // tb position -> receive lane
  std::vector<std::pair<std::pair<int, int>, int>> inbox_refs_;  // (lane, step) waits inbox step
  std::int64_t staging_ = 0;

  void index_threadblocks() {
    std::set<std::pair<int, int>> sends, recvs;
    last_step_of_.assign(gpu_.tbs.size(), {});
    for (std::size_t t = 0; t < gpu_.tbs.size(); ++t) {
      const MscclThreadblock& tb = gpu_.tbs[t];
      if (!tb_index_.emplace(tb.id, t).second)
        bad(tb.line, "gpu " + std::to_string(gpu_.id) + " has two threadblocks with id " +
                         std::to_string(tb.id));
      if (tb.send == gpu_.id || tb.recv == gpu_.id)
        bad(tb.line, "threadblock " + std::to_string(tb.id) + " of gpu " + std::to_string(gpu_.id) +
                         " sends to or receives from itself; accepted: another gpu or -1");
      // The executor connects one threadblock per (peer, channel) and direction; two would
      // make the FIFO matching ambiguous.
      if (tb.send >= 0 && !sends.insert({tb.send, tb.chan}).second)
        bad(tb.line, "two threadblocks of gpu " + std::to_string(gpu_.id) + " send to gpu " +
                         std::to_string(tb.send) + " on channel " + std::to_string(tb.chan));
      if (tb.recv >= 0 && !recvs.insert({tb.recv, tb.chan}).second)
        bad(tb.line, "two threadblocks of gpu " + std::to_string(gpu_.id) + " receive from gpu " +
                         std::to_string(tb.recv) + " on channel " + std::to_string(tb.chan));
      int k = 0, prev = -1;
      for (const MscclStep& st : tb.steps) {
        if (st.s <= prev)
          bad(st.line, "step s = " + std::to_string(st.s) + " after s = " + std::to_string(prev) +
                           "; accepted: increasing step numbers within a threadblock");
        prev = st.s;
        k += topocoll_steps(st);
        last_step_of_[t][st.s] = k - 1;
      }
    }
  }

  BlockSet range(const MscclStep& st, char buf, std::int64_t off, const char* which) const {
    const int b = buffer_index(buf);
    const std::int64_t declared = b == 0 ? gpu_.i_chunks : b == 1 ? gpu_.o_chunks : gpu_.s_chunks;
    const std::int64_t size = layout_.size[b];
    if (off < 0 || off + st.cnt > size)
      bad(st.line, std::string(which) + " offset " + std::to_string(off) + " with cnt " +
                       std::to_string(st.cnt) + " is out of range of buffer '" + buf + "' of gpu " +
                       std::to_string(gpu_.id) + "; accepted: 0.." + std::to_string(size - st.cnt) +
                       " (" + std::to_string(size) + " chunks)");
    // In-place aliases (declared 0) take the size of the buffer they alias.
    if (declared > 0 && off + st.cnt > declared)
      bad(st.line, std::string(which) + " offset " + std::to_string(off) + " with cnt " +
                       std::to_string(st.cnt) + " is past the " + std::to_string(declared) +
                       " chunks gpu " + std::to_string(gpu_.id) + " declares for buffer '" + buf +
                       "'");
    const auto first = static_cast<BlockIndex>(layout_.base[b] + off);
    return BlockSet::range(first, first + static_cast<BlockIndex>(st.cnt));
  }

  BlockSet staging(std::int64_t cnt) {
    const auto first = static_cast<BlockIndex>(staging_);
    staging_ += cnt;
    if (staging_ > (std::int64_t{1} << 30))
      throw ScheduleFormatError("MSCCL XML: gpu " + std::to_string(gpu_.id) +
                                " receives more than 2^30 chunks in total");
    return BlockSet::range(first, static_cast<BlockIndex>(staging_));
  }

  void add_dependency(const MscclStep& st, std::size_t t, Step& step) {
    if (st.depid < 0) return;
    const auto it = tb_index_.find(st.depid);
    if (it == tb_index_.end())
      bad(st.line, "depid " + std::to_string(st.depid) + " names no threadblock of gpu " +
                       std::to_string(gpu_.id));
    const auto& steps = last_step_of_[it->second];
    const auto s = steps.find(st.deps);
    if (s == steps.end())
      bad(st.line, "deps " + std::to_string(st.deps) + " names no step of threadblock " +
                       std::to_string(st.depid) + " of gpu " + std::to_string(gpu_.id));
    if (it->second == t) {
      if (st.deps >= st.s)
        bad(st.line, "step s = " + std::to_string(st.s) + " waits for its own threadblock's step " +
                         std::to_string(st.deps) + ", which comes later or is itself");
      return;  // an earlier step of its own threadblock: implied
    }
    step.after.push_back({static_cast<int>(it->second), s->second});
  }

  void build_threadblock(std::size_t t, std::vector<Step>& inbox) {
    const MscclThreadblock& tb = gpu_.tbs[t];
    auto& lane = lanes[t];
    for (const MscclStep& st : tb.steps) {
      const StepKind k = kind_of(st);
      if (st.type != "nop" && st.cnt == 0 && !k.send && !k.recv)
        bad(st.line, "step type '" + st.type + "' with cnt = 0; accepted: cnt >= 1");
      if (k.send && tb.send < 0)
        bad(st.line, "a '" + st.type + "' step in threadblock " + std::to_string(tb.id) +
                         " of gpu " + std::to_string(gpu_.id) + ", which has send = -1");
      if (k.recv && tb.recv < 0)
        bad(st.line, "a '" + st.type + "' step in threadblock " + std::to_string(tb.id) +
                         " of gpu " + std::to_string(gpu_.id) + ", which has recv = -1");
      Step step;
      add_dependency(st, t, step);
      const int port = tb.chan;
      BlockSet landed;
      if (k.recv) {
        landed = staging(st.cnt);
        Step r;
        r.ops.push_back(Operation::recv(tb.recv, landed, Combine::copy, port));
        inbox.push_back(std::move(r));
        inbox_refs_.push_back({{static_cast<int>(t), static_cast<int>(lane.size())},
                               static_cast<int>(inbox.size()) - 1});
      }
      if (st.type == "s") {
        step.ops.push_back(
            Operation::send(tb.send, range(st, st.srcbuf, st.srcoff, "source"), port));
      } else if (st.type == "r" || st.type == "rcs") {
        step.ops.push_back(
            Operation::local_copy(landed, range(st, st.dstbuf, st.dstoff, "destination")));
        if (k.send) step.ops.push_back(Operation::send(tb.send, landed, port));
      } else if (k.recv) {  // rrc, rrs, rrcs: the received data reduced with the source
        step.ops.push_back(Operation::local_copy(range(st, st.srcbuf, st.srcoff, "source"), landed,
                                                 Combine::reduce));
        if (k.store)
          step.ops.push_back(Operation::local_after_receives(
              landed, range(st, st.dstbuf, st.dstoff, "destination"), Combine::copy));
      } else if (k.local) {
        step.ops.push_back(Operation::local_copy(range(st, st.srcbuf, st.srcoff, "source"),
                                                 range(st, st.dstbuf, st.dstoff, "destination"),
                                                 k.reduce ? Combine::reduce : Combine::copy));
      }
      lane.push_back(std::move(step));
      if (topocoll_steps(st) == 2) {
        Step forward;
        forward.ops.push_back(Operation::send(tb.send, landed, port));
        lane.push_back(std::move(forward));
      }
    }
  }

  void add_final_copy() {
    if (!layout_.final_copy) return;
    Step step;
    for (std::size_t l = 1; l < lanes.size(); ++l)
      if (!lanes[l].empty())
        step.after.push_back({static_cast<int>(l), static_cast<int>(lanes[l].size()) - 1});
    const auto from = static_cast<BlockIndex>(layout_.copy_from);
    const auto to = static_cast<BlockIndex>(layout_.copy_to);
    const auto n = static_cast<BlockIndex>(layout_.copy_count);
    step.ops.push_back(
        Operation::local_copy(BlockSet::range(from, from + n), BlockSet::range(to, to + n)));
    if (lanes.empty()) lanes.emplace_back();
    lanes[0].push_back(std::move(step));
  }
};

std::string bytes_note(const MscclAlgo& algo) {
  if (algo.min_bytes < 0 && algo.max_bytes < 0) return {};
  return "the executor runs it only for calls of " +
         std::to_string(std::max<std::int64_t>(algo.min_bytes, 0)) + " bytes up to " +
         (algo.max_bytes < 0 ? std::string("any size")
                             : "below " + std::to_string(algo.max_bytes) + " bytes") +
         " (minBytes, maxBytes); other sizes fall back to NCCL";
}

// Limits of the executors (msccl-executor-nccl's and RCCL's src/include/msccl/msccl_struct.h,
// checked in src/misc/msccl/msccl_parser.cc and msccl_setup.cc): past one, the executor
// refuses the file when it loads it and NCCL's own algorithms run instead.
constexpr int kExecutorMaxSteps = 64;                // MSCCL_MAX_NUM_STEPS: s must be below
constexpr std::int64_t kExecutorMaxCount = 72;       // MSCCL_MAX_COUNT: cnt must be below
constexpr int kExecutorThreadblocksPerChannel = 32;  // MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL
constexpr std::int64_t kExecutorMaxOffset = 32767;   // offsets are stored in 16 bits

std::string gpu_tb(const MscclGpu& g, const MscclThreadblock& tb) {
  return "gpu " + std::to_string(g.id) + " threadblock " + std::to_string(tb.id);
}

// The first place each executor limit is exceeded, one note per limit.
std::vector<std::string> executor_limit_notes(const MscclAlgo& algo) {
  std::string steps, count, offset, per_channel, ids, channel;
  for (const MscclGpu& g : algo.gpus) {
    std::map<int, int> senders, receivers;  // channel -> threadblocks
    int max_id = -1;
    for (const MscclThreadblock& tb : g.tbs) {
      max_id = std::max(max_id, tb.id);
      if (channel.empty() && tb.chan > kMscclMaxChannels)
        channel = gpu_tb(g, tb) + " uses channel " + std::to_string(tb.chan);
      if (tb.send >= 0) ++senders[tb.chan];
      if (tb.recv >= 0) ++receivers[tb.chan];
      for (const MscclStep& st : tb.steps) {
        if (steps.empty() && st.s >= kExecutorMaxSteps)
          steps = gpu_tb(g, tb) + " has a step s = " + std::to_string(st.s);
        if (count.empty() && st.cnt >= kExecutorMaxCount)
          count = gpu_tb(g, tb) + " step " + std::to_string(st.s) +
                  " has cnt = " + std::to_string(st.cnt);
        if (offset.empty() && std::max(st.srcoff, st.dstoff) > kExecutorMaxOffset)
          offset = gpu_tb(g, tb) + " step " + std::to_string(st.s) + " has offset " +
                   std::to_string(std::max(st.srcoff, st.dstoff));
      }
    }
    for (const auto* side : {&senders, &receivers})
      for (const auto& [chan, n] : *side)
        if (per_channel.empty() && n > kExecutorThreadblocksPerChannel)
          per_channel = "gpu " + std::to_string(g.id) + " has " + std::to_string(n) + " " +
                        (side == &senders ? "sending" : "receiving") + " threadblocks on channel " +
                        std::to_string(chan);
    if (ids.empty() && max_id + 1 != static_cast<int>(g.tbs.size()))
      ids = "gpu " + std::to_string(g.id) + "'s threadblock ids are not 0.." +
            std::to_string(g.tbs.size() - 1);
  }
  std::vector<std::string> notes;
  const auto add = [&](const std::string& where, const std::string& limit) {
    if (!where.empty())
      notes.push_back("the executor refuses the file at load time (NCCL's own algorithms run): " +
                      where + "; " + limit);
  };
  add(steps, "accepted: s below 64 (MSCCL_MAX_NUM_STEPS)");
  add(count, "accepted: cnt below 72 (MSCCL_MAX_COUNT)");
  add(per_channel, "accepted: at most 32 per channel (MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL)");
  add(ids, "accepted: ids 0..n-1 without gaps");
  add(channel, "accepted: channels 0..32 (MAXCHANNELS)");
  if (algo.nchannels > kMscclMaxChannels)
    add("nchannels = " + std::to_string(algo.nchannels),
        "accepted: at most the communicator's channels (32 at most)");
  if (algo.coll == "reduce_scatter" || algo.coll == "reduce-scatter")
    add("coll = '" + algo.coll + "'", "accepted: 'reducescatter'");
  if (!offset.empty())
    notes.push_back("the executor stores offsets in 16 bits: " + offset +
                    ", which it would wrap (accepted: offsets up to 32767)");
  return notes;
}

std::vector<std::string> fallback_notes(const MscclAlgo& algo, const Shape& sh) {
  std::vector<std::string> notes;
  notes.push_back("the executor runs it only on a communicator of exactly " +
                  std::to_string(algo.ngpus) + " ranks (ngpus); any other size falls back to NCCL");
  notes.push_back(std::string("the executor runs it only for ") +
                  (algo.inplace ? "in-place calls (inplace=1)" : "out-of-place calls (inplace=0)") +
                  "; the other kind falls back to NCCL");
  const std::int64_t per_loop = algo.nchunksperloop > 0 ? algo.nchunksperloop : sh.blocks;
  const char* count = sh.collective == Collective::allreduce ? "the element count"
                      : sh.collective == Collective::reduce_scatter
                          ? "the input's element count (count x ranks)"
                          : "the element count of the whole buffer (count x ranks)";
  notes.push_back(std::string(count) + " must be a multiple of nchunksperloop = " +
                  std::to_string(per_loop) + ", or the call falls back to NCCL");
  if (algo.nchunksperloop < 0)
    notes.push_back("nchunksperloop is absent; taken as " + std::to_string(sh.blocks) +
                    " (the largest buffer's chunk count)");
  else if (algo.nchunksperloop != sh.blocks)
    notes.push_back("nchunksperloop = " + std::to_string(algo.nchunksperloop) +
                    " differs from the buffers' " + std::to_string(sh.blocks) +
                    " chunks; the executor sizes chunks by nchunksperloop");
  if (const std::string b = bytes_note(algo); !b.empty()) notes.push_back(b);
  int max_chan = -1;
  for (const MscclGpu& g : algo.gpus)
    for (const MscclThreadblock& tb : g.tbs) max_chan = std::max(max_chan, tb.chan);
  if (algo.nchannels >= 0 && max_chan >= algo.nchannels)
    notes.push_back("nchannels = " + std::to_string(algo.nchannels) +
                    " but a threadblock uses channel " + std::to_string(max_chan));
  if (algo.proto != "Simple" && algo.proto != "LL" && algo.proto != "LL128")
    notes.push_back("proto = '" + algo.proto.substr(0, 40) +
                    "' is not one the executor knows (Simple, LL, LL128)");
  for (std::string& n : executor_limit_notes(algo)) notes.push_back(std::move(n));
  return notes;
}

}  // namespace

MscclImport import_msccl(const MscclAlgo& algo) {
  const Shape sh = shape_of(algo);
  std::vector<ExplicitSchedule::Lanes> rank_lanes(static_cast<std::size_t>(sh.ranks));
  std::int64_t slots = sh.user;
  int ports = std::max(1, algo.nchannels);
  for (const MscclGpu& g : algo.gpus) {
    GpuImport gi(algo, sh, g);
    gi.run();
    slots = std::max(slots, gi.slots_used);
    int senders = 0, receivers = 0;
    for (const MscclThreadblock& tb : g.tbs) {
      senders += tb.send >= 0;
      receivers += tb.recv >= 0;
      ports = std::max(ports, tb.chan + 1);
    }
    ports = std::max({ports, senders, receivers});
    rank_lanes[static_cast<std::size_t>(g.id)] = std::move(gi.lanes);
  }
  ScheduleInfo info;
  info.collective = sh.collective;
  info.algorithm = algo.name.empty() ? "msccl-xml" : algo.name.substr(0, 200);
  info.ranks = sh.ranks;
  info.blocks = static_cast<int>(sh.blocks);
  info.slots = static_cast<int>(slots);
  info.ports = ports;
  info.keeps_positions = false;
  MscclImport out;
  out.schedule = std::make_unique<ExplicitSchedule>(std::move(info), std::move(rank_lanes));
  out.notes = fallback_notes(algo, sh);
  return out;
}

MscclImport import_msccl_xml(std::string_view text) { return import_msccl(parse_msccl_xml(text)); }

}  // namespace topocoll
