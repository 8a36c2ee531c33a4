#include "type_cache.hpp"

namespace topocoll::mpi {

TypeCache::~TypeCache() { clear(); }

void TypeCache::clear() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  for (Entry& e : entries_)
    if (e.type != MPI_DATATYPE_NULL && !finalized) PMPI_Type_free(&e.type);
  entries_.clear();
  staging_.clear();
  release_transient();
}

void TypeCache::release_transient() {
  int finalized = 0;
  if (!transient_.empty()) PMPI_Finalized(&finalized);
  for (MPI_Datatype& t : transient_)
    if (!finalized) PMPI_Type_free(&t);
  transient_.clear();
}

char* TypeCache::staging(std::size_t index, std::size_t bytes) {
  if (staging_.size() <= index) staging_.resize(index + 1);
  std::vector<char>& buffer = staging_[index];
  if (buffer.size() < bytes) buffer.resize(bytes);
  return buffer.data();
}

MPI_Datatype TypeCache::get(std::size_t index, const std::vector<int>& lengths,
                            const std::vector<MPI_Aint>& addresses, MPI_Datatype element) {
  int integers = 0, count = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(element, &integers, &count, &types, &combiner);
  if (combiner != MPI_COMBINER_NAMED) {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    PMPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), addresses.data(),
                              element, &type);
    PMPI_Type_commit(&type);
    transient_.push_back(type);
    return type;
  }
  if (entries_.size() <= index) entries_.resize(index + 1);
  Entry& e = entries_[index];
  if (e.type != MPI_DATATYPE_NULL && e.element == element && e.lengths == lengths &&
      e.addresses == addresses)
    return e.type;
  if (e.type != MPI_DATATYPE_NULL) PMPI_Type_free(&e.type);
  PMPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), addresses.data(),
                            element, &e.type);
  PMPI_Type_commit(&e.type);
  e.lengths = lengths;
  e.addresses = addresses;
  e.element = element;
  return e.type;
}

}  // namespace topocoll::mpi
