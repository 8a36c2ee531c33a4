#include "algorithms/trees/tree_butterfly.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>

#include "core/rank_math.hpp"

namespace topocoll::algorithms {

ButterflyFamily::ButterflyFamily(Tree shape, Placement placement)
    : shape_(std::move(shape)), placement_(placement) {
  const int n = shape_.size();
  if (placement_ == Placement::rotate_mirror_odd && n % 2 != 0)
    throw std::logic_error("Bine butterflies need an even node count");
  senders_.resize(static_cast<std::size_t>(steps()));
  for (int y = 0; y < n; ++y)
    for (const TreeEdge& e : shape_.children(y)) senders_[e.step].push_back(y);
  // Every tree of the family shares the partner of each (node, step); read it off any sender
  // (node 0 may have lost its child of a step to an earlier path, Appendix C).
  offset_.assign(static_cast<std::size_t>(steps()), 0);
  for (int k = 0; k < steps(); ++k) {
    if (senders_[k].empty()) continue;
    const int y = senders_[k].front();
    const int c = shape_.child_at(y, k);
    if (placement_ == Placement::exclusive_or) {
      offset_[k] = y ^ c;
    } else {
      offset_[k] = y % 2 == 0 ? mod(c - y, n) : mod(y - c, n);
    }
  }
}

int ButterflyFamily::partner(int u, int step) const {
  const long long d = offset_[step];
  if (placement_ == Placement::exclusive_or) return static_cast<int>(u ^ d);
  return mod(u % 2 == 0 ? u + d : u - d, nodes());
}

void ButterflyFamily::roots_sending(int u, int step, std::vector<int>& out) const {
  const int n = nodes();
  for (const int y : senders_[step]) {
    if (placement_ == Placement::exclusive_or) {
      out.push_back(u ^ y);
      continue;
    }
    // Tree x holds u as node u - x (x even) or x - u (x odd).
    if (const int x = mod(u - y, n); x % 2 == 0) out.push_back(x);
    if (const int x = mod(u + y, n); x % 2 == 1) out.push_back(x);
  }
}

ButterflyPhase::ButterflyPhase(ScheduleInfo info, std::shared_ptr<const ButterflyFamily> family,
                               std::vector<int> chunk_of, Participants where, Kind kind)
    : Schedule(std::move(info)),
      family_(std::move(family)),
      chunk_of_(std::move(chunk_of)),
      where_(where),
      kind_(kind),
      per_chunk_(this->info().blocks / family_->nodes()) {}

int ButterflyPhase::step_count(int rank) const {
  return where_.node_of(rank) < 0 ? 0 : family_->steps();
}

namespace {

// Ranges of sorted distinct chunk indices, each chunk `per` blocks long.
BlockSet ranges_of(const std::vector<int>& sorted, int per) {
  BlockSet out;
  const auto s = static_cast<BlockIndex>(per);
  for (const int c : sorted)
    out.add(static_cast<BlockIndex>(c) * s, static_cast<BlockIndex>(c + 1) * s);
  return out;
}

// Sorts chunk indices in [0, n): small sets by comparison, large ones through a bitmap, so the
// cost stays near the output size (a butterfly step moves up to n / 2 chunks).
void sort_chunks(std::vector<int>& chunks, int n) {
  if (chunks.size() * 64 < static_cast<std::size_t>(n) || chunks.size() < 64) {
    std::sort(chunks.begin(), chunks.end());
    return;
  }
  thread_local std::vector<std::uint64_t> bits;
  bits.assign(static_cast<std::size_t>(n + 63) / 64, 0);
  for (const int c : chunks) bits[c / 64] |= 1ULL << (c % 64);
  chunks.clear();
  for (std::size_t w = 0; w < bits.size(); ++w)
    for (std::uint64_t word = bits[w]; word != 0; word &= word - 1)
      chunks.push_back(static_cast<int>(w * 64) + std::countr_zero(word));
}

}  // namespace

BlockSet ButterflyPhase::chunks_of_roots(int u, int step) const {
  thread_local std::vector<int> chunks;
  chunks.clear();
  family_->roots_sending(u, step, chunks);
  for (int& x : chunks) x = chunk_of_[x];
  sort_chunks(chunks, family_->nodes());
  return ranges_of(chunks, per_chunk_);
}

void ButterflyPhase::build_step(int rank, int step, Step& out) const {
  const int u = where_.node_of(rank);
  // The reduce-scatter runs the allgather's steps backwards and its edges the other way.
  const bool gathering = kind_ == Kind::allgather;
  const int k = gathering ? step : family_->steps() - 1 - step;
  const int w = family_->partner(u, k);
  const BlockSet mine = chunks_of_roots(u, k);
  const BlockSet theirs = chunks_of_roots(w, k);
  const BlockSet& sent = gathering ? mine : theirs;
  const BlockSet& received = gathering ? theirs : mine;
  const int peer = where_.rank_of(w);
  if (!sent.empty()) out.ops.push_back(Operation::send(peer, sent));
  if (!received.empty()) {
    out.ops.push_back(Operation::recv(peer, received, gathering ? Combine::copy : Combine::reduce));
  }
}

}  // namespace topocoll::algorithms
