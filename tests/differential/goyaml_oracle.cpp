#include "tests/differential/goyaml_oracle.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <regex>
#include <set>

namespace kpt::differential {
namespace {

using json = nlohmann::json;

/// Go's strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64): an optional sign (ParseInt only), then
/// 0x, 0o, 0b or a leading 0 (octal) or decimal digits; the whole text must be consumed.
std::optional<json> go_parse_int(const std::string& s, bool allow_sign) {
  std::size_t i = 0;
  bool negative = false;
  if (allow_sign && i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  int base = 10;
  if (s.size() - i >= 2 && s[i] == '0') {
    const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i + 1])));
    if (p == 'x' || p == 'o' || p == 'b') {
      base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
      i += 2;
    } else {
      base = 8;
      i += 1;
    }
  }
  const std::string digits = s.substr(i);
  if (digits.empty() && !(base == 8 && i > 0 && s[i - 1] == '0')) return std::nullopt;
  for (const char c : digits) {
    const int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : std::isalpha(static_cast<unsigned char>(c))
                      ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                      : 99;
    if (v >= base) return std::nullopt;
  }
  errno = 0;
  const unsigned long long magnitude = digits.empty() ? 0 : std::strtoull(digits.c_str(), nullptr, base);
  if (errno == ERANGE) return std::nullopt;
  if (!allow_sign) return json(static_cast<std::uint64_t>(magnitude));
  const auto limit = static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (magnitude > limit + 1) return std::nullopt;
    return json(magnitude == limit + 1 ? std::numeric_limits<std::int64_t>::min()
                                       : -static_cast<std::int64_t>(magnitude));
  }
  if (magnitude > limit) return std::nullopt;
  return json(static_cast<std::int64_t>(magnitude));
}

/// Go's strconv.ParseFloat(s, 64) for decimal text (what go-yaml hands it): out of range is an error.
std::optional<double> go_parse_float(const std::string& s) {
  static const std::regex decimal(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
  if (!std::regex_match(s, decimal)) return std::nullopt;
  errno = 0;
  const double v = std::strtod(s.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(v)) return std::nullopt;
  return v;
}

std::string without_underscores(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
  return s;
}

bool is_timestamp_like(const std::string& s) {
  // go-yaml tries a timestamp first; one that parses stays a string in an interface{} (v2 keeps
  // timestamps as text for compatibility), so it only matters that it is not a number.
  static const std::regex ts(R"(^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?$)");
  return std::regex_match(s, ts);
}

json resolve_table(const std::string& s, bool& found) {
  found = true;
  static const std::set<std::string> yes = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                            "True", "TRUE", "on",  "On",  "ON"};
  static const std::set<std::string> no = {"n",     "N",     "no",  "No",  "NO", "false",
                                           "False", "FALSE", "off", "Off", "OFF"};
  static const std::set<std::string> nulls = {"", "~", "null", "Null", "NULL"};
  if (yes.count(s) != 0) return true;
  if (no.count(s) != 0) return false;
  if (nulls.count(s) != 0) return nullptr;
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  for (const char* inf : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})
    if (s == inf) return std::numeric_limits<double>::infinity();
  for (const char* inf : {"-.inf", "-.Inf", "-.INF"})
    if (s == inf) return -std::numeric_limits<double>::infinity();
  found = false;
  return nullptr;
}

}  // namespace

json resolve_plain(const std::string& text) {
  bool found = false;
  json fixed = resolve_table(text, found);
  if (found) return fixed;
  if (text.empty()) return nullptr;
  const char first = text.front();
  if (first == '.') {
    if (auto f = go_parse_float(text)) return *f;
    return text;
  }
  const bool digit_or_sign = std::isdigit(static_cast<unsigned char>(first)) || first == '+' || first == '-';
  if (!digit_or_sign) return text;
  if (is_timestamp_like(text)) return text;
  const std::string plain = without_underscores(text);
  if (auto i = go_parse_int(plain, true)) return *i;
  if (auto u = go_parse_int(plain, false)) return *u;
  if (auto f = go_parse_float(plain)) return *f;
  return text;
}

namespace {

std::string go_float_key(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  // strconv.FormatFloat(v, 'g', -1, 32): the shortest text that reads back as the same float32.
  const auto f = static_cast<float>(v);
  char buf[64];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  std::string s = buf;
  // Go writes exponents with at least two digits and a sign, as C does; nothing to change.
  return s;
}

class Converter {
 public:
  std::optional<std::string> error;

  json value(const YAML::Node& node) {
    // yaml-cpp shares an aliased node; the JSON tree copies it, so a "billion laughs" document
    // would expand past any memory. go-yaml v2 refuses such documents too ("excessive aliasing").
    if (++m_nodes > k_max_nodes) {
      error = "document expands past " + std::to_string(k_max_nodes) + " nodes";
      return nullptr;
    }
    if (error) return nullptr;
    switch (node.Type()) {
      case YAML::NodeType::Null:
        return node.Tag() == "!" ? json("") : json(nullptr);
      case YAML::NodeType::Scalar:
        return scalar(node);
      case YAML::NodeType::Sequence: {
        json out = json::array();
        for (const auto& item : node) out.push_back(value(item));
        return out;
      }
      case YAML::NodeType::Map:
        return mapping(node);
      case YAML::NodeType::Undefined:
        break;
    }
    return nullptr;
  }

 private:
  static constexpr std::size_t k_max_nodes = 200000;
  std::size_t m_nodes = 0;

  json scalar(const YAML::Node& node) {
    const std::string& text = node.Scalar();
    const std::string& tag = node.Tag();
    if (tag == "?") return resolve_plain(text);
    if (tag == "!" || tag == "tag:yaml.org,2002:str") return text;
    if (tag == "tag:yaml.org,2002:binary") return binary(text);
    const json resolved = resolve_plain(text);
    if (tag == "tag:yaml.org,2002:int" && resolved.is_number_integer()) return resolved;
    if (tag == "tag:yaml.org,2002:float" && resolved.is_number()) return resolved.get<double>();
    if (tag == "tag:yaml.org,2002:bool" && resolved.is_boolean()) return resolved;
    if (tag == "tag:yaml.org,2002:null" && resolved.is_null()) return resolved;
    if (tag.rfind("tag:yaml.org,2002:", 0) == 0) {
      error = "cannot decode '" + text + "' as " + tag;
      return nullptr;
    }
    return text;  // a tag go-yaml does not resolve: the text
  }

  json binary(const std::string& text) {
    static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned bits = 0;
    int count = 0;
    for (const char c : text) {
      if (c == '=' || std::isspace(static_cast<unsigned char>(c))) continue;
      const auto at = alphabet.find(c);
      if (at == std::string::npos) {
        error = "!!binary value contains invalid base64 data";
        return nullptr;
      }
      bits = (bits << 6) | static_cast<unsigned>(at);
      count += 6;
      if (count >= 8) {
        count -= 8;
        out += static_cast<char>((bits >> count) & 0xFF);
      }
    }
    return out;
  }

  std::optional<std::string> key_of(const YAML::Node& key) {
    const json k = value(key);
    if (k.is_string()) return k.get<std::string>();
    if (k.is_boolean()) return k.get<bool>() ? "true" : "false";
    if (k.is_number_integer()) return k.dump();
    if (k.is_number_float()) return go_float_key(k.get<double>());
    if (!error) error = "unsupported map key";  // the first reason stands
    return std::nullopt;
  }

  /// go-yaml v2 decode.go merge(): a mapping's keys are assigned over what `out` holds; a
  /// sequence's mappings are assigned last to first, so the earliest wins among them.
  void merge_into(json& out, const json& source) {
    const auto assign = [&](const json& m) {
      if (!m.is_object()) {
        error = "map merge requires map or sequence of maps as the value";
        return;
      }
      for (auto it = m.begin(); it != m.end(); ++it) out[it.key()] = it.value();
    };
    if (!source.is_array()) {
      assign(source);
      return;
    }
    for (auto it = source.rbegin(); it != source.rend(); ++it) assign(*it);
  }

  /// Pairs in document order, each assignment over the last (go-yaml v2's non-strict decoding):
  /// a key repeated takes its last value, and a merge overwrites the keys written before it.
  json mapping(const YAML::Node& node) {
    json out = json::object();
    for (const auto& pair : node) {
      if (pair.first.Type() == YAML::NodeType::Scalar && pair.first.Tag() == "?" &&
          pair.first.Scalar() == "<<") {
        merge_into(out, value(pair.second));
        continue;
      }
      if (pair.first.IsMap() || pair.first.IsSequence()) {
        error = "invalid map key";
        continue;
      }
      auto key = key_of(pair.first);
      if (!key) continue;
      out[*key] = value(pair.second);
    }
    return out;
  }
};

}  // namespace

OracleResult oracle_parse(const std::string& text) {
  OracleResult result;
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    result.error = std::string("yaml-cpp: ") + e.what();
    return result;
  }
  for (const auto& doc : docs) {
    Converter convert;
    json value = convert.value(doc);
    if (convert.error) {
      result.error = *convert.error;
      result.documents.clear();
      return result;
    }
    if (!value.is_null()) result.documents.push_back(std::move(value));
  }
  return result;
}

}  // namespace kpt::differential
