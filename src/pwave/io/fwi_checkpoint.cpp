#include "pwave/io/fwi_checkpoint.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "pwave/core/error.hpp"
#include "pwave/io/atomic_file.hpp"

namespace pwave::io {
namespace {

constexpr char magic[8] = {'P', 'W', 'A', 'V', 'E', 'C', 'K', '1'};

void put_i64(std::ostream& o, std::int64_t v) {
  o.write(reinterpret_cast<const char*>(&v), 8);
}
void put_doubles(std::ostream& o, const std::vector<double>& v) {
  put_i64(o, std::int64_t(v.size()));
  o.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(double)));
}

struct Reader {
  std::ifstream in;
  std::string path;
  std::int64_t i64() {
    std::int64_t v = 0;
    if (!in.read(reinterpret_cast<char*>(&v), 8)) fail();
    return v;
  }
  std::vector<double> doubles() {
    const std::int64_t n = i64();
    if (n < 0 || n > (std::int64_t(1) << 40)) fail();
    std::vector<double> v(static_cast<std::size_t>(n));
    if (!in.read(reinterpret_cast<char*>(v.data()), std::streamsize(n * sizeof(double)))) fail();
    return v;
  }
  [[noreturn]] void fail() { throw InputError("--resume", path, "checkpoint file is truncated"); }
};

}  // namespace

void write_checkpoint(const std::string& path, const FwiState& st) {
  AtomicFile file(path);
  {
    std::ofstream out(file.temp_path(), std::ios::binary | std::ios::trunc);
    out.write(magic, 8);
    put_i64(out, std::int64_t(st.fingerprint.size()));
    out.write(st.fingerprint.data(), std::streamsize(st.fingerprint.size()));
    put_i64(out, st.iteration);
    put_doubles(out, st.model);
    put_doubles(out, st.optimizer);
    std::vector<double> rows;
    for (const HistoryRow& r : st.history) {
      rows.insert(rows.end(), {double(r.iteration), double(r.stage), r.misfit, r.gradient_norm,
                               r.step, r.seconds});
    }
    put_doubles(out, rows);
    // Added after the first version: a file that ends before it has no estimated wavelet.
    put_doubles(out, st.wavelet);
    // Added later still: each row's dead-trace count (a file that ends before: unknown, -1).
    std::vector<double> dead;
    for (const HistoryRow& r : st.history) dead.push_back(double(r.dead_traces));
    put_doubles(out, dead);
    // Added later still: the per-shot wavelets, their count then their samples one shot after
    // the other (a file that ends before has none).
    put_i64(out, std::int64_t(st.shot_wavelets.size()));
    std::vector<double> table;
    for (const std::vector<double>& w : st.shot_wavelets)
      table.insert(table.end(), w.begin(), w.end());
    put_doubles(out, table);
    out.flush();
    if (!out) throw RuntimeError("could not write the checkpoint " + file.temp_path());
  }
  file.commit();
}

FwiState read_checkpoint(const std::string& path) {
  Reader r{std::ifstream(path, std::ios::binary), path};
  if (!r.in) throw InputError("--resume", path, "cannot open the checkpoint");
  char m[8];
  if (!r.in.read(m, 8) || std::string(m, 8) != std::string(magic, 8)) {
    throw InputError("--resume", path, "not a pwave checkpoint");
  }
  FwiState st;
  const std::int64_t n = r.i64();
  if (n < 0 || n > 65536) r.fail();
  st.fingerprint.resize(std::size_t(n));
  if (!r.in.read(&st.fingerprint[0], std::streamsize(n))) r.fail();
  st.iteration = r.i64();
  st.model = r.doubles();
  st.optimizer = r.doubles();
  const auto rows = r.doubles();
  if (rows.size() % 6) r.fail();
  for (std::size_t i = 0; i < rows.size(); i += 6) {
    st.history.push_back(HistoryRow{long(rows[i]), int(rows[i + 1]), rows[i + 2], rows[i + 3],
                                    rows[i + 4], rows[i + 5]});
  }
  if (r.in.peek() != std::char_traits<char>::eof()) st.wavelet = r.doubles();
  if (r.in.peek() != std::char_traits<char>::eof()) {
    const std::vector<double> dead = r.doubles();
    if (dead.size() != st.history.size()) r.fail();
    for (std::size_t i = 0; i < dead.size(); ++i) st.history[i].dead_traces = long(dead[i]);
  }
  if (r.in.peek() != std::char_traits<char>::eof()) {
    const std::int64_t shots = r.i64();
    const std::vector<double> table = r.doubles();
    if (shots < 0 || (shots == 0 && !table.empty()) ||
        (shots > 0 && table.size() % std::size_t(shots) != 0)) {
      r.fail();
    }
    const std::size_t nt = shots > 0 ? table.size() / std::size_t(shots) : 0;
    for (std::int64_t s = 0; s < shots; ++s) {
      const auto from = table.begin() + std::ptrdiff_t(std::size_t(s) * nt);
      st.shot_wavelets.emplace_back(from, from + std::ptrdiff_t(nt));
    }
  }
  return st;
}

std::string history_csv(const std::vector<HistoryRow>& rows) {
  std::ostringstream o;
  o << "iteration,stage,misfit,gradient_norm,step,seconds,dead_traces\n";
  char line[256];
  for (const HistoryRow& r : rows) {
    std::snprintf(line, sizeof line, "%ld,%d,%.10g,%.10g,%.10g,%.4f,", r.iteration, r.stage,
                  r.misfit, r.gradient_norm, r.step, r.seconds);
    o << line;
    if (r.dead_traces >= 0) o << r.dead_traces;  // empty: unknown (an older checkpoint's row)
    o << '\n';
  }
  return o.str();
}

}  // namespace pwave::io
