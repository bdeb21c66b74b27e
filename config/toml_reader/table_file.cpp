#include "config/toml_reader/table_file.hpp"

namespace warpforge::toml_reader {

expected<void, placed_errors> read_document(std::string_view text, const std::string& file,
                                            std::span<const std::string_view> root_keys,
                                            const std::function<void(const toml::table& root, reader& fields)>& fill) {
  auto document = parse(text, file);
  if (!document)
    return unexpected(placed_errors{std::move(document).error()});
  placed_errors errors;
  reader fields{file, errors};
  fields.check_keys(*document, "", root_keys);
  fill(*document, fields);
  if (errors.empty())
    return {};
  sort_by_place(errors);
  return unexpected(std::move(errors));
}

} // namespace warpforge::toml_reader
