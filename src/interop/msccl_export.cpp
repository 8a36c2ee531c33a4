// A schedule as an MSCCL XML algorithm (docs/interchange.md, "MSCCL XML out").
//
// Each operation becomes steps of threadblocks: one per (peer, port) that sends, one per
// (peer, port) that receives (the port is the channel, so the executor's FIFO matching per
// (sender, receiver, channel) is topocoll's per (sender, receiver, port)), and one for local
// copies. Threadblocks run concurrently, so the order the schedule implies is kept by
// dependencies, derived from the data: a step waits for the last earlier step that wrote a
// chunk it touches and for the earlier steps that read a chunk it writes. Earlier means in the
// schedule's lock-step order with, inside a step, its reads (sends, copy sources) before its
// writes (snapshot semantics); copies go through scratch chunks so that copies permuting blocks
// in place stay correct.
//
// Instances (msccl-tools' replication, msccl/language/rank_dag.py `replicate`): instance i of
// n runs every threadblock again on channels shifted by i x (channels of one instance), on
// chunk c x n + i of the user buffers (interleaved, so each rank's part of the buffer stays
// its part) and on its own copy of the scratch buffer. Interleaving maps a run of chunks to
// chunks n apart, so with n > 1 user-buffer steps move one chunk each.
#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/schedule_io.hpp"
#include "core/text.hpp"
#include "interop/msccl_xml.hpp"

namespace topocoll {
namespace {

struct Piece {
  char buf = 'i';
  std::int64_t off = 0;
  std::int64_t cnt = 0;
  BlockIndex first = 0;  // slot of its first chunk
};

struct Prim {
  int tb = 0;
  std::string type;
  Piece src, dst;
  std::vector<std::pair<BlockIndex, BlockIndex>> reads, writes;  // slot ranges
};

struct TbKey {
  int kind = 0;  // 0 send, 1 recv, 2 local
  int peer = -1;
  int port = 0;
  auto operator<=>(const TbKey&) const = default;
};

struct XmlStep {
  std::string type;
  Piece src, dst;
  int depid = -1, deps = -1;
  bool hasdep = false;
};

class RankExport {
 public:
  // `walk` gives the lock-step view of `s` (s itself, or its materialized copy when it has
  // lanes), materialized once for all ranks by the caller.
  RankExport(const Schedule& s, const Schedule& walk, int rank, int user_slots,
             bool single_user_chunks)
      : s_(s),
        walk_(walk),
        rank_(rank),
        user_(user_slots),
        single_user_(single_user_chunks),
        temp_(s.info().total_slots()) {}

  std::map<TbKey, int> tb_of;
  std::vector<TbKey> tb_keys;
  std::vector<std::vector<XmlStep>> tb_steps;
  std::int64_t scratch_end = 0;  // slots used, including temporaries

  void run() {
    last_writer_.assign(static_cast<std::size_t>(s_.info().total_slots()), {-1, -1});
    readers_.assign(last_writer_.size(), {});
    // The lock-step view orders every step after the steps it waits for.
    for (int k = 0; k < walk_.step_count(rank_); ++k) {
      Step step;
      walk_.build_step(rank_, k, step);
      emit_step(step);
    }
    scratch_end = temp_;
    last_writer_ = {};  // only needed while emitting; every rank's export is kept until written
    readers_ = {};
  }

 private:
  const Schedule& s_;
  const Schedule& walk_;
  int rank_;
  int user_;
  bool single_user_;  // user-buffer steps of one chunk each (instances > 1)
  std::int64_t temp_;
  std::vector<std::pair<int, int>> last_writer_;  // per slot: (tb, step) or (-1, -1)
  std::vector<std::vector<std::pair<int, int>>> readers_;

  bool keeps() const { return s_.info().keeps_positions; }

  Piece piece(BlockIndex first, std::int64_t cnt) const {
    const Collective c = s_.info().collective;
    const auto B = static_cast<BlockIndex>(s_.info().blocks);
    if (first >= static_cast<BlockIndex>(user_)) return {'s', first - user_, cnt, first};
    if (c == Collective::alltoall && first >= B) return {'o', first - B, cnt, first};
    return {c == Collective::allgather ? 'o' : 'i', first, cnt, first};
  }

  // Splits a block set into pieces contiguous within one buffer; single chunks when
  // `single` (data that may land in other positions must be split the same way on both sides).
  std::vector<Piece> pieces(const BlockSet& set, bool single) const {
    std::vector<Piece> out;
    const auto B = static_cast<BlockIndex>(s_.info().blocks);
    std::vector<BlockIndex> cuts = {static_cast<BlockIndex>(user_)};
    if (s_.info().collective == Collective::alltoall) cuts.push_back(B);
    for (const BlockRange& r : set.ranges()) {
      BlockIndex b = r.begin;
      while (b < r.end) {
        BlockIndex e = r.end;
        for (BlockIndex c : cuts)
          if (c > b && c < e) e = c;
        if (single || (single_user_ && b < static_cast<BlockIndex>(user_))) e = b + 1;
        out.push_back(piece(b, e - b));
        b = e;
      }
    }
    if (out.empty()) out.push_back(piece(0, 0));  // an empty message still matches
    return out;
  }

  int tb(TbKey key) {
    const auto [it, inserted] = tb_of.emplace(key, static_cast<int>(tb_keys.size()));
    if (inserted) {
      tb_keys.push_back(key);
      tb_steps.emplace_back();
    }
    return it->second;
  }

  static std::pair<BlockIndex, BlockIndex> span(const Piece& p) {
    return {p.first, p.first + static_cast<BlockIndex>(p.cnt)};
  }

  Piece temp(std::int64_t cnt) {
    const auto first = static_cast<BlockIndex>(temp_);
    temp_ += cnt;
    if (temp_ > (std::int64_t{1} << 30))
      throw ScheduleFormatError("MSCCL XML export: more than 2^30 scratch chunks on rank " +
                                std::to_string(rank_));
    last_writer_.resize(static_cast<std::size_t>(temp_), {-1, -1});
    readers_.resize(static_cast<std::size_t>(temp_));
    return piece(first, cnt);
  }

  // Pairs a copy's source and destination chunk by chunk into runs contiguous on both sides.
  std::vector<std::pair<Piece, Piece>> copy_runs(const Operation& op) const {
    const auto from = op.source.to_vector();
    const auto to = op.blocks.to_vector();
    std::vector<std::pair<Piece, Piece>> runs;
    for (std::size_t i = 0; i < from.size() && i < to.size();) {
      std::size_t j = i + 1;
      const Piece a = piece(from[i], 1), b = piece(to[i], 1);
      const bool one = single_user_ && (a.buf != 's' || b.buf != 's');
      while (!one && j < from.size() && from[j] == from[j - 1] + 1 && to[j] == to[j - 1] + 1 &&
             piece(from[j], 1).buf == a.buf && piece(to[j], 1).buf == b.buf)
        ++j;
      runs.push_back({piece(from[i], static_cast<std::int64_t>(j - i)),
                      piece(to[i], static_cast<std::int64_t>(j - i))});
      i = j;
    }
    return runs;
  }

  void emit_step(const Step& step) {
    std::vector<Prim> reads, receives, writes, late_reads, late_writes;
    for (const Operation& op : step.ops) {
      if (op.kind == OpKind::send) {
        for (const Piece& p : pieces(op.blocks, !keeps()))
          reads.push_back({tb({0, op.peer, op.port}), "s", p, p, {span(p)}, {}});
      } else if (op.kind == OpKind::recv) {
        const bool reduce = op.combine == Combine::reduce;
        for (const Piece& p : pieces(op.blocks, !keeps()))
          receives.push_back(
              {tb({1, op.peer, op.port}),
               reduce ? "rrc" : "r",
               p,
               p,
               reduce ? std::vector{span(p)} : std::vector<std::pair<BlockIndex, BlockIndex>>{},
               {span(p)}});
      } else {
        const int local = tb({2, -1, 0});
        const char* apply = op.combine == Combine::reduce ? "re" : "cpy";
        for (const auto& [from, to] : copy_runs(op)) {
          const Piece t = temp(from.cnt);
          Prim stage{local, "cpy", from, t, {span(from)}, {span(t)}};
          Prim put{local, apply, t, to, {span(t)}, {span(to)}};
          if (op.combine == Combine::reduce) put.reads.push_back(span(to));
          (op.after_receives() ? late_reads : reads).push_back(stage);
          (op.after_receives() ? late_writes : writes).push_back(put);
        }
      }
    }
    for (auto* group : {&reads, &receives, &writes, &late_reads, &late_writes})
      for (const Prim& p : *group) place(p);
  }

  void place(const Prim& p) {
    std::map<int, int> wait;  // tb -> latest step of it this one waits for
    auto need = [&](std::pair<int, int> at) {
      if (at.first < 0 || at.first == p.tb) return;
      wait[at.first] = std::max(wait[at.first], at.second);
    };
    for (const auto& [b, e] : p.reads)
      for (BlockIndex x = b; x < e; ++x) need(last_writer_[x]);
    for (const auto& [b, e] : p.writes)
      for (BlockIndex x = b; x < e; ++x) {
        need(last_writer_[x]);
        for (const auto& r : readers_[x]) need(r);
      }
    auto& steps = tb_steps[static_cast<std::size_t>(p.tb)];
    std::vector<std::pair<int, int>> deps(wait.begin(), wait.end());
    for (std::size_t i = 0; i + 1 < deps.size(); ++i)
      steps.push_back(
          {"nop", {'i', -1, 0, 0}, {'o', -1, 0, 0}, deps[i].first, deps[i].second, false});
    XmlStep out{p.type, p.src, p.dst, -1, -1, false};
    if (!deps.empty()) out.depid = deps.back().first, out.deps = deps.back().second;
    for (const auto& [t, k] : deps)
      tb_steps[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)].hasdep = true;
    steps.push_back(out);
    const std::pair<int, int> here{p.tb, static_cast<int>(steps.size()) - 1};
    for (const auto& [b, e] : p.reads)
      for (BlockIndex x = b; x < e; ++x) readers_[x].push_back(here);
    for (const auto& [b, e] : p.writes)
      for (BlockIndex x = b; x < e; ++x) {
        last_writer_[x] = here;
        readers_[x].clear();
      }
  }
};

// Where one instance's threadblocks go: a port's connections spread over `spread` channels by
// floor((sender + receiver) / 2) mod spread, which both ends compute alike, so the executor's
// FIFO per (sender, receiver, channel) still carries one (sender, receiver, port) in order.
// A rank's peers fall on the channels evenly, and ring neighbours (whose sum is always odd)
// do not all land on one channel.
struct Channels {
  int ports = 1;
  int spread = 1;
  int of(int rank, const TbKey& k) const {
    if (k.kind == 2) return 0;
    return k.port + ports * (((rank + k.peer) / 2) % spread);
  }
};

// The name as an XML attribute value. XML 1.0 cannot carry most control characters at all
// (not even as character references), and the importer reads names as one-line labels: a
// name holding any control character, or bytes that are not UTF-8, is refused.
std::string escape(const std::string& name) {
  std::size_t bad_at = 0;
  if (!is_utf8(name, &bad_at))
    throw ScheduleFormatError("MSCCL XML export: the name '" + printable(name.substr(0, 80)) +
                              "' is not UTF-8 (byte " + std::to_string(bad_at) +
                              "); accepted: printable UTF-8 text");
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f)
      throw ScheduleFormatError("MSCCL XML export: the name '" + printable(name.substr(0, 80)) +
                                "' holds a control character, which XML 1.0 cannot carry in "
                                "a name; accepted: printable UTF-8 text");
  }
  std::string escaped;
  for (char ch : name) {
    if (ch == '&')
      escaped += "&amp;";
    else if (ch == '<')
      escaped += "&lt;";
    else if (ch == '>')
      escaped += "&gt;";
    else if (ch == '"')
      escaped += "&quot;";
    else
      escaped += ch;
  }
  return escaped;
}

void check_options(const MscclExportOptions& o, int ports, Collective c) {
  const bool reduces = c == Collective::allreduce || c == Collective::reduce_scatter;
  if (!o.commutative && reduces)
    throw ScheduleFormatError(
        "MSCCL XML export: a non-commutative reduction cannot be exported: the format cannot "
        "state the order of a reduction's operands (the executor combines them in arrival "
        "order); accepted: a commutative operator");
  if (o.proto != "Simple" && o.proto != "LL" && o.proto != "LL128")
    throw ScheduleFormatError("MSCCL XML export: proto '" + o.proto.substr(0, 40) +
                              "' is not supported; accepted: Simple, LL, LL128");
  if (o.nchannels != 0 && (o.nchannels < ports || o.nchannels > kMscclMaxChannels))
    throw ScheduleFormatError("MSCCL XML export: nchannels = " + std::to_string(o.nchannels) +
                              " does not fit this schedule's " + std::to_string(ports) +
                              " ports; accepted: " + std::to_string(ports) + ".." +
                              std::to_string(kMscclMaxChannels) + " (at least one per port)");
  if (o.instances < 1 || o.instances > kMscclMaxChannels)
    throw ScheduleFormatError("MSCCL XML export: instances = " + std::to_string(o.instances) +
                              " is out of range; accepted: 1.." +
                              std::to_string(kMscclMaxChannels));
}

// One gpu's element: every threadblock once per instance (ids t x n + i, as msccl-tools numbers
// them), offsets and dependencies moved to the instance's chunks and threadblocks.
void write_gpu(std::ostringstream& g, const RankExport& ex, int rank, const ScheduleInfo& info,
               const Channels& channels, int per_instance, int n) {
  const Collective c = info.collective;
  const std::int64_t B = info.blocks;
  const std::int64_t scratch = ex.scratch_end - info.user_slots();
  const std::int64_t ic = c == Collective::allgather ? 0 : B;
  const std::int64_t oc = (c == Collective::allgather || c == Collective::alltoall) ? B : 0;
  g << "  <gpu id=\"" << rank << "\" i_chunks=\"" << ic * n << "\" o_chunks=\"" << oc * n
    << "\" s_chunks=\"" << scratch * n << "\">\n";
  for (std::size_t t = 0; t < ex.tb_keys.size(); ++t)
    for (int i = 0; i < n; ++i) {
      const TbKey& k = ex.tb_keys[t];
      const auto offset = [&](const Piece& p) {
        if (p.off < 0) return p.off;
        if (p.buf == 's') return p.off + scratch * i;
        if (n > 1 && p.cnt > 1) throw std::logic_error("MSCCL XML export: a run of user chunks");
        return p.off * n + i;
      };
      g << "    <tb id=\"" << static_cast<int>(t) * n + i << "\" send=\""
        << (k.kind == 0 ? k.peer : -1) << "\" recv=\"" << (k.kind == 1 ? k.peer : -1)
        << "\" chan=\"" << channels.of(rank, k) + per_instance * i << "\">\n";
      int s = 0;
      for (const XmlStep& st : ex.tb_steps[t]) {
        g << "      <step s=\"" << s++ << "\" type=\"" << st.type << "\" srcbuf=\"" << st.src.buf
          << "\" srcoff=\"" << offset(st.src) << "\" dstbuf=\"" << st.dst.buf << "\" dstoff=\""
          << offset(st.dst) << "\" cnt=\"" << (st.type == "nop" ? 0 : st.src.cnt) << "\" depid=\""
          << (st.depid < 0 ? -1 : st.depid * n + i) << "\" deps=\"" << st.deps << "\" hasdep=\""
          << (st.hasdep ? 1 : 0) << "\"/>\n";
      }
      g << "    </tb>\n";
    }
  g << "  </gpu>\n";
}

}  // namespace

std::string schedule_to_msccl_xml(const Schedule& schedule, const MscclExportOptions& options) {
  const ScheduleInfo& info = schedule.info();
  const Collective c = info.collective;
  if (c != Collective::allreduce && c != Collective::allgather && c != Collective::reduce_scatter &&
      c != Collective::alltoall)
    throw ScheduleFormatError("MSCCL XML export: collective " + std::string(collective_name(c)) +
                              " is not supported; accepted: allreduce, allgather, reduce-scatter, "
                              "alltoall");
  const int ports = std::max(1, info.ports);
  check_options(options, ports, c);
  const std::string name = escape(options.name.empty() ? info.algorithm : options.name);
  if (!options.force) refuse_beyond_limits(estimate_msccl_export(schedule, options));
  // A schedule of lanes is walked in its lock-step view, materialized once for all ranks.
  std::unique_ptr<ExplicitSchedule> materialized;
  if (dynamic_cast<const ExplicitSchedule*>(&schedule) == nullptr && schedule.has_lanes())
    materialized = materialize(schedule);
  const Schedule& walk = materialized ? *materialized : schedule;
  const int n = options.instances;
  std::vector<RankExport> ranks;
  ranks.reserve(static_cast<std::size_t>(info.ranks));
  for (int r = 0; r < info.ranks; ++r) {
    ranks.emplace_back(schedule, walk, r, info.user_slots(), n > 1);
    ranks.back().run();
  }
  Channels channels{ports, options.nchannels > 0 ? options.nchannels / ports : 1};
  int per_instance = options.nchannels;
  if (per_instance == 0) {
    per_instance = 1;
    for (int r = 0; r < info.ranks; ++r)
      for (const TbKey& k : ranks[static_cast<std::size_t>(r)].tb_keys)
        per_instance = std::max(per_instance, channels.of(r, k) + 1);
  }
  if (per_instance > kMscclMaxChannels)
    throw ScheduleFormatError(
        "MSCCL XML export: the schedule needs " + std::to_string(per_instance) +
        " channels (one per port), more than the executor's " + std::to_string(kMscclMaxChannels) +
        "; accepted: at most " + std::to_string(kMscclMaxChannels) + " ports");
  if (per_instance * n > kMscclMaxChannels)
    throw ScheduleFormatError(
        "MSCCL XML export: " + std::to_string(n) + " instances of " + std::to_string(per_instance) +
        " channels need " + std::to_string(per_instance * n) +
        " channels, more than the executor's " + std::to_string(kMscclMaxChannels) +
        "; accepted: instances 1.." + std::to_string(kMscclMaxChannels / per_instance) + " with " +
        std::to_string(per_instance) + " channels each");
  std::ostringstream xml;
  // The executors (msccl-executor-nccl's and RCCL's src/misc/msccl/msccl_parser.cc) accept
  // only "reducescatter"; msccl-tools writes "reduce_scatter", which they refuse.
  const std::string coll =
      c == Collective::reduce_scatter ? "reducescatter" : std::string(collective_name(c));
  // The node size of a hier:/leader: composition has no MSCCL attribute; a comment keeps it
  // for readers, and the executors' parser (msccl_parser.cc's mscclXmlGetNode) skips comments
  // where a node is expected, as expat does (our import).
  if (info.ranks_per_node > 1)
    xml << "<!-- topocoll ranks_per_node=\"" << info.ranks_per_node
        << "\": ranks nK to nK+K-1 share node n -->\n";
  xml << "<algo name=\"" << name << "\" proto=\"" << options.proto << "\" nchannels=\""
      << per_instance * n << "\" nchunksperloop=\"" << info.blocks * n << "\" ngpus=\""
      << info.ranks << "\" coll=\"" << coll << "\" inplace=\""
      << (c == Collective::alltoall ? 0 : 1) << "\">\n";
  for (int r = 0; r < info.ranks; ++r)
    write_gpu(xml, ranks[static_cast<std::size_t>(r)], r, info, channels, per_instance, n);
  xml << "</algo>\n";
  return xml.str();
}

}  // namespace topocoll
