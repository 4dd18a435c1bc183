// AtomicFile: the final name only ever holds a complete file.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "pwave/core/error.hpp"
#include "pwave/io/atomic_file.hpp"

namespace fs = std::filesystem;

namespace {

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "pwave_atomic_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
  }
  static void spit(const std::string& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
  }
  std::size_t entries() const {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) {
      (void)e;
      ++n;
    }
    return n;
  }
  fs::path dir_;
};

TEST_F(AtomicFileTest, TemporaryNameSitsNextToTheFinalName) {
  const std::string final_path = path("out.npy");
  pwave::io::AtomicFile f(final_path);
  EXPECT_EQ(f.final_path(), final_path);
  EXPECT_EQ(f.temp_path(), final_path + ".partial-" + std::to_string(::getpid()));
  EXPECT_EQ(fs::path(f.temp_path()).parent_path(), fs::path(final_path).parent_path());
  EXPECT_TRUE(fs::exists(f.temp_path()));
  EXPECT_FALSE(fs::exists(final_path));
}

TEST_F(AtomicFileTest, CommitRenamesOntoTheFinalName) {
  const std::string final_path = path("a.txt");
  std::string temp;
  {
    pwave::io::AtomicFile f(final_path);
    temp = f.temp_path();
    spit(temp, "hello");
    EXPECT_FALSE(fs::exists(final_path));
    f.commit();
    EXPECT_TRUE(fs::exists(final_path));
    EXPECT_FALSE(fs::exists(temp));
    f.commit();  // a second commit changes nothing
  }
  // The destructor must not remove the committed file.
  EXPECT_EQ(slurp(final_path), "hello");
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFileTest, DestructionWithoutCommitLeavesTheOldFileAlone) {
  const std::string final_path = path("model.bin");
  spit(final_path, "old contents");
  std::string temp;
  {
    pwave::io::AtomicFile f(final_path);
    temp = f.temp_path();
    spit(temp, "half-written new contents");
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_EQ(slurp(final_path), "old contents");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFileTest, DestructionWithoutCommitCreatesNothing) {
  { pwave::io::AtomicFile f(path("never.bin")); }
  EXPECT_EQ(entries(), 0u);
}

TEST_F(AtomicFileTest, CommitReplacesAnExistingFile) {
  const std::string final_path = path("replace.txt");
  spit(final_path, "old");
  pwave::io::AtomicFile f(final_path);
  spit(f.temp_path(), "new and longer");
  f.commit();
  EXPECT_EQ(slurp(final_path), "new and longer");
}

TEST_F(AtomicFileTest, MissingDirectoryIsARuntimeErrorNamingThePath) {
  const std::string final_path = path("no/such/dir/out.npy");
  try {
    pwave::io::AtomicFile f(final_path);
    FAIL() << "expected RuntimeError";
  } catch (const pwave::RuntimeError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(final_path), std::string::npos) << what;
    EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
  }
}

TEST_F(AtomicFileTest, CommitFailureIsARuntimeErrorNamingThePaths) {
  const std::string final_path = path("gone.txt");
  pwave::io::AtomicFile f(final_path);
  fs::remove(f.temp_path());
  try {
    f.commit();
    FAIL() << "expected RuntimeError";
  } catch (const pwave::RuntimeError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(f.temp_path()), std::string::npos) << what;
    EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(final_path));
}

TEST_F(AtomicFileTest, WriteTextFileRoundTrips) {
  const std::string final_path = path("deck.yaml");
  std::string text = "grid:\n  nz: 10\n";
  text += std::string("\0binary\xff", 8);  // arbitrary bytes survive
  pwave::io::write_text_file(final_path, text);
  EXPECT_EQ(slurp(final_path), text);
  EXPECT_EQ(entries(), 1u);  // no leftover temporary
  pwave::io::write_text_file(final_path, "short");
  EXPECT_EQ(slurp(final_path), "short");
}

TEST_F(AtomicFileTest, WriteTextFileIntoMissingDirectoryThrows) {
  EXPECT_THROW(pwave::io::write_text_file(path("missing/x.txt"), "x"), pwave::RuntimeError);
}

}  // namespace
