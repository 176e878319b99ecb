// SPDX-License-Identifier: Apache-2.0
// transit-cpp: the base64 kernels one beside another (Codec/Base64Encode/KERNEL/SIZE and
// Codec/Base64Decode/KERNEL/SIZE), every kernel this CPU has, so that one run (with random
// interleaving) times them on the same machine state. Sizes: the bytes corpus's blobs (1000
// of 16 to 2048 bytes, drawn as bench/corpora.cpp draws them: `mix`), a few single sizes from
// it, and 1 MB. Time is what these measure: callgrind cannot run the VBMI kernel.
//
// And the UTF-8 checks (Codec/Utf8/CHECK/TEXT/SIZE): the scalar loop, the AVX2 kernel and
// simdjson's validator on 1,000 strings of SIZE bytes, TEXT `mixed` (three-byte characters
// with ASCII between, as a tweet's Japanese) or `ascii`: what is_valid_utf8's thresholds
// (codec.cpp) were chosen by. A row's time is for the 1,000 checks.
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#ifdef TRANSIT_HAVE_SIMDJSON
#include <simdjson.h>
#endif

#include "codec/codec.h"
#include "codec/cpu.h"
#include "codec/utf8_simd.h"
#include "corpora.h"

namespace transit::bench {
namespace {

using detail::Base64Kernel;

// Blobs of bytes and their base64, side by side in one buffer each.
struct Blobs {
  std::string bytes;
  std::string text;
  std::vector<std::size_t> sizes;  // of each blob's bytes
};

Blobs make_blobs(const std::vector<std::size_t>& sizes) {
  Blobs b;
  b.sizes = sizes;
  std::mt19937 rng(19);
  for (const std::size_t n : sizes) {
    std::string blob(n, '\0');
    for (char& c : blob) c = static_cast<char>(rng() & 0xFF);
    b.bytes += blob;
    detail::base64_encode(std::as_bytes(std::span(blob.data(), blob.size())), b.text);
  }
  return b;
}

// Every blob of `b` encoded by `kernel` into `out`, one after another.
char* encode_all(Base64Kernel kernel, const Blobs& b, std::string& out) {
  const char* in = b.bytes.data();
  char* p = out.data();
  for (const std::size_t n : b.sizes) {
    p = detail::base64_encode_to(kernel, std::as_bytes(std::span(in, n)), p);
    in += n;
  }
  return p;
}

// Every blob's text decoded by `kernel` into `out`; false if any is refused.
bool decode_all(Base64Kernel kernel, const Blobs& b, std::string& out) {
  const char* in = b.text.data();
  char* p = out.data();
  bool ok = true;
  for (const std::size_t n : b.sizes) {
    const std::size_t chars = detail::base64_length(n);
    ok &= detail::base64_decode_plain(kernel, std::string_view(in, chars), p);
    in += chars;
    p += n;
  }
  return ok;
}

// Each checks its kernel's output once before it times it.
void encode(benchmark::State& state, Base64Kernel kernel, const Blobs& b) {
  std::string out(b.text.size(), '\0');
  encode_all(kernel, b, out);
  if (out != b.text) return state.SkipWithError("encode differs");
  for (auto _ : state) {
    benchmark::DoNotOptimize(encode_all(kernel, b, out));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(b.bytes.size()));
}

void decode(benchmark::State& state, Base64Kernel kernel, const Blobs& b) {
  std::string out(b.bytes.size(), '\0');
  if (!decode_all(kernel, b, out) || out != b.bytes) return state.SkipWithError("decode differs");
  for (auto _ : state) {
    benchmark::DoNotOptimize(decode_all(kernel, b, out));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(b.bytes.size()));
}

// 1,000 valid strings of `size` bytes: ASCII, or three-byte characters with one ASCII byte
// between some (a valid prefix of `size` bytes or a little less).
std::vector<std::string> utf8_texts(std::size_t size, bool ascii) {
  std::vector<std::string> texts;
  for (std::size_t k = 0; k < 1000; ++k) {
    std::string t;
    while (t.size() < size) {
      if (ascii)
        t += "abc de";
      else
        t += (k + t.size()) % 5 == 0 ? "x" : "\xe8\xa9\xb9";
    }
    t.resize(size);
    while (!detail::is_valid_utf8_scalar(t)) t.pop_back();
    texts.push_back(std::move(t));
  }
  return texts;
}

template <class Check>
void check_utf8(benchmark::State& state, const std::vector<std::string>& texts, Check check) {
  for (const std::string& t : texts)
    if (!check(t)) return state.SkipWithError("a valid text refused");
  std::size_t bytes = 0;
  for (const std::string& t : texts) bytes += t.size();
  for (auto _ : state) {
    bool all = true;
    for (const std::string& t : texts) all &= check(t);
    benchmark::DoNotOptimize(all);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
}

void register_utf8_benchmarks() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> sets = [] {
    std::vector<std::pair<std::string, std::vector<std::string>>> s;
    for (const bool ascii : {false, true})
      for (const std::size_t n : {32, 64, 280})
        s.emplace_back((ascii ? "ascii/" : "mixed/") + std::to_string(n), utf8_texts(n, ascii));
    return s;
  }();
  for (const auto& [name, texts] : sets) {
    const auto add = [&name = name, &texts = texts](const std::string& check, auto fn) {
      benchmark::RegisterBenchmark(("Codec/Utf8/" + check + "/" + name).c_str(),
                                   [&texts, fn](benchmark::State& st) { check_utf8(st, texts, fn); })
          ->Unit(benchmark::kMicrosecond);
    };
    add("scalar", [](std::string_view s) { return detail::is_valid_utf8_scalar(s); });
#if defined(__x86_64__)
    if (detail::cpu_has_avx2())
      add("avx2", [](std::string_view s) {
        return detail::utf8_valid_avx2(reinterpret_cast<const unsigned char*>(s.data()), s.size());
      });
#endif
#ifdef TRANSIT_HAVE_SIMDJSON
    add("simdjson", [](std::string_view s) { return simdjson::validate_utf8(s.data(), s.size()); });
#endif
  }
}

}  // namespace

void register_codec_benchmarks() {
  // The bytes corpus's blob sizes: 1000 uniform in 16..2048 (not its own generator's draws,
  // which only corpora.cpp makes; the same distribution).
  std::mt19937 rng(4);
  std::vector<std::size_t> mix;
  for (int i = 0; i < 1000; ++i) mix.push_back(16 + rng() % (2048 - 16 + 1));
  static const std::vector<std::pair<std::string, Blobs>> sets = [&] {
    std::vector<std::pair<std::string, Blobs>> s;
    s.emplace_back("mix", make_blobs(mix));
    for (const std::size_t n : {16, 100, 1000, 2048}) {
      s.emplace_back(std::to_string(n), make_blobs(std::vector<std::size_t>(1'000'000 / n / 4, n)));
    }
    s.emplace_back("1MB", make_blobs({std::size_t{1} << 20}));
    return s;
  }();
  for (const Base64Kernel kernel : detail::kBase64Kernels) {
    if (!detail::base64_kernel_available(kernel)) continue;
    const std::string name(detail::base64_kernel_name(kernel));
    for (const auto& [size, blobs] : sets) {
      benchmark::RegisterBenchmark(("Codec/Base64Encode/" + name + "/" + size).c_str(),
                                   [kernel, &b = blobs](benchmark::State& st) { encode(st, kernel, b); })
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("Codec/Base64Decode/" + name + "/" + size).c_str(),
                                   [kernel, &b = blobs](benchmark::State& st) { decode(st, kernel, b); })
          ->Unit(benchmark::kMicrosecond);
    }
  }
  register_utf8_benchmarks();
}

}  // namespace transit::bench
