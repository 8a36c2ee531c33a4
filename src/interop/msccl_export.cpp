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
#include <algorithm>
#include <map>
#include <sstream>

#include "core/schedule_io.hpp"
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
  RankExport(const Schedule& s, int rank, int user_slots)
      : s_(s), rank_(rank), user_(user_slots), temp_(s.info().total_slots()) {}

  std::map<TbKey, int> tb_of;
  std::vector<TbKey> tb_keys;
  std::vector<std::vector<XmlStep>> tb_steps;
  std::int64_t scratch_end = 0;  // slots used, including temporaries

  void run() {
    const ExplicitSchedule* ex = dynamic_cast<const ExplicitSchedule*>(&s_);
    std::unique_ptr<ExplicitSchedule> owned;
    if (ex == nullptr) {
      owned = materialize(s_);
      ex = owned.get();
    }
    last_writer_.assign(static_cast<std::size_t>(s_.info().total_slots()), {-1, -1});
    readers_.assign(last_writer_.size(), {});
    // The lock-step view orders every step after the steps it waits for.
    for (int k = 0; k < ex->step_count(rank_); ++k) {
      Step step;
      ex->build_step(rank_, k, step);
      emit_step(step);
    }
    scratch_end = temp_;
  }

 private:
  const Schedule& s_;
  int rank_;
  int user_;
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
        if (single) e = b + 1;
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
      while (j < from.size() && from[j] == from[j - 1] + 1 && to[j] == to[j - 1] + 1 &&
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

}  // namespace

std::string schedule_to_msccl_xml(const Schedule& schedule, const MscclExportOptions& options) {
  const ScheduleInfo& info = schedule.info();
  const Collective c = info.collective;
  if (c != Collective::allreduce && c != Collective::allgather && c != Collective::reduce_scatter &&
      c != Collective::alltoall)
    throw ScheduleFormatError("MSCCL XML export: collective " + std::string(collective_name(c)) +
                              " is not supported; accepted: allreduce, allgather, reduce-scatter, "
                              "alltoall");
  if (options.proto != "Simple" && options.proto != "LL" && options.proto != "LL128")
    throw ScheduleFormatError("MSCCL XML export: proto '" + options.proto +
                              "' is not supported; accepted: Simple, LL, LL128");
  const int user = info.user_slots();
  const std::int64_t B = info.blocks;
  std::ostringstream xml;
  std::vector<std::string> gpus;
  int nchannels = 1;
  for (int r = 0; r < info.ranks; ++r) {
    RankExport ex(schedule, r, user);
    ex.run();
    std::ostringstream g;
    const std::int64_t scratch = ex.scratch_end - user;
    const std::int64_t ic = c == Collective::allgather ? 0 : B;
    const std::int64_t oc = (c == Collective::allgather || c == Collective::alltoall) ? B : 0;
    g << "  <gpu id=\"" << r << "\" i_chunks=\"" << ic << "\" o_chunks=\"" << oc << "\" s_chunks=\""
      << scratch << "\">\n";
    for (std::size_t t = 0; t < ex.tb_keys.size(); ++t) {
      const TbKey& k = ex.tb_keys[t];
      nchannels = std::max(nchannels, k.port + 1);
      g << "    <tb id=\"" << t << "\" send=\"" << (k.kind == 0 ? k.peer : -1) << "\" recv=\""
        << (k.kind == 1 ? k.peer : -1) << "\" chan=\"" << k.port << "\">\n";
      int s = 0;
      for (const XmlStep& st : ex.tb_steps[t]) {
        g << "      <step s=\"" << s++ << "\" type=\"" << st.type << "\" srcbuf=\"" << st.src.buf
          << "\" srcoff=\"" << st.src.off << "\" dstbuf=\"" << st.dst.buf << "\" dstoff=\""
          << st.dst.off << "\" cnt=\"" << (st.type == "nop" ? 0 : st.src.cnt) << "\" depid=\""
          << st.depid << "\" deps=\"" << st.deps << "\" hasdep=\"" << (st.hasdep ? 1 : 0)
          << "\"/>\n";
      }
      g << "    </tb>\n";
    }
    g << "  </gpu>\n";
    gpus.push_back(g.str());
  }
  const std::string name = options.name.empty() ? info.algorithm : options.name;
  std::string escaped;
  for (char ch : name) {
    if (ch == '&')
      escaped += "&amp;";
    else if (ch == '<')
      escaped += "&lt;";
    else if (ch == '"')
      escaped += "&quot;";
    else
      escaped += ch;
  }
  const std::string coll =
      c == Collective::reduce_scatter ? "reduce_scatter" : std::string(collective_name(c));
  xml << "<algo name=\"" << escaped << "\" proto=\"" << options.proto << "\" nchannels=\""
      << nchannels << "\" nchunksperloop=\"" << B << "\" ngpus=\"" << info.ranks << "\" coll=\""
      << coll << "\" inplace=\"" << (c == Collective::alltoall ? 0 : 1) << "\">\n";
  for (const std::string& g : gpus) xml << g;
  xml << "</algo>\n";
  return xml.str();
}

}  // namespace topocoll
