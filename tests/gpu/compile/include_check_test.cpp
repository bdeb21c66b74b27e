// The include check on the text as the preprocessor reads it (issue 22 item 2): every spelling of
// an #include that NVRTC (EDG) accepts, each bypass of the old line-based check, __has_include,
// macro targets; and through NVRTC, that a refused file's contents appear nowhere. The scanner is
// linear: 60,000 spaces and 10 MB inputs finish at once.

#include "gpu/compile/file_references.hpp"
#include "gpu/compile/include_check.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"

#include "compile_test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

using namespace warpforge::gpu;

namespace {

const std::string kernel = "extern \"C\" __global__ void scale(const float* a, float* c, int n) {\n"
                           "  if (threadIdx.x < n) c[threadIdx.x] = a[threadIdx.x];\n}\n";

std::string refusal_of(const std::string& source) {
  const auto refusal = include_refusal(source);
  return refusal ? *refusal : std::string{"(allowed)"};
}

// Each way the audit (and NVRTC 13, tried by hand) opened a file the old check did not see.
struct bypass {
  std::string name;
  std::string text; // "FILE" stands for the secret's path
};

const std::vector<bypass>& bypasses() {
  static const std::vector<bypass> all{
    {"plain", "#include \"FILE\"\n"},
    {"line splice after #", "#\\\ninclude \"FILE\"\n"},
    {"line splice with CRLF", "#\\\r\ninclude \"FILE\"\n"},
    {"line splice inside include", "#inc\\\nlude \"FILE\"\n"},
    {"line splice inside the path", "#include \"/et\\\nc/x\" // FILE\n"},
    {"comment between # and include", "#/**/include \"FILE\"\n"},
    {"comment spanning lines", "#/*\n*/include /*\n*/ \"FILE\"\n"},
    {"comment before the path", "#include/* x */\"FILE\"\n"},
    {"digraph", "%:include \"FILE\"\n"},
    {"digraph after space", "  %:  include <FILE>\n"},
    {"trigraph (C++14 and before)", "?\?=include \"FILE\"\n"},
    {"form feed and vertical tab", "\f#\vinclude \"FILE\"\n"},
    {"angle brackets", "#include <FILE>\n"},
    {"include_next", "#include_next \"FILE\"\n"},
    {"import", "#import \"FILE\"\n"},
    {"embed", "const char a[] = {\n#embed \"FILE\"\n};\n"},
    {"header unit import", "import \"FILE\";\n"},
    {"macro target", "#define F \"FILE\"\n#include F\n"},
    {"stringized macro target", "#define S(x) #x\n#include S(FILE)\n"},
    {"__has_include", "#if __has_include(\"FILE\")\n#endif\n"},
    {"__has_include_next", "#if __has_include_next(<FILE>)\n#endif\n"},
    {"__has_embed", "#if __has_embed(\"FILE\")\n#endif\n"},
    {"__has_include through a macro", "#define HI __has_include\n#if HI(\"FILE\")\n#endif\n"},
    {"__has_include pasted with ##", "#define P(a, b) a##b\n#if P(__has_, include)(\"FILE\")\n#endif\n"},
    {"after a backslash and a space (no splice in EDG)", "// note \\ \n#include \"FILE\"\n"},
    {"after a digit separator read as a literal",
     "int a = 1'b/*';\n#include \"FILE\"\n*/\n"},
    {"after a raw string (C++03 reads R as a name)", "const char* s = R\"(\n#include \"FILE\"\n)\";\n"},
  };
  return all;
}

std::string with_file(std::string text, const std::string& file) {
  for (auto at = text.find("FILE"); at != std::string::npos; at = text.find("FILE", at + file.size()))
    text.replace(at, 4, file);
  return text;
}

} // namespace

TEST(include_refusal, refuses_every_spelling_of_an_absolute_or_climbing_path) {
  for (const auto& [name, text] : bypasses())
    for (const std::string file : {"/etc/passwd", "../../secret.txt"}) {
      const auto source = with_file(text, file) + kernel;
      const auto refusal = include_refusal(source);
      EXPECT_TRUE(refusal) << name << " with " << file << ":\n" << source;
    }
}

TEST(include_refusal, allows_what_it_allowed_before_in_every_spelling) {
  for (const auto& [name, text] : bypasses()) {
    if (name.find("macro") != std::string::npos || name.find("pasted") != std::string::npos ||
        name.find("path") != std::string::npos || name.find("raw string") != std::string::npos)
      continue; // a macro is refused whatever it names; "/et\<nl>c/x" is absolute
    const auto source = with_file(text, "common/tile.cuh") + kernel;
    EXPECT_EQ(refusal_of(source), "(allowed)") << name << ":\n" << source;
  }
  EXPECT_EQ(refusal_of("#include <cuda_fp16.h>\n#include \"common/tile.cuh\"\n#include \"a/../b.h\"\n"), "(allowed)");
  EXPECT_EQ(refusal_of("#if __has_include(<cuda_fp16.h>)\n#include <cuda_fp16.h>\n#endif\n"), "(allowed)");
  EXPECT_EQ(refusal_of("__device__ bool has_builtin = __has_builtin(__builtin_expect);\n"), "(allowed)");
}

TEST(include_refusal, names_line_and_column_and_quotes_the_directive_as_read) {
  EXPECT_EQ(refusal_of("int x;\n  #/**/include \"/etc/passwd\"\n"),
            "line 2 column 3: #include \"/etc/passwd\": only relative paths inside the problem's folder, "
            "or CUDA headers, may be included");
  EXPECT_EQ(refusal_of("int x;\n#\\\ninclude \"a/../../b.h\"\n"),
            "line 2 column 1: #include \"a/../../b.h\": the path climbs out of the problem's folder with \"..\"");
  EXPECT_EQ(refusal_of("%:include SECRET_FILE\n"),
            "line 1 column 1: #include SECRET_FILE: a file must be named in quotes or angle brackets right "
            "after #include (a macro cannot be checked)");
  EXPECT_EQ(refusal_of("\n\n#if __has_include(\"/root/.ssh/id_rsa\")\n#endif\n"),
            "line 3 column 5: __has_include(\"/root/.ssh/id_rsa\"): only relative paths inside the problem's "
            "folder, or CUDA headers, may be included");
  EXPECT_NE(refusal_of("#include \"\"\n").find("names no file"), std::string::npos);
}

// A // comment cannot hide a directive from any reading, so what it names is not checked. A
// string or raw string that names a file is refused all the same: the blind pass (and C++03,
// which has no raw strings) reads it as code, and a kernel has no reason to hold a directive.
TEST(include_refusal, a_line_comment_is_not_a_directive_but_a_literal_naming_a_file_is_refused) {
  EXPECT_EQ(refusal_of("// #include \"/etc/passwd\" in a comment is not a directive\n"), "(allowed)");
  EXPECT_EQ(refusal_of("__device__ const char* s = \"#include <cuda_fp16.h>\";\n__device__ int t = 1'000'000;\n"),
            "(allowed)");
  EXPECT_NE(refusal_of("__device__ const char* s = \"#include \\\"/etc/passwd\\\"\";\n").find("line 1 column 29"),
            std::string::npos);
  EXPECT_NE(refusal_of("__device__ const char* s = R\"x(\n#include \"/etc/passwd\"\n)x\";\n").find("line 2 column 1"),
            std::string::npos);
}

TEST(include_refusal, refuses_text_that_compilers_may_recover_from_differently) {
  EXPECT_NE(refusal_of("int x; /* never closed\n#include \"a.h\"\n").find("comment that never ends"),
            std::string::npos);
  EXPECT_NE(refusal_of("const char* s = R\"x(never closed\n").find("raw string literal that never ends"),
            std::string::npos);
  EXPECT_NE(refusal_of("const char* s = R\"x(a)\\\nx\";\n").find("line splice"), std::string::npos);
  EXPECT_NE(refusal_of("const char* s = R\"a b(x)a b\";\n").find("delimiter"), std::string::npos);
}

TEST(file_references, finds_each_kind_with_its_offset_in_the_source_as_given) {
  const auto scan = scan_file_references("#\\\ninclude \"a.h\"\n%:include_next <b.h>\n#if __has_embed(\"c\")\n",
                                         source_reading{});
  ASSERT_FALSE(scan.problem);
  ASSERT_EQ(scan.references.size(), 3u);
  EXPECT_EQ(scan.references[0].keyword, "include");
  EXPECT_EQ(scan.references[0].target, "\"a.h\"");
  EXPECT_EQ(scan.references[0].offset, 0u);
  EXPECT_EQ(scan.references[1].keyword, "include_next");
  EXPECT_EQ(scan.references[1].target, "<b.h>");
  EXPECT_EQ(scan.references[1].offset, 17u);
  EXPECT_TRUE(scan.references[1].has_hash);
  EXPECT_EQ(scan.references[2].keyword, "__has_embed");
  EXPECT_FALSE(scan.references[2].has_hash);
}

TEST(file_references, trigraphs_count_only_in_the_readings_that_have_them) {
  source_reading cxx17;
  source_reading cxx14;
  cxx14.trigraphs = true;
  EXPECT_TRUE(scan_file_references("?\?=include \"x\"\n", cxx17).references.empty());
  EXPECT_EQ(scan_file_references("?\?=include \"x\"\n", cxx14).references.size(), 1u);
  EXPECT_EQ(scan_file_references("// ?\?/\n#include \"x\"\n", cxx17).references.size(), 1u);
  EXPECT_TRUE(scan_file_references("// ?\?/\n#include \"x\"\n", cxx14).references.empty())
    << "?\?/ at the end of a comment splices the next line into it";
}

TEST(file_references, every_scan_fault_has_a_name_and_a_reason) {
  for (const auto fault : {scan_fault::unterminated_comment, scan_fault::unterminated_raw_string,
                           scan_fault::malformed_raw_string, scan_fault::raw_string_with_splice}) {
    EXPECT_FALSE(to_string(fault).empty());
    EXPECT_FALSE(describe(fault).empty());
  }
}

TEST(file_references, is_linear_on_long_lines_and_10_mb_inputs) {
  const auto started = std::chrono::steady_clock::now();
  const std::string spaces = "// same" + std::string(60'000, ' ') + "\n" + kernel;
  EXPECT_EQ(refusal_of(spaces), "(allowed)");
  const std::size_t ten_mb = 10u << 20;
  std::string many_macros;
  while (many_macros.size() < ten_mb)
    many_macros += "#include X ";
  EXPECT_NE(refusal_of(many_macros).find("a macro cannot be checked"), std::string::npos);
  std::string one_line(ten_mb, 'a');
  EXPECT_EQ(refusal_of(one_line), "(allowed)");
  std::string splices;
  while (splices.size() < ten_mb)
    splices += "a\\\n";
  EXPECT_EQ(refusal_of(splices), "(allowed)");
  std::string parens(ten_mb, '(');
  EXPECT_NE(refusal_of("#if __has_include" + parens).find("right after __has_include"), std::string::npos);
  std::string quotes(ten_mb, '\'');
  EXPECT_EQ(refusal_of(quotes), "(allowed)");
  const auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_LT(elapsed, std::chrono::seconds{20}) << "each pass is linear; quadratic would take hours";
}

TEST(log_file_refusal, allows_the_source_its_include_folders_and_relative_headers) {
  const auto roots = allowed_include_roots(std::vector<std::string>{"-I/opt/inc/", "-I", "../common",
                                                                    "--include-path=rel", "--pre-include=/p/pre.h"});
  EXPECT_EQ(roots.folders, (std::vector<std::string>{"/opt/inc/", "../common", "rel"}));
  EXPECT_EQ(roots.files, (std::vector<std::string>{"/p/pre.h"}));
  const std::string allowed = "scale.cu(3): error: x\n  int x = ;\n/opt/inc/a.h(1): warning: y\n"
                              "../common/b.h(2): error: z\n          detected during instantiation of \"f\" at line 4 of "
                              "/opt/inc/sub/c.h\n/p/pre.h(1): error: w\ntile.cuh(9): error: v\n";
  EXPECT_FALSE(log_file_refusal(allowed, "scale.cu", roots));
  for (const std::string outside : {"/etc/passwd", "/opt/inc/../../etc/passwd", "../secret.txt", "/opt/income/a.h"}) {
    const auto refusal = log_file_refusal("scale.cu(1): error: x\n" + outside + "(1): error: TOPSECRET\n  TOPSECRET\n",
                                          "scale.cu", roots);
    ASSERT_TRUE(refusal) << outside;
    EXPECT_NE(refusal->find(outside), std::string::npos) << *refusal;
    EXPECT_EQ(refusal->find("TOPSECRET"), std::string::npos) << "the log itself is withheld: " << *refusal;
  }
  EXPECT_TRUE(log_file_refusal("  detected during instantiation at line 2 of /etc/shadow\n", "scale.cu", roots));
}

// Through NVRTC: a secret file next to the test, named every way; its contents never come back,
// and the compile is refused with a reason.
TEST(compile_kernel, a_refused_file_never_reaches_the_log_whatever_its_spelling) {
  test::scratch_dir scratch;
  const auto secret = scratch.path / "secret.txt";
  std::ofstream{secret} << "TOPSECRET_7d1e\n";
  for (const auto& [name, text] : bypasses()) {
    compile_request request;
    request.source = with_file(text, secret.string()) + kernel;
    request.source_name = "scale.cu";
    request.entry = "scale";
    const auto result = compile_kernel(request);
    ASSERT_FALSE(result) << name;
    EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error) << name;
    EXPECT_EQ(result.error().log.find("TOPSECRET"), std::string::npos) << name << ": " << result.error().log;
    EXPECT_EQ(result.error().log.rfind("scale.cu: line ", 0), 0u) << name << ": " << result.error().log;
  }
}

// NVRTC looks for the source's "..." includes in its own folder first: with a bare source name
// ("variant.cu") the process's working folder. A file found there, outside the -I folders, is
// refused before NVRTC reads it; one that is not there is looked for in the -I folders only.
TEST(compile_kernel, a_relative_include_found_in_the_working_folder_is_refused_unless_it_is_an_include_folder) {
  test::scratch_dir scratch;
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(scratch.path);
  std::ofstream{scratch.path / "here.cuh"} << "TOPSECRET_here\n";
  compile_request request;
  request.source = "#include \"here.cuh\"\n" + kernel;
  request.source_name = "scale.cu";
  request.entry = "scale";
  const auto result = compile_kernel(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().log.find("TOPSECRET"), std::string::npos) << result.error().log;
  EXPECT_NE(result.error().log.find("scale.cu: line 1 column 1: #include \"here.cuh\": NVRTC would read " +
                                    (std::filesystem::canonical(scratch.path) / "here.cuh").string() +
                                    ", which lies outside the include folders (the working folder"),
            std::string::npos)
    << result.error().log;

  request.include_dirs = {scratch.path.string()};
  std::ofstream{scratch.path / "here.cuh", std::ios::trunc} << "#define HERE 1\n";
  const auto inside = compile_kernel(request);
  std::filesystem::current_path(previous);
  EXPECT_TRUE(inside) << "the working folder is an include folder: " << inside.error().log;
}

// Defence in depth: #line makes NVRTC name a file the source did not include; the log check
// refuses it and withholds the log.
TEST(compile_kernel, a_log_naming_a_file_outside_the_allowed_set_is_withheld) {
  compile_request request;
  request.source = "#line 1 \"/etc/hostname\"\nint oops = ;\n" + kernel;
  request.source_name = "scale.cu";
  request.entry = "scale";
  const auto result = compile_kernel(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error);
  EXPECT_NE(result.error().log.find("its log withheld"), std::string::npos) << result.error().log;
  EXPECT_EQ(result.error().log.find("int oops"), std::string::npos) << result.error().log;
}

// [kernel] include_dirs (issue 29): headers of the project's include folders are read, with
// what they include in turn; nothing outside the folders is, whichever way a header names it.
namespace {

struct project {
  test::scratch_dir scratch;
  std::filesystem::path include = scratch.path / "project" / "include";
  std::filesystem::path outside = scratch.path / "outside";
  project() {
    std::filesystem::create_directories(include / "detail");
    std::filesystem::create_directories(outside);
    std::ofstream{outside / "secret.h"} << "TOPSECRET_outside\n";
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream{include / name} << text; }
  std::vector<std::string> folders() const { return {include.string()}; }
  compile_request request(const std::string& source) const {
    compile_request r;
    r.source = source + kernel;
    r.source_name = "scale.cu";
    r.entry = "scale";
    r.include_dirs = {include.string()};
    return r;
  }
};

} // namespace

TEST(include_dirs, a_header_of_the_include_folders_and_the_headers_it_includes_are_compiled_and_listed) {
  project p;
  p.write("tile.cuh", "#pragma once\n#include \"detail/width.h\"\n#define TILE (2 * WIDTH)\n");
  p.write("detail/width.h", "#pragma once\n#include \"../base.h\"\n#define WIDTH (BASE * 2)\n");
  p.write("base.h", "#define BASE 8\n");
  auto request = p.request("#include \"tile.cuh\"\n#include <cuda_fp16.h>\n__device__ int tile_size() { return TILE; }\n");
  const auto walk = walk_included_headers(request.source, request.source_name, request.include_dirs, request.include_dirs);
  ASSERT_FALSE(walk.refusal) << *walk.refusal;
  ASSERT_EQ(walk.headers.size(), 3u) << "cuda_fp16.h is in no include folder: not read here";
  EXPECT_EQ(walk.headers[0].path, (p.include / "tile.cuh").string());
  EXPECT_EQ(walk.headers[1].path, (p.include / "detail" / "width.h").string());
  EXPECT_EQ(walk.headers[2].path, (p.include / "base.h").string()) << "its own folder first: detail/../base.h";
  EXPECT_EQ(walk.headers[2].text, "#define BASE 8\n");
  request.source = "#include \"tile.cuh\"\n" + std::string{kernel} + "__device__ int tile_size() { return TILE; }\n";
  const auto compiled = compile_kernel(request);
  EXPECT_TRUE(compiled) << compiled.error().log;
}

TEST(include_dirs, a_symbolic_link_out_of_the_folders_is_refused_and_nothing_of_its_target_is_read) {
  project p;
  std::filesystem::create_symlink(p.outside / "secret.h", p.include / "config.h");
  std::filesystem::create_directory_symlink(p.outside, p.include / "vendor");
  for (const std::string include : {"config.h", "vendor/secret.h"}) {
    const auto request = p.request("#include \"" + include + "\"\n");
    const auto result = compile_kernel(request);
    ASSERT_FALSE(result) << include;
    EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error);
    EXPECT_NE(result.error().log.find("scale.cu: line 1 column 1: #include \"" + include + "\": NVRTC would read " +
                                      (p.include / include).string() + ", which lies outside the include folders"),
              std::string::npos)
        << result.error().log;
    EXPECT_EQ(result.error().log.find("TOPSECRET"), std::string::npos) << result.error().log;
  }
  // A link that stays inside is an ordinary header.
  p.write("real.h", "#define REAL 1\n");
  std::filesystem::create_symlink(p.include / "real.h", p.include / "alias.h");
  EXPECT_TRUE(compile_kernel(p.request("#include \"alias.h\"\n"))) << "a link inside the folders";
}

TEST(include_dirs, a_header_that_names_a_file_outside_is_refused_naming_the_header_and_its_line) {
  project p;
  struct trick {
    std::string text;  // the header's second line on
    std::string place; // where the refusal points
    std::string why;
  };
  const std::vector<trick> tricks{
    {"#include \"../../outside/secret.h\"\n", "line 2 column 1", "outside/secret.h, which lies outside the include folders"},
    {"#include \"../../../../../../../../etc/passwd\"\n", "line 2 column 1", "NVRTC would read /etc/passwd, which lies outside"},
    {"#include \"" + (p.outside / "secret.h").string() + "\"\n", "line 2 column 1", "only relative paths"},
    {"#define WHERE \"../../outside/secret.h\"\n#include WHERE\n", "line 3 column 1", "a macro cannot be checked"},
    {"#\\\ninclude \"/etc/passwd\"\n", "line 2 column 1", "only relative paths"},
    {"#if __has_include(\"../../outside/secret.h\")\n#endif\n", "line 2 column 5", "which lies outside the include folders"},
  };
  for (const auto& [text, place, why] : tricks) {
    p.write("common.h", "// the project's header\n" + text);
    const auto result = compile_kernel(p.request("#include \"common.h\"\n"));
    ASSERT_FALSE(result) << text;
    EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error);
    EXPECT_NE(result.error().log.find("scale.cu: " + (p.include / "common.h").string() + ": " + place + ": "),
              std::string::npos)
        << text << result.error().log;
    EXPECT_NE(result.error().log.find(why), std::string::npos) << text << result.error().log;
    EXPECT_EQ(result.error().log.find("TOPSECRET"), std::string::npos) << result.error().log;
    EXPECT_EQ(result.error().log.find("root:"), std::string::npos) << result.error().log;
  }
}

TEST(include_dirs, a_header_in_no_include_folder_is_not_found_and_the_source_may_not_climb_to_it) {
  project p;
  std::ofstream{p.include.parent_path() / "beside.h"} << "TOPSECRET_beside\n";
  const auto beside = compile_kernel(p.request("#include \"beside.h\"\n"));
  ASSERT_FALSE(beside);
  EXPECT_NE(beside.error().log.find("cannot open source file \"beside.h\""), std::string::npos) << beside.error().log;
  EXPECT_EQ(beside.error().log.find("TOPSECRET"), std::string::npos) << beside.error().log;
  const auto climbing = compile_kernel(p.request("#include \"../beside.h\"\n"));
  ASSERT_FALSE(climbing);
  EXPECT_NE(climbing.error().log.find("the path climbs out"), std::string::npos) << climbing.error().log;
}

TEST(include_dirs, the_walk_is_bounded_in_headers_and_bytes) {
  project p;
  // A chain of headers longer than the bound, each including the next.
  const auto header = [](std::size_t i) { return std::string{"h"}.append(std::to_string(i)).append(".h"); };
  for (std::size_t i = 0; i <= max_included_headers; ++i)
    p.write(header(i), std::string{"#include \""}.append(header(i + 1)).append("\"\n"));
  const auto chain = walk_included_headers("#include \"h0.h\"\n", "k.cu", p.folders(), p.folders());
  ASSERT_TRUE(chain.refusal);
  EXPECT_NE(chain.refusal->find("more than " + std::to_string(max_included_headers) + " headers are included"),
            std::string::npos)
      << *chain.refusal;
  p.write("big.h", std::string(max_header_bytes + 1, ' '));
  const auto big = walk_included_headers("#include \"big.h\"\n", "k.cu", p.folders(), p.folders());
  ASSERT_TRUE(big.refusal);
  EXPECT_NE(big.refusal->find("big.h is larger than"), std::string::npos) << *big.refusal;
}

TEST(include_dirs, cuda_headers_come_from_the_toolkit_and_are_not_walked_as_the_projects) {
  project p;
  p.write("reduce.cuh", "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n");
  auto request = p.request("#include \"reduce.cuh\"\n#include <cuda_fp16.h>\n");
  const auto options = nvrtc_options(request);
  ASSERT_GT(options.size(), canonical_options(request).size()) << "the toolkit's include folders (none here?)";
  const auto walk = walk_included_headers(request.source, request.source_name, allowed_include_roots(options).folders,
                                          request.include_dirs);
  ASSERT_FALSE(walk.refusal) << *walk.refusal;
  ASSERT_EQ(walk.headers.size(), 1u) << "only the project's header is read and keyed";
  const auto compiled = compile_kernel(request);
  EXPECT_TRUE(compiled) << "cooperative_groups.h and its cuda/std headers found: " << compiled.error().log;
}
