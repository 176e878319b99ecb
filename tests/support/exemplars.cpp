// SPDX-License-Identifier: Apache-2.0
#include "support/exemplars.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace transit::test {

std::filesystem::path exemplar_dir() {
  if (const char* env = std::getenv("TRANSIT_EXEMPLARS"); env != nullptr && *env != '\0') return env;
  return TRANSIT_DEFAULT_EXEMPLARS;
}

bool exemplars_present() { return std::filesystem::is_directory(exemplar_dir()); }

std::vector<std::string> exemplar_cases(std::string_view suffix, std::string_view except) {
  if (!exemplars_present()) return {std::string(kMissingCase)};
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(exemplar_dir())) {
    const std::string file = entry.path().filename().string();
    if (file.ends_with(suffix) && (except.empty() || !file.ends_with(except)))
      names.push_back(file.substr(0, file.size() - suffix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace transit::test
