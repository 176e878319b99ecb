// SPDX-License-Identifier: Apache-2.0
// Where the transit-format exemplars are, for the suites that read them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace transit::test {

/// The exemplar folder: the environment variable TRANSIT_EXEMPLARS, else the build's default
/// (../shared/transit-format/examples/0.8/simple beside the repository).
std::filesystem::path exemplar_dir();
/// Whether the exemplar folder exists. Suites skip with the reason when it does not.
bool exemplars_present();
/// The case names of the files ending in `suffix` (".mp", ".json" ...), sorted, without files
/// ending in `except`. When the folder is missing: the one placeholder case kMissingCase.
std::vector<std::string> exemplar_cases(std::string_view suffix, std::string_view except = {});
/// The placeholder case that reports the missing folder as skipped, never as passed.
inline constexpr std::string_view kMissingCase = "folder_missing";
/// The whole file, bytes as they are; throws std::runtime_error when it cannot be read.
std::string slurp(const std::filesystem::path& path);

}  // namespace transit::test
