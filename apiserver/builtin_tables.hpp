#pragma once

#include "apiserver/resources.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>

namespace kpt::apiserver {

/// A built-in kind's Table columns and row cells, as the real server prints them
/// (k8s.io/kubernetes pkg/printers/internalversion/printers.go). The server always sends the
/// wide cells; kubectl shows priority-1 columns only with `-o wide`.
struct BuiltinPrinter {
  nlohmann::json columns;  ///< columnDefinitions
  std::function<nlohmann::json(const nlohmann::json& object, std::int64_t now_epoch)> cells;
};

/// The printer of a built-in kind, or nullptr (then the table is Name, custom columns, Age).
const BuiltinPrinter* builtin_printer(const ResourceInfo& res);

}  // namespace kpt::apiserver
