// SPDX-License-Identifier: Apache-2.0
// transit-cpp: the base64 kernels one beside another (Codec/Base64Encode/KERNEL/SIZE and
// Codec/Base64Decode/KERNEL/SIZE), every kernel this CPU has, so that one run (with random
// interleaving) times them on the same machine state. Sizes: the bytes corpus's blobs (1000
// of 16 to 2048 bytes, drawn as bench/corpora.cpp draws them: `mix`), a few single sizes from
// it, and 1 MB. Time is what these measure: callgrind cannot run the VBMI kernel.
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "codec/codec.h"
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
}

}  // namespace transit::bench
