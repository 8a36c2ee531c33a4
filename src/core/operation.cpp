#include "core/operation.hpp"

#include <sstream>

namespace topocoll {

Operation Operation::send(int peer, BlockSet blocks, int port) {
  Operation op;
  op.kind = OpKind::send;
  op.peer = peer;
  op.port = port;
  op.blocks = std::move(blocks);
  return op;
}

Operation Operation::recv(int peer, BlockSet blocks, Combine combine, int port,
                          OperandOrder order) {
  Operation op;
  op.kind = OpKind::recv;
  op.peer = peer;
  op.port = port;
  op.blocks = std::move(blocks);
  op.combine = combine;
  op.order = order;
  return op;
}

Operation Operation::local_copy(BlockSet source, BlockSet destination, Combine combine,
                                OperandOrder order) {
  Operation op;
  op.kind = OpKind::copy;
  op.blocks = std::move(destination);
  op.source = std::move(source);
  op.combine = combine;
  op.order = order;
  return op;
}

Operation Operation::local_after_receives(BlockSet source, BlockSet destination, Combine combine,
                                          OperandOrder order) {
  Operation op = local_copy(std::move(source), std::move(destination), combine, order);
  op.timing = CopyTiming::after_receives;
  return op;
}

std::string_view copy_timing_name(CopyTiming timing) {
  return timing == CopyTiming::step_start ? "step-start" : "after-receives";
}

std::string_view op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::send: return "send";
    case OpKind::recv: return "recv";
    case OpKind::copy: return "copy";
  }
  return "?";
}

std::string_view combine_name(Combine combine) {
  return combine == Combine::copy ? "copy" : "reduce";
}

std::string_view operand_order_name(OperandOrder order) {
  return order == OperandOrder::received_first ? "received-first" : "local-first";
}

std::string Operation::to_string() const {
  std::ostringstream os;
  switch (kind) {
    case OpKind::send:
      os << "send to " << peer << " port " << port << " blocks " << blocks.to_string();
      break;
    case OpKind::recv:
      os << "recv from " << peer << " port " << port << " blocks " << blocks.to_string() << ' '
         << combine_name(combine);
      break;
    case OpKind::copy:
      os << "local " << combine_name(combine) << ' ' << source.to_string() << " -> "
         << blocks.to_string();
      if (timing == CopyTiming::after_receives) os << " after receives";
      break;
  }
  if (combine == Combine::reduce && order == OperandOrder::local_first) os << " (local-first)";
  return os.str();
}

}  // namespace topocoll
