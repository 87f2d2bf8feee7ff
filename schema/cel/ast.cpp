#include "schema/cel/ast.hpp"

namespace kpt::cel {

const char* op_name(Op op) {
  switch (op) {
    case Op::none:
      return "";
    case Op::logical_not:
      return "!_";
    case Op::negate:
      return "-_";
    case Op::logical_and:
      return "_&&_";
    case Op::logical_or:
      return "_||_";
    case Op::add:
      return "_+_";
    case Op::sub:
      return "_-_";
    case Op::mul:
      return "_*_";
    case Op::div:
      return "_/_";
    case Op::mod:
      return "_%_";
    case Op::eq:
      return "_==_";
    case Op::ne:
      return "_!=_";
    case Op::lt:
      return "_<_";
    case Op::le:
      return "_<=_";
    case Op::gt:
      return "_>_";
    case Op::ge:
      return "_>=_";
    case Op::in:
      return "@in";
  }
  return "";
}

const char* macro_name(Macro macro) {
  switch (macro) {
    case Macro::all:
      return "all";
    case Macro::exists:
      return "exists";
    case Macro::exists_one:
      return "exists_one";
    case Macro::map:
    case Macro::map_filter:
      return "map";
    case Macro::filter:
      return "filter";
  }
  return "";
}

}  // namespace kpt::cel
