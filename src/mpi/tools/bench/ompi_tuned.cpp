#include "ompi_tuned.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "options.hpp"

namespace topocoll::bench {
namespace {

bool g_mpit_initialized = false;

// Our short names for coll_tuned's enumeration items.
std::string tuned_item(std::string name) {
  static const std::map<std::string, std::string> aliases{{"recdoub", "recursive_doubling"}};
  name = name.substr(std::string(kOmpiPrefix).size());
  if (auto it = aliases.find(name); it != aliases.end()) return it->second;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

class CvarHandle {
 public:
  explicit CvarHandle(int index) { MPI_T_cvar_handle_alloc(index, nullptr, &handle_, &count_); }
  ~CvarHandle() { MPI_T_cvar_handle_free(&handle_); }
  CvarHandle(const CvarHandle&) = delete;
  CvarHandle& operator=(const CvarHandle&) = delete;
  // Whether the variable is non-zero. Zero-initialized storage as wide as any integer: Open
  // MPI reads a bool cvar as one byte.
  bool read_nonzero() {
    long long value = 0;
    MPI_T_cvar_read(handle_, &value);
    return value != 0;
  }
  int write(int value) { return MPI_T_cvar_write(handle_, &value); }

 private:
  MPI_T_cvar_handle handle_ = nullptr;
  int count_ = 0;
};

int cvar_index(const std::string& name) {
  int index = -1;
  if (MPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS) return -1;
  return index;
}

// The enumeration items of an integer cvar: name -> value.
std::map<std::string, int> enum_items(int index) {
  char name[256], description[1024];
  int name_len = sizeof name, desc_len = sizeof description, verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype datatype;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  std::map<std::string, int> items;
  if (MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &datatype, &enumtype, description,
                          &desc_len, &bind, &scope) != MPI_SUCCESS ||
      enumtype == MPI_T_ENUM_NULL)
    return items;
  int count = 0;
  name_len = sizeof name;
  MPI_T_enum_get_info(enumtype, &count, name, &name_len);
  for (int i = 0; i < count; ++i) {
    int value = 0;
    name_len = sizeof name;
    if (MPI_T_enum_get_item(enumtype, i, &value, name, &name_len) == MPI_SUCCESS)
      items[name] = value;
  }
  return items;
}

}  // namespace

bool is_ompi_algorithm(const std::string& name) { return name.rfind(kOmpiPrefix, 0) == 0; }

void prepare_environment(const std::vector<std::string>& algorithms) {
  if (std::any_of(algorithms.begin(), algorithms.end(), is_ompi_algorithm))
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", /*overwrite=*/0);
}

MPI_Comm forced_communicator(const std::string& collective, const std::string& name) {
  if (!g_mpit_initialized) {
    int provided = 0;
    g_mpit_initialized = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
  }
  const std::string cvar = "coll_tuned_" + collective + "_algorithm";
  const int index = g_mpit_initialized ? cvar_index(cvar) : -1;
  if (index < 0)
    throw BadFlag("--algorithm " + name + " needs Open MPI's coll_tuned (MPI_T control variable " +
                  cvar + " not found); use mpi or a topocoll algorithm");
  const int dynamic = cvar_index("coll_tuned_use_dynamic_rules");
  if (dynamic < 0 || !CvarHandle(dynamic).read_nonzero())
    throw BadFlag(
        "--algorithm " + name +
        " needs coll_tuned_use_dynamic_rules=1 (unset OMPI_MCA_coll_tuned_use_dynamic_rules "
        "or export it as 1)");
  const auto items = enum_items(index);
  const auto item = items.find(tuned_item(name));
  if (item == items.end() || item->second == 0) {
    std::string accepted;
    for (const auto& [item_name, value] : items)
      if (value != 0)
        accepted += (accepted.empty() ? "" : ", ") + std::string(kOmpiPrefix) + item_name;
    throw BadFlag("--algorithm " + name + ": Open MPI has no " + collective +
                  " algorithm of that name; accepted: " + accepted +
                  " (ompi-recdoub = ompi-recursive_doubling)");
  }
  CvarHandle handle(index);
  handle.write(item->second);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  handle.write(0);
  return comm;
}

void finish_tool_interface() {
  if (g_mpit_initialized) MPI_T_finalize();
  g_mpit_initialized = false;
}

}  // namespace topocoll::bench
