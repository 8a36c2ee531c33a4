#pragma once
// Hierarchical compositions over any registry algorithm (bine-trees-sc25.txt section 6.2):
//  - hier:INNER: intra-node reduce-scatter among the K ranks of a node, INNER among the ranks
//    of equal local index across the N nodes on their 1/K of the vector, intra-node allgather
//    (and the other collectives' equivalents, see docs/hierarchical.md).
//  - leader:INNER: intra-node reduce to a leader, INNER among the N leaders on the whole
//    vector, intra-node broadcast.
// The inner schedule comes from the registry for the node count; the composition translates
// its peers and blocks and never looks at which algorithm it is.
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace topocoll::algorithms::hierarchical {

// Adds the forms and one composition per form and registry algorithm that share a collective.
// Call after every flat algorithm is registered.
void register_compositions(Registry& registry);

// A composition's phases, in order, each a schedule on the composed ranks and slots; `info`
// is the composed schedule's. `request` must satisfy the composition (Registry::rejection).
struct Phases {
  ScheduleInfo info;
  std::vector<SchedulePtr> phases;
};
[[nodiscard]] Phases composition_phases(const std::string& form, const std::string& inner,
                                        const ScheduleRequest& request);
// The phases run one after the other (what the registry builds).
[[nodiscard]] SchedulePtr in_sequence(Phases phases);

}  // namespace topocoll::algorithms::hierarchical
