#include "gpu/compile/cubin_resources.hpp"

#include <bit>
#include <cstring>
#include <optional>
#include <unordered_map>

namespace warpforge::gpu {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the CUBIN reader copies little-endian fields directly");

// ELF64 layout (System V ABI); CUBINs are little-endian ELFCLASS64.
constexpr std::size_t elf_header_size = 64;
constexpr std::size_t elf_ident_class = 4;
constexpr std::size_t elf_ident_data = 5;
constexpr std::uint8_t elf_class_64 = 2;
constexpr std::uint8_t elf_data_little = 1;
constexpr std::size_t elf_phoff_offset = 0x20;
constexpr std::size_t elf_shoff_offset = 0x28;
constexpr std::size_t elf_phentsize_offset = 0x36;
constexpr std::size_t elf_phnum_offset = 0x38;
constexpr std::size_t program_header_size = 56;
constexpr std::size_t program_header_offset_field = 0x08; // p_offset
constexpr std::size_t program_header_filesz_field = 0x20; // p_filesz
constexpr std::size_t elf_shentsize_offset = 0x3a;
constexpr std::size_t elf_shnum_offset = 0x3c;
constexpr std::size_t elf_shstrndx_offset = 0x3e;
constexpr std::size_t section_header_size = 64;
constexpr std::size_t symbol_size = 24;
constexpr std::uint32_t section_type_symtab = 2;
constexpr std::uint32_t section_type_nobits = 8;
constexpr std::uint8_t symbol_type_func = 2;
constexpr std::uint8_t symbol_type_mask = 0xf;
// NVIDIA's st_other flag for kernel entry points.
constexpr std::uint8_t sto_cuda_entry = 0x10;

// .nv.info entry formats and the attributes warpforge reads (values as in NVIDIA's cubins).
enum class eifmt : std::uint8_t { nval = 1, bval = 2, hval = 3, sval = 4 };
constexpr std::uint8_t eiattr_max_threads = 0x05;     // SVAL u32 x, y, z
constexpr std::uint8_t eiattr_reqntid = 0x10;         // SVAL u32 x, y, z
constexpr std::uint8_t eiattr_frame_size = 0x11;      // SVAL u32 symbol, u32 bytes
constexpr std::uint8_t eiattr_cbank_param_size = 0x19; // HVAL bytes
constexpr std::uint8_t eiattr_regcount = 0x2f;        // SVAL u32 symbol, u32 registers
constexpr std::uint8_t eiattr_num_barriers = 0x4c;    // BVAL count

constexpr std::string_view info_prefix = ".nv.info.";
constexpr std::string_view shared_prefix = ".nv.shared.";
constexpr std::string_view reserved_shared_section = ".nv.shared.reserved.0";

template <class T>
T load(std::span<const std::uint8_t> bytes, std::size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

unexpected<cubin_error> fail(std::string detail) {
  return unexpected(cubin_error{std::move(detail)});
}

struct section {
  std::uint32_t name_offset = 0;
  std::uint32_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;
  std::string name;
};

struct symbol {
  std::string name;
  std::uint8_t info = 0;
  std::uint8_t other = 0;
  std::uint16_t section_index = 0;
};

struct info_entry {
  std::uint8_t attribute = 0;
  std::span<const std::uint8_t> value; // the payload (SVAL) or the 1-2 value bytes
};

// A validated view of the file: every section with file data lies inside it.
class elf_file {
public:
  static expected<elf_file, cubin_error> parse(std::span<const std::uint8_t> bytes) {
    elf_file elf;
    elf.bytes_ = bytes;
    if (bytes.size() < elf_header_size || bytes[0] != 0x7f || bytes[1] != 'E' || bytes[2] != 'L' ||
        bytes[3] != 'F')
      return fail("not an ELF file (" + std::to_string(bytes.size()) + " bytes)");
    if (bytes[elf_ident_class] != elf_class_64 || bytes[elf_ident_data] != elf_data_little)
      return fail("not a little-endian ELF64 file");
    const auto shoff = load<std::uint64_t>(bytes, elf_shoff_offset);
    const auto shentsize = load<std::uint16_t>(bytes, elf_shentsize_offset);
    const auto shnum = load<std::uint16_t>(bytes, elf_shnum_offset);
    const auto shstrndx = load<std::uint16_t>(bytes, elf_shstrndx_offset);
    if (shentsize != section_header_size)
      return fail("unexpected section header size " + std::to_string(shentsize));
    if (shoff > bytes.size() || shnum > (bytes.size() - shoff) / section_header_size)
      return fail("section header table extends past the end of the file");
    // The program headers (and the segments they describe) come last in a CUBIN: checking
    // them catches a file cut short after its section headers.
    const auto phoff = load<std::uint64_t>(bytes, elf_phoff_offset);
    const auto phentsize = load<std::uint16_t>(bytes, elf_phentsize_offset);
    const auto phnum = load<std::uint16_t>(bytes, elf_phnum_offset);
    if (phnum > 0) {
      if (phentsize != program_header_size)
        return fail("unexpected program header size " + std::to_string(phentsize));
      if (phoff > bytes.size() || phnum > (bytes.size() - phoff) / program_header_size)
        return fail("program header table extends past the end of the file");
      for (std::size_t i = 0; i < phnum; ++i) {
        const std::size_t at = phoff + i * program_header_size;
        const auto offset = load<std::uint64_t>(bytes, at + program_header_offset_field);
        const auto size = load<std::uint64_t>(bytes, at + program_header_filesz_field);
        if (offset > bytes.size() || size > bytes.size() - offset)
          return fail("segment " + std::to_string(i) + " extends past the end of the file");
      }
    }
    if (shstrndx >= shnum)
      return fail("section name table index " + std::to_string(shstrndx) + " out of range");
    for (std::size_t i = 0; i < shnum; ++i) {
      const std::size_t at = shoff + i * section_header_size;
      section s;
      s.name_offset = load<std::uint32_t>(bytes, at);
      s.type = load<std::uint32_t>(bytes, at + 4);
      s.offset = load<std::uint64_t>(bytes, at + 0x18);
      s.size = load<std::uint64_t>(bytes, at + 0x20);
      s.link = load<std::uint32_t>(bytes, at + 0x28);
      if (s.type != section_type_nobits &&
          (s.offset > bytes.size() || s.size > bytes.size() - s.offset))
        return fail("section " + std::to_string(i) + " extends past the end of the file");
      elf.sections_.push_back(s);
    }
    for (auto& s : elf.sections_) {
      auto name = elf.string_at(shstrndx, s.name_offset);
      if (!name)
        return unexpected(std::move(name).error());
      s.name = std::move(*name);
    }
    return elf;
  }

  const std::vector<section>& sections() const { return sections_; }

  std::span<const std::uint8_t> data(const section& s) const {
    if (s.type == section_type_nobits)
      return {};
    return bytes_.subspan(s.offset, s.size);
  }

  const section* find(std::string_view name) const {
    for (const auto& s : sections_)
      if (s.name == name)
        return &s;
    return nullptr;
  }

  // The NUL-terminated string at `offset` of string table section `index`.
  expected<std::string, cubin_error> string_at(std::size_t index, std::uint64_t offset) const {
    if (index >= sections_.size())
      return fail("string table index " + std::to_string(index) + " out of range");
    auto table = data(sections_[index]);
    if (offset >= table.size())
      return fail("string offset " + std::to_string(offset) + " outside its table");
    const auto* begin = table.data() + offset;
    const auto* end = static_cast<const std::uint8_t*>(std::memchr(begin, 0, table.size() - offset));
    if (!end)
      return fail("unterminated string in section " + std::to_string(index));
    return std::string(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(end - begin));
  }

  // Every symbol of the (single) .symtab, index 0 included so indices match the file.
  expected<std::vector<symbol>, cubin_error> symbols() const {
    std::vector<symbol> result;
    for (const auto& s : sections_) {
      if (s.type != section_type_symtab)
        continue;
      auto table = data(s);
      for (std::size_t at = 0; at + symbol_size <= table.size(); at += symbol_size) {
        symbol sym;
        sym.info = table[at + 4];
        sym.other = table[at + 5];
        sym.section_index = load<std::uint16_t>(table, at + 6);
        auto name = string_at(s.link, load<std::uint32_t>(table, at));
        if (!name)
          return unexpected(std::move(name).error());
        sym.name = std::move(*name);
        result.push_back(std::move(sym));
      }
      return result;
    }
    return fail("no symbol table");
  }

private:
  std::span<const std::uint8_t> bytes_;
  std::vector<section> sections_;
};

expected<std::vector<info_entry>, cubin_error> parse_info(std::span<const std::uint8_t> data,
                                                          std::string_view section_name) {
  std::vector<info_entry> entries;
  std::size_t at = 0;
  constexpr std::size_t header = 2; // format, attribute
  while (at < data.size()) {
    if (data.size() - at < header + 2)
      return fail(std::string(section_name) + ": truncated entry at offset " + std::to_string(at));
    const auto format = static_cast<eifmt>(data[at]);
    info_entry entry;
    entry.attribute = data[at + 1];
    at += header;
    switch (format) {
    case eifmt::nval:
    case eifmt::bval:
    case eifmt::hval:
      entry.value = data.subspan(at, 2);
      at += 2;
      break;
    case eifmt::sval: {
      const auto size = load<std::uint16_t>(data, at);
      at += 2;
      if (size > data.size() - at)
        return fail(std::string(section_name) + ": attribute " +
                    std::to_string(entry.attribute) + " runs past the section");
      entry.value = data.subspan(at, size);
      at += size;
      break;
    }
    default:
      return fail(std::string(section_name) + ": unknown entry format " +
                  std::to_string(data[at - header]) + " at offset " + std::to_string(at - header));
    }
    entries.push_back(entry);
  }
  return entries;
}

bool is_kernel(const symbol& sym) {
  return (sym.info & symbol_type_mask) == symbol_type_func && (sym.other & sto_cuda_entry) != 0;
}

struct module_view {
  elf_file elf;
  std::vector<symbol> symbols;
};

expected<module_view, cubin_error> open_module(std::span<const std::uint8_t> cubin) {
  auto elf = elf_file::parse(cubin);
  if (!elf)
    return unexpected(std::move(elf).error());
  auto symbols = elf->symbols();
  if (!symbols)
    return unexpected(std::move(symbols).error());
  return module_view{std::move(*elf), std::move(*symbols)};
}

} // namespace

expected<std::vector<std::string>, cubin_error> kernel_entries(std::span<const std::uint8_t> cubin) {
  auto module = open_module(cubin);
  if (!module)
    return unexpected(std::move(module).error());
  std::vector<std::string> names;
  for (const auto& sym : module->symbols)
    if (is_kernel(sym))
      names.push_back(sym.name);
  return names;
}

expected<std::vector<kernel_resources>, cubin_error>
read_kernel_resources(std::span<const std::uint8_t> cubin) {
  auto module = open_module(cubin);
  if (!module)
    return unexpected(std::move(module).error());
  const auto& elf = module->elf;

  std::vector<kernel_resources> kernels;
  std::unordered_map<std::uint32_t, std::size_t> by_symbol; // symbol index → kernels index
  for (std::size_t i = 0; i < module->symbols.size(); ++i) {
    if (!is_kernel(module->symbols[i]))
      continue;
    by_symbol[static_cast<std::uint32_t>(i)] = kernels.size();
    kernels.push_back(kernel_resources{.name = module->symbols[i].name});
  }

  // Module-wide .nv.info: per-symbol register counts and frame sizes.
  constexpr std::size_t symbol_value_size = 8; // u32 symbol index, u32 value
  if (const auto* info = elf.find(".nv.info")) {
    auto entries = parse_info(elf.data(*info), info->name);
    if (!entries)
      return unexpected(std::move(entries).error());
    for (const auto& entry : *entries) {
      if (entry.attribute != eiattr_regcount && entry.attribute != eiattr_frame_size)
        continue;
      if (entry.value.size() != symbol_value_size)
        return fail(".nv.info: attribute " + std::to_string(entry.attribute) +
                    " has size " + std::to_string(entry.value.size()));
      const auto it = by_symbol.find(load<std::uint32_t>(entry.value, 0));
      if (it == by_symbol.end())
        continue; // a device function's entry
      const auto value = load<std::uint32_t>(entry.value, 4);
      if (entry.attribute == eiattr_regcount)
        kernels[it->second].registers = value;
      else
        kernels[it->second].local_bytes = value;
    }
  }

  const bool has_reserved_shared = elf.find(reserved_shared_section) != nullptr;
  constexpr std::size_t dims_size = 12; // u32 x, y, z
  for (auto& kernel : kernels) {
    const std::string info_name = std::string(info_prefix) + kernel.name;
    if (const auto* info = elf.find(info_name)) {
      auto entries = parse_info(elf.data(*info), info->name);
      if (!entries)
        return unexpected(std::move(entries).error());
      for (const auto& entry : *entries) {
        switch (entry.attribute) {
        case eiattr_max_threads:
        case eiattr_reqntid:
          if (entry.value.size() == dims_size)
            kernel.max_threads_per_block = load<std::uint32_t>(entry.value, 0) *
                                           load<std::uint32_t>(entry.value, 4) *
                                           load<std::uint32_t>(entry.value, 8);
          break;
        case eiattr_cbank_param_size:
          if (entry.value.size() >= sizeof(std::uint16_t))
            kernel.param_bytes = load<std::uint16_t>(entry.value, 0);
          break;
        case eiattr_num_barriers:
          if (!entry.value.empty())
            kernel.barriers = entry.value[0];
          break;
        default:
          break;
        }
      }
    }
    if (const auto* shared = elf.find(std::string(shared_prefix) + kernel.name)) {
      kernel.static_shared_bytes = shared->size;
      if (has_reserved_shared && shared->size >= reserved_shared_bytes)
        kernel.static_shared_bytes -= reserved_shared_bytes;
    }
  }
  return kernels;
}

expected<kernel_resources, cubin_error> read_kernel_resources(std::span<const std::uint8_t> cubin,
                                                              std::string_view kernel) {
  auto all = read_kernel_resources(cubin);
  if (!all)
    return unexpected(std::move(all).error());
  std::string names;
  for (auto& k : *all) {
    if (k.name == kernel)
      return std::move(k);
    names += (names.empty() ? "" : ", ") + k.name;
  }
  return fail("kernel '" + std::string(kernel) + "' not in the module (kernels: " +
              (names.empty() ? "none" : names) + ")");
}

} // namespace warpforge::gpu
