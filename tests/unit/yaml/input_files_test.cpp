#include "yaml/input_files.hpp"

#include "tests/support/memory_file_reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kpt::yaml {
namespace {

std::vector<std::string> names(const std::vector<InputFile>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.name);
  return out;
}

TEST(CollectInputs, ExpandsFilesDirectoriesAndStdinInArgumentOrder) {
  MemoryFileReader fs;
  fs.add_file("a.yaml", "a: 1\n");
  fs.add_file("jobs/z.yaml", "z: 1\n");
  fs.add_file("jobs/b.json", "{}");
  fs.add_file("jobs/sub/c.yml", "c: 1\n");
  fs.add_file("jobs/README.md", "# not a manifest\n");
  fs.add_file("jobs/notes.yaml.bak", "x\n");
  std::istringstream in("s: 1\n");
  const auto files = collect_inputs({"jobs", "-", "a.yaml"}, fs, in, 100);
  ASSERT_TRUE(files.has_value()) << files.error().message;
  EXPECT_EQ(names(*files),
            (std::vector<std::string>{"jobs/b.json", "jobs/sub/c.yml", "jobs/z.yaml", "<stdin>", "a.yaml"}));
  EXPECT_EQ(*(*files)[3].text, "s: 1\n");
  EXPECT_EQ(*(*files)[4].text, "a: 1\n");
  EXPECT_FALSE((*files)[4].too_large);
  EXPECT_EQ(fs.calls(), (std::vector<std::string>{"kind jobs", "list jobs", "read jobs/b.json 100",
                                                  "read jobs/sub/c.yml 100", "read jobs/z.yaml 100",
                                                  "kind a.yaml", "read a.yaml 100"}));
}

TEST(CollectInputs, MarksFilesAndStdinLargerThanMaxBytesAndKeepsOnlyThePrefix) {
  MemoryFileReader fs;
  fs.add_file("big.yaml", "0123456789AB");
  std::istringstream in("abcdefghijkl");
  const auto files = collect_inputs({"big.yaml", "-"}, fs, in, 10);
  ASSERT_TRUE(files.has_value());
  for (const auto& f : *files) {
    SCOPED_TRACE(f.name);
    EXPECT_TRUE(f.too_large);
    EXPECT_EQ(f.text->size(), 10u);
  }
  EXPECT_EQ(fs.calls().back(), "read big.yaml 10");
}

TEST(CollectInputs, AcceptsAFileOfExactlyMaxBytes) {
  MemoryFileReader fs;
  fs.add_file("a.yaml", "0123456789");
  std::istringstream in;
  const auto files = collect_inputs({"a.yaml"}, fs, in, 10);
  ASSERT_TRUE(files.has_value());
  EXPECT_FALSE(files->at(0).too_large);
}

TEST(CollectInputs, ExplainsEachFailureWithThePath) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    ErrorCode code;
    std::string message;
  };
  const Case cases[] = {
      {"missing file", {"nope.yaml"}, ErrorCode::io, "reading 'nope.yaml': No such file or directory"},
      {"unreadable file", {"locked.yaml"}, ErrorCode::io, "reading 'locked.yaml': Permission denied"},
      {"unreadable file in a directory",
       {"dir"},
       ErrorCode::io,
       "reading 'dir/locked.json': Permission denied"},
      {"directory without manifests",
       {"empty"},
       ErrorCode::usage,
       "no .yaml, .yml or .json files under 'empty'"},
      {"stdin twice", {"-", "-"}, ErrorCode::usage, "'-' (stdin) given more than once"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    MemoryFileReader fs;
    fs.fail_read("locked.yaml", "Permission denied");
    fs.fail_read("dir/locked.json", "Permission denied");
    fs.add_directory("empty");
    std::istringstream in("a: 1\n");
    const auto files = collect_inputs(c.args, fs, in, 100);
    ASSERT_FALSE(files.has_value());
    EXPECT_EQ(files.error().code, c.code);
    EXPECT_EQ(files.error().message, c.message);
  }
}

/// A fresh directory per test, removed on success and kept (with a note) on failure.
class DiskInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = std::filesystem::path(::testing::TempDir()) / ("kpt-reader-" + std::string(info->name()));
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override {
    if (HasFailure()) {
      std::cerr << "note: test files kept in " << m_dir << "\n";
    } else {
      std::filesystem::remove_all(m_dir);
    }
  }
  std::string write(const std::string& rel, const std::string& content) {
    const auto path = m_dir / rel;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
  }
  std::filesystem::path m_dir;
};

TEST_F(DiskInputs, WalksDirectoriesRecursivelySortedAndReadsBounded) {
  write("b/2.yaml", "b: 2\n");
  write("b/1.json", "{}");
  write("a.yml", "a: 1\n");
  write("b/skip.txt", "x\n");
  write("big.yaml", std::string(5000, 'x'));
  auto fs = make_disk_reader();
  const auto dir = m_dir.string();
  EXPECT_EQ(fs->kind(dir), FileReader::Kind::directory);
  EXPECT_EQ(fs->kind(dir + "/a.yml"), FileReader::Kind::file);
  EXPECT_EQ(fs->kind(dir + "/nope"), FileReader::Kind::missing);
  const auto listed = fs->manifests_under(dir);
  ASSERT_TRUE(listed.has_value()) << listed.error().message;
  EXPECT_EQ(*listed, (std::vector<std::string>{dir + "/a.yml", dir + "/b/1.json", dir + "/b/2.yaml",
                                               dir + "/big.yaml"}));
  const auto big = fs->read(dir + "/big.yaml", 100);
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->size(), 101u);
  std::istringstream in;
  const auto files = collect_inputs({dir}, *fs, in, 100);
  ASSERT_TRUE(files.has_value());
  ASSERT_EQ(files->size(), 4u);
  EXPECT_EQ(*files->at(0).text, "a: 1\n");
  EXPECT_TRUE(files->at(3).too_large);
}

TEST_F(DiskInputs, ReportsAMissingFileWithItsPath) {
  auto fs = make_disk_reader();
  std::istringstream in;
  const auto path = (m_dir / "missing.yaml").string();
  const auto files = collect_inputs({path}, *fs, in, 100);
  ASSERT_FALSE(files.has_value());
  EXPECT_EQ(files.error().message, "reading '" + path + "': No such file or directory");
}

}  // namespace
}  // namespace kpt::yaml
