#include "call_report.hpp"

#include <cstdio>

namespace topocoll::mpi {
namespace {

std::string type_name(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
  char name[MPI_MAX_OBJECT_NAME] = {};
  int length = 0;
  PMPI_Type_get_name(type, name, &length);
  return length > 0 ? std::string(name, static_cast<std::size_t>(length)) : "derived";
}

std::string call_prefix(const Call& call, int size) {
  std::string line = std::string(mpi_collective_name(call.collective)) +
                     " comm_size=" + std::to_string(size) +
                     " count=" + std::to_string(static_cast<long long>(call.count)) +
                     " type=" + type_name(call.type);
  if (call.root >= 0) line += " root=" + std::to_string(call.root);
  return line;
}

void print(const std::string& line) {
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace

void log_call(const Call& call, int size, const std::string& what) {
  print("topocoll: " + call_prefix(call, size) + " " + what + "\n");
}

void report_error(const Call& call, int size, const std::string& what) {
  print("topocoll: error: " + call_prefix(call, size) + ": " + what + "\n");
}

std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  int error_class = code;
  PMPI_Error_class(code, &error_class);
  PMPI_Error_string(error_class, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

int raise_on(MPI_Comm comm, int code) {
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

}  // namespace topocoll::mpi
