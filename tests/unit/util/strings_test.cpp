#include "util/strings.hpp"

#include "util/time.hpp"

#include <gtest/gtest.h>

namespace kpt::util {
namespace {

TEST(EditDistance, CountsSingleEdits) {
  EXPECT_EQ(edit_distance("replicas", "replica", 3), 1u);
  EXPECT_EQ(edit_distance("replicas", "replicsa", 3), 2u);
  EXPECT_EQ(edit_distance("", "abc", 5), 3u);
}

TEST(EditDistance, GivesUpPastTheCap) {
  EXPECT_EQ(edit_distance("a", "abcdefghij", 2), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting", 1), 2u);
}

TEST(ClosestMatch, SuggestsTheNearestCandidate) {
  const std::vector<std::string> fields{"replicas", "restartPolicy", "template"};
  EXPECT_EQ(closest_match("replcas", fields), "replicas");
  EXPECT_EQ(closest_match("Replicas", fields), "replicas");
  EXPECT_EQ(closest_match("completelyDifferent", fields), std::nullopt);
}

TEST(ParseDuration, AcceptsKubectlStyleDurations) {
  struct Case {
    const char* text;
    std::optional<long long> ms;
  };
  const Case cases[] = {
      {"30s", 30'000},       {"5m", 300'000},       {"1h30m", 5'400'000},
      {"250ms", 250},        {"10", 10'000},        {"", std::nullopt},
      {"abc", std::nullopt}, {"-5s", std::nullopt}, {"1m30", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(parse_duration_ms(c.text), c.ms);
  }
}

TEST(WrapWords, BreaksAtSpacesWithAHangingIndent) {
  EXPECT_EQ(wrap_words("note: one two three four", 16, 6), "note: one two\n      three four");
  EXPECT_EQ(wrap_words("note: one two three four", 15, 6), "note: one two\n      three\n      four");
  EXPECT_EQ(wrap_words("short", 14, 6), "short");
  EXPECT_EQ(wrap_words("", 14, 6), "");
}

TEST(WrapWords, NoLineIsLongerThanTheWidthUnlessOneWordIs) {
  const std::string text =
      "note: world size = PET_NNODES x PET_NPROC_PER_NODE = 2 x 1 = 2 and more words after it";
  for (std::size_t width = 20; width <= 60; ++width) {
    const auto lines = split(wrap_words(text, width, 6), '\n');
    for (const auto& line : lines) {
      const bool one_word = line.find(' ', line.find_first_not_of(' ')) == std::string::npos;
      if (!one_word) {
        EXPECT_LE(line.size(), width) << "width " << width << ": " << line;
      }
    }
  }
  EXPECT_EQ(wrap_words("a https://example.com/a/very/long/address b", 10, 2),
            "a\n  https://example.com/a/very/long/address\n  b");
}

TEST(WrapWords, RunsOfSpacesCollapse) { EXPECT_EQ(wrap_words("a  b   c", 80, 2), "a b c"); }

TEST(NoteLines, EachNoteIsOneParagraphOf120ColumnsUnderItsFirstWord) {
  std::string long_note;
  for (int i = 0; i < 40; ++i) long_note += "word" + std::to_string(i) + " ";
  const auto text = note_lines({"short", long_note});
  const auto lines = split(text, '\n');
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0], "note: short");
  EXPECT_TRUE(starts_with(lines[1], "note: word0 word1"));
  EXPECT_TRUE(starts_with(lines[2], "      word"));
  for (const auto& line : lines) EXPECT_LE(line.size(), 120u);
  EXPECT_TRUE(ends_with(text, "word39\n"));
}

TEST(FormatColumns, WidthsComeFromTheCellsAndTheLastColumnIsNotPadded) {
  EXPECT_EQ(format_columns({{"NAME", "STATE", "AGE"}, {"pytorchjob/l", "Succeeded", "5s"}, {"x", "", "1d"}}),
            "NAME           STATE       AGE\n"
            "pytorchjob/l   Succeeded   5s\n"
            "x                          1d\n");
  EXPECT_EQ(format_columns({{"A", ""}}), "A\n");
  EXPECT_EQ(format_columns({}), "");
}

TEST(FormatColumns, PaintTakesNoWidthAndTheGapIsTheCallersChoice) {
  ColumnLayout layout;
  layout.gap = 2;
  layout.paint = [](std::size_t row, std::size_t column) {
    return row == 1 && column == 1 ? CellPaint{"<b>", "</b>"} : CellPaint{};
  };
  EXPECT_EQ(
      format_columns({{"CHECK", "STATUS", "DETAIL"}, {"crd", "ok", "v1"}, {"webhook", "", "none"}}, layout),
      "CHECK    STATUS  DETAIL\n"
      "crd      <b>ok</b>      v1\n"
      "webhook          none\n");
}

TEST(Quote, CutsLongValues) {
  EXPECT_EQ(quote("abc"), "'abc'");
  EXPECT_EQ(quote("abcdef", 3), "'abc...'");
}

}  // namespace
}  // namespace kpt::util
