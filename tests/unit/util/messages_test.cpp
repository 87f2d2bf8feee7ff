#include "util/messages.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace kpt::util {
namespace {

TEST(Messages, EachSeverityHasKubectlsPrefix) {
  struct Case {
    Severity severity;
    const char* text;
  };
  for (const auto& c :
       {Case{Severity::error, "error: no such job"}, Case{Severity::warning, "warning: no such job"},
        Case{Severity::note, "note: no such job"}}) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(message_text(c.severity, "no such job"), c.text);
    std::ostringstream out;
    print_message(out, c.severity, "no such job");
    EXPECT_EQ(out.str(), std::string(c.text) + "\n");
  }
}

TEST(Messages, ThePrintHelpersAreThePrefixedLines) {
  std::ostringstream out;
  print_error(out, "a");
  print_warning(out, "b");
  print_note(out, "c");
  EXPECT_EQ(out.str(), "error: a\nwarning: b\nnote: c\n");
}

}  // namespace
}  // namespace kpt::util
