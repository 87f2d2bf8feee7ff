// lint.image-placeholder: images copied from a guide (YOUR-IMAGE, <image>); lint.image-unpinned:
// `:latest` or no tag, which let the pods of one job run different code. Two ids, so a team that
// deploys :latest on purpose turns off that one and keeps the placeholder check.
#include "schema/rules/lint_checks.hpp"
#include "schema/rules/rule_helpers.hpp"
#include "util/strings.hpp"

#include <array>
#include <string>
#include <string_view>

namespace kpt::schema::rules {

namespace {

constexpr std::array<std::string_view, 12> k_placeholder_words{
    "your-", "your_",    "yourimage", "<",          ">",           "${",
    "{{",    "changeme", "change-me", "replace-me", "placeholder", "example.com"};

bool looks_like_placeholder(std::string_view image) {
  const auto lower = util::to_lower(image);
  for (auto w : k_placeholder_words) {
    if (lower.find(w) != std::string::npos) return true;
  }
  return lower == "image" || lower == "image:tag" || lower == "image:latest" || lower == "my-image";
}

enum class Tag { pinned, latest, none };

Tag tag_of(std::string_view image) {
  if (image.find('@') != std::string_view::npos) return Tag::pinned;  // a digest pins it
  const auto slash = image.rfind('/');
  const auto last = slash == std::string_view::npos ? image : image.substr(slash + 1);
  const auto colon = last.rfind(':');
  if (colon == std::string_view::npos) return Tag::none;
  return last.substr(colon + 1) == "latest" ? Tag::latest : Tag::pinned;
}

}  // namespace

Diagnostics check_image_lint(const yaml::Document& doc) {
  Diagnostics out;
  if (!doc.root.is_map()) return out;
  for (const auto& r : replica_entries(doc.root)) {
    for (const char* list : {"initContainers", "containers"}) {
      for (const auto& c : container_entries(r, list)) {
        const yaml::Node* image = c.node->find("image");
        if (image == nullptr || !image->is_string() || image->text.empty()) continue;
        const auto& text = image->text;
        const std::string path = c.path + ".image";
        if (looks_like_placeholder(text)) {
          out.push_back(make_finding(doc, image->pos, Severity::warning, path, "lint.image-placeholder",
                                     "image " + util::quote(text) + " looks like a placeholder",
                                     "replace it with the image that holds your training code, pinned by a "
                                     "version tag or digest"));
          continue;
        }
        const auto tag = tag_of(text);
        if (tag == Tag::pinned) continue;
        out.push_back(make_finding(
            doc, image->pos, Severity::warning, path, "lint.image-unpinned",
            "image " + util::quote(text) +
                (tag == Tag::latest ? " uses the ':latest' tag" : " has no tag, so ':latest' is pulled") +
                ", and the pods of one job may run different images",
            "pin a version tag or a digest (name@sha256:...)"));
      }
    }
  }
  return out;
}

}  // namespace kpt::schema::rules
