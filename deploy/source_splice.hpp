#pragma once
// What a deploy writes into the target file: the champion's text (its region only, when its
// source has the region's markers), its tunable values first as `#define NAME value` lines (each
// inside `#ifndef NAME`, so a -DNAME given to a compiler still wins), put
// between the target's own region markers (kept), or in place of the whole file. The markers are
// read strictly (region_markers.hpp): only that region's lines change, whatever the code in it
// (an extern "C" kernel, a C++ function, a template with its helpers).

#include "deploy/champion.hpp"
#include "foundation/expected/expected.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace warpforge::deploy {

/// The text of `region` between its marker lines (exclusive), or nullopt when `text` lacks them
/// (or its markers are wrong: a champion's source is then taken whole).
std::optional<std::string> region_content(std::string_view text, std::string_view region);

/// The champion's part for the target: `#ifndef NAME / #define NAME v / #endif` per define, then its source (or that
/// source's region content, when region is given and its source has the markers).
std::string champion_text(const champion& chosen, std::string_view region);

/// `original` with `inner` in place of the region's content (markers kept); `inner` alone when
/// region is empty. An error names a region the original lacks, or a wrong marker, with `origin`
/// (the file) and its line.
expected<std::string, std::string> splice(std::string_view original, std::string_view region,
                                          std::string_view inner, std::string_view origin = "the target file");

} // namespace warpforge::deploy
