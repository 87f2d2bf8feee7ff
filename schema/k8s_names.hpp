#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kpt::schema {

// Name checks as k8s.io/apimachinery/pkg/util/validation gives them: each returns the
// messages apimachinery would return (empty when valid), word for word.

inline constexpr std::size_t k_dns1123_label_max = 63;
inline constexpr std::size_t k_dns1123_subdomain_max = 253;
inline constexpr std::size_t k_dns1035_label_max = 63;
inline constexpr std::size_t k_label_value_max = 63;
inline constexpr std::size_t k_qualified_name_max = 63;
inline constexpr std::size_t k_total_annotation_size_max = 256 * 1024;

std::vector<std::string> dns1123_label_errors(std::string_view value);
std::vector<std::string> dns1123_subdomain_errors(std::string_view value);
std::vector<std::string> dns1035_label_errors(std::string_view value);
/// A label or annotation key: `[prefix/]name`, prefix a DNS-1123 subdomain.
std::vector<std::string> qualified_name_errors(std::string_view value);
std::vector<std::string> label_value_errors(std::string_view value);
/// "must have at most 262144 bytes" when keys plus values exceed the API server's limit.
std::vector<std::string> annotations_size_errors(std::size_t total_bytes);

}  // namespace kpt::schema
