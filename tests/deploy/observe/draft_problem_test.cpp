// `warpforge init`'s drafting (deploy/observe/draft/) from RECORDED observations: the fixture launch
// logs are in the format the injection library writes with WARPFORGE_OBSERVE_BUFFERS (allocations
// and hashes), the sources are programs with region markers (fixtures/README.md). Also the pieces:
// the demangled-signature reader, the source scan, the line-info reader.

#include "deploy/observe/draft/draft_problem.hpp"
#include "deploy/observe/draft/kernel_signature.hpp"
#include "deploy/observe/draft/kernel_source.hpp"
#include "deploy/observe/draft/line_info.hpp"
#include "deploy/observe/launches/launch_log.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using namespace warpforge::observe;

const fs::path fixtures = fs::path{WARPFORGE_SOURCE_DIR} / "tests/deploy/observe/fixtures/init";

std::string slurp(const fs::path& file) {
  std::ifstream in{file};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<launch_record> launches_of(const std::string& log, std::string_view kernel) {
  auto read = read_launch_log(fixtures / log);
  EXPECT_TRUE(read.has_value()) << read.error();
  std::vector<launch_record> out;
  for (auto& launch : read->launches)
    if (matches_kernel(launch, kernel)) out.push_back(std::move(launch));
  return out;
}

draft_request transpose_request() {
  draft_request request;
  request.launches = launches_of("transpose_launches.jsonl", "transposeNaive");
  request.source_file = fixtures / "transpose_app.cu";
  request.source_text = slurp(request.source_file);
  request.source_found_by = "--source";
  request.problem_dir = fixtures.parent_path() / "drafted";
  request.command = {"./transpose_app", "--bench"};
  return request;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

TEST(KernelSignature, ReadsATemplateInstantiationWithConstPointersAndUnsignedScalars) {
  auto sig = parse_kernel_signature("void reduce7<int, 256u, true>(int const*, int*, unsigned int)");
  ASSERT_TRUE(sig.has_value()) << sig.error();
  EXPECT_EQ(sig->template_id, "reduce7<int, 256u, true>");
  EXPECT_EQ(sig->base_name, "reduce7");
  EXPECT_EQ(sig->template_args, (std::vector<std::string>{"int", "256u", "true"}));
  ASSERT_EQ(sig->params.size(), 3u);
  EXPECT_EQ(sig->params[0].kind, param_kind::pointer);
  EXPECT_TRUE(sig->params[0].const_pointee);
  EXPECT_EQ(sig->params[0].dtype, warpforge::config::dtype::i32);
  EXPECT_FALSE(sig->params[1].const_pointee);
  EXPECT_EQ(sig->params[2].kind, param_kind::scalar);
  EXPECT_EQ(sig->params[2].dtype, warpforge::config::dtype::u32);
}

TEST(KernelSignature, ReadsAPlainCppFunctionWhoseSymbolHasNoReturnType) {
  auto sig = parse_kernel_signature("transposeNaive(float*, float*, int, int)");
  ASSERT_TRUE(sig.has_value()) << sig.error();
  EXPECT_EQ(sig->template_id, "transposeNaive");
  EXPECT_TRUE(sig->template_args.empty());
  EXPECT_EQ(sig->params.size(), 4u);
  EXPECT_EQ(sig->params[1].dtype, warpforge::config::dtype::f32);
}

TEST(KernelSignature, RefusesWhatASpecCannotHoldNamingTheParameter) {
  auto by_ref = parse_kernel_signature("k(float*, Params const&)");
  ASSERT_FALSE(by_ref.has_value());
  EXPECT_TRUE(contains(by_ref.error(), "parameter 2 (Params const&)")) << by_ref.error();
  auto vector = parse_kernel_signature("k(float4*, int)");
  ASSERT_FALSE(vector.has_value());
  EXPECT_TRUE(contains(vector.error(), "'float4'")) << vector.error();
  auto extern_c = parse_kernel_signature("vector_add");
  ASSERT_FALSE(extern_c.has_value());
  EXPECT_TRUE(contains(extern_c.error(), "--source")) << extern_c.error();
}

TEST(KernelSource, FindsTheDefinitionItsParameterNamesAndTemplateParameters) {
  const auto text = slurp(fixtures / "reduce_kernel.cu");
  auto def = find_kernel_definition(text, "reduce7", 3, "reduce_kernel.cu");
  ASSERT_TRUE(def.has_value()) << def.error();
  EXPECT_EQ(def->param_names, (std::vector<std::string>{"g_idata", "g_odata", "n"}));
  EXPECT_EQ(def->template_params, (std::vector<std::string>{"T", "blockSize", "nIsPow2"}));
  EXPECT_EQ(def->line, 15u);
  auto missing = find_kernel_definition(text, "reduce7", 4, "reduce_kernel.cu");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error(), "no __global__ definition of 'reduce7' with 4 parameters in reduce_kernel.cu");
}

TEST(KernelSource, ReadsObjectLikeIntegerDefinesOnly) {
  const auto defines = integer_defines("#define A 32\n#  define B 16u // rows\n#define F(x) x\n#define S \"s\"\n#define C (4)\n");
  ASSERT_EQ(defines.size(), 2u);
  EXPECT_EQ(defines[0].name, "A");
  EXPECT_EQ(defines[0].value, 32);
  EXPECT_EQ(defines[1].name, "B");
  EXPECT_EQ(defines[1].value, 16);
  EXPECT_EQ(defines[1].line, 2u);
}

TEST(LineInfo, TakesTheFirstSourceLineInsideTheKernelsOwnFunction) {
  const auto listing = slurp(fixtures / "transpose_nvdisasm.txt");
  auto place = first_line_of_function(listing, "_Z14transposeNaivePfS_ii");
  ASSERT_TRUE(place.has_value());
  EXPECT_EQ(place->file, fs::path{"/home/user/app/src/transpose_app.cu"});
  EXPECT_EQ(place->line, 23u);
  EXPECT_EQ(first_line_of_function(listing, "_Z4copyPfS_ii")->line, 14u);
  EXPECT_FALSE(first_line_of_function(listing, "_Z5otherv").has_value());
}

TEST(DraftProblem, DraftsTransposeFromARecordedRunWithEveryGuessCommented) {
  auto drafted = draft_problem(transpose_request());
  ASSERT_TRUE(drafted.has_value()) << drafted.error();
  const auto& s = drafted->spec_text;
  EXPECT_EQ(drafted->region, "transposeNaive");
  EXPECT_EQ(drafted->kernel_file_name, "transposeNaive.kernel.cu");
  EXPECT_TRUE(contains(s, "entry = \"transposeNaive\"")) << s;
  // dims from the integer scalars, named after the parameters
  EXPECT_TRUE(contains(s, "WIDTH = 1024   # parameter \"width\" (int), observed")) << s;
  EXPECT_TRUE(contains(s, "value = \"HEIGHT\"")) << s;
  // counts from the allocations, as a product of dims true at both configurations
  EXPECT_TRUE(contains(s, "count = \"WIDTH * HEIGHT\"   # the allocation it points into holds")) << s;
  // roles from the hashes: odata changed, idata did not
  EXPECT_TRUE(contains(s, "name = \"odata\"\ndtype = \"f32\"   # float* in the signature\ncount = \"WIDTH * HEIGHT\"")) << s;
  EXPECT_TRUE(contains(s, "role = \"output\"   # its bytes changed in 2 of 2 hashed launches")) << s;
  EXPECT_TRUE(contains(s, "role = \"input\"   # its bytes were the same before and after 2 hashed launches")) << s;
  // tunables from the #defines that set the block sizes; the unused one only mentioned
  EXPECT_TRUE(contains(s, "name = \"TILE_DIM\"\nvalues = [8, 16, 32, 64, 128]\ndefault = 32")) << s;
  EXPECT_TRUE(contains(s, "name = \"BLOCK_ROWS\"\nvalues = [4, 8, 16, 32, 64]\ndefault = 16")) << s;
  EXPECT_FALSE(contains(s, "SPARE_LIMIT")) << s;
  EXPECT_TRUE(contains(s, "constraints = [\"TILE_DIM * BLOCK_ROWS <= 1024\"]")) << s;
  // launch expressions that give both observed geometries
  EXPECT_TRUE(contains(s, "grid = [\"ceil_div(WIDTH, TILE_DIM)\", \"ceil_div(WIDTH, TILE_DIM)\", 1]")) << s;
  EXPECT_TRUE(contains(s, "block = [\"TILE_DIM\", \"BLOCK_ROWS\", 1]")) << s;
  // the reference is the program's own kernel
  EXPECT_TRUE(contains(s, "[reference]   # the program's own kernel")) << s;
  EXPECT_TRUE(contains(s, "kind = \"kernel\"\nsource = \"transposeNaive.kernel.cu\"\nentry = \"transposeNaive\"")) << s;
  // two sizes: [[configs]] weighted by launches
  EXPECT_TRUE(contains(s, "weight = 3   # its launch count\ndims = { WIDTH = 1024, HEIGHT = 1024 }")) << s;
  EXPECT_TRUE(contains(s, "weight = 2   # its launch count\ndims = { WIDTH = 512, HEIGHT = 512 }")) << s;
  // no build/verify given: [deploy] written commented out, naming the region
  EXPECT_TRUE(contains(s, "# region = \"transposeNaive\"")) << s;
  // the kernel file: the region's code, the proposed #defines guarded, the unused one left alone
  const auto& k = drafted->kernel_text;
  EXPECT_TRUE(contains(k, "#ifndef TILE_DIM\n#define TILE_DIM 32\n#endif")) << k;
  EXPECT_TRUE(contains(k, "#ifndef BLOCK_ROWS\n#define BLOCK_ROWS 16\n#endif")) << k;
  EXPECT_TRUE(contains(k, "#define SPARE_LIMIT 7")) << k;
  EXPECT_FALSE(contains(k, "#ifndef SPARE_LIMIT")) << k;
  EXPECT_FALSE(contains(k, "int main")) << k;
  EXPECT_FALSE(contains(k, "warpforge:begin")) << k;
}

TEST(DraftProblem, WritesTheDeployTableWhenBuildAndVerifyAreGiven) {
  auto request = transpose_request();
  request.build = "make";
  request.verify = "./transpose_app --check";
  auto drafted = draft_problem(request);
  ASSERT_TRUE(drafted.has_value()) << drafted.error();
  const auto& s = drafted->spec_text;
  EXPECT_TRUE(contains(s, "\n[deploy]")) << s;
  EXPECT_TRUE(contains(s, "project = \"../init\"\nfile = \"transpose_app.cu\"\nregion = \"transposeNaive\"\nbuild = \"make\"")) << s;
  EXPECT_TRUE(contains(s, "time = \"./transpose_app --bench\"")) << s;
  EXPECT_TRUE(contains(s, "kernel = \"transposeNaive\"")) << s;
}

TEST(DraftProblem, DraftsOneTemplateInstantiationWithItsBlockSizeTunable) {
  draft_request request;
  request.launches = launches_of("reduce_launches.jsonl", "reduce7<int, 256u, true>");
  ASSERT_EQ(request.launches.size(), 3u);
  request.source_file = fixtures / "reduce_kernel.cu";
  request.source_text = slurp(request.source_file);
  request.source_found_by = "--source";
  request.problem_dir = fixtures;
  request.command = {"./reduction"};
  auto drafted = draft_problem(request);
  ASSERT_TRUE(drafted.has_value()) << drafted.error();
  const auto& s = drafted->spec_text;
  EXPECT_TRUE(contains(s, "entry = \"reduce7<int, BLOCK_SIZE, true>\"   # the observed \"reduce7<int, 256u, true>\"")) << s;
  EXPECT_TRUE(contains(s, "# proposed from the template parameter 'blockSize'")) << s;
  // the dynamic shared memory is a literal: the block size may not grow past the observed one
  EXPECT_TRUE(contains(s, "name = \"BLOCK_SIZE\"\nvalues = [64, 128, 256]\ndefault = 256")) << s;
  EXPECT_TRUE(contains(s, "dynamic_smem = 36   # observed, a literal")) << s;
  EXPECT_TRUE(contains(s, "role = \"input\"   # const in the signature")) << s;
  EXPECT_TRUE(contains(s, "name = \"g_odata\"\ndtype = \"i32\"   # int* in the signature\ncount = 64")) << s;
  EXPECT_TRUE(contains(s, "count = \"N\"")) << s;
  EXPECT_TRUE(contains(s, "dtype = \"u32\"   # unsigned int in the signature\nvalue = \"N\"")) << s;
  EXPECT_TRUE(contains(s, "grid = [64, 1, 1]")) << s;
  EXPECT_TRUE(contains(s, "block = [\"BLOCK_SIZE\", 1, 1]")) << s;
  EXPECT_TRUE(contains(s, "entry = \"reduce7<int, 256u, true>\"   # the observed instantiation")) << s;
  EXPECT_FALSE(contains(s, "[[configs]]")) << s;
  // the kernel file keeps the template and its helpers, not the host code after the region
  EXPECT_TRUE(contains(drafted->kernel_text, "template <class T> struct SharedMemory")) << drafted->kernel_text;
  EXPECT_FALSE(contains(drafted->kernel_text, "isPow2")) << drafted->kernel_text;
}

TEST(DraftProblem, RefusesABaseNameThatMatchesSeveralInstantiationsListingThem) {
  draft_request request;
  request.launches = launches_of("reduce_launches.jsonl", "reduce7");
  request.source_file = fixtures / "reduce_kernel.cu";
  request.source_text = slurp(request.source_file);
  auto drafted = draft_problem(request);
  ASSERT_FALSE(drafted.has_value());
  EXPECT_TRUE(contains(drafted.error(), "matches 2 kernels")) << drafted.error();
  EXPECT_TRUE(contains(drafted.error(), "reduce7<int, 256u, true>")) << drafted.error();
  EXPECT_TRUE(contains(drafted.error(), "reduce7<int, 32u, true>")) << drafted.error();
}

TEST(DraftProblem, RefusesAKernelThatNeverLaunched) {
  auto request = transpose_request();
  request.launches.clear();
  auto drafted = draft_problem(request);
  ASSERT_FALSE(drafted.has_value());
  EXPECT_EQ(drafted.error(), "the kernel never launched in the observed run: nothing to draft from");
}

TEST(DraftProblem, RefusesAPointerInNoRecordedAllocationNamingTheParameterAndAddress) {
  auto request = transpose_request();
  for (auto& launch : request.launches)
    std::erase_if(launch.buffers, [](const buffer_observation& b) { return b.param == 1; });
  auto drafted = draft_problem(request);
  ASSERT_FALSE(drafted.has_value());
  EXPECT_TRUE(contains(drafted.error(), "parameter 2 (idata, float*)")) << drafted.error();
  EXPECT_TRUE(contains(drafted.error(), "0x7f0000e00000")) << drafted.error();
  EXPECT_TRUE(contains(drafted.error(), "in no device allocation")) << drafted.error();
}

TEST(DraftProblem, RefusesLaunchesWithoutArgumentValues) {
  auto request = transpose_request();
  for (auto& launch : request.launches) launch.params.clear();
  auto drafted = draft_problem(request);
  ASSERT_FALSE(drafted.has_value());
  EXPECT_TRUE(contains(drafted.error(), "observed without argument values")) << drafted.error();
}

TEST(DraftProblem, RefusesAKernelOutsideAnyRegionNamingTheFileAndLine) {
  auto request = transpose_request();
  std::string text = request.source_text;
  for (auto marker : {"// warpforge:begin transposeNaive\n", "// warpforge:end transposeNaive\n"})
    text.erase(text.find(marker), std::string_view{marker}.size());
  request.source_text = text;
  auto drafted = draft_problem(request);
  ASSERT_FALSE(drafted.has_value());
  EXPECT_TRUE(contains(drafted.error(), "transpose_app.cu:18: the kernel transposeNaive is not inside a region"))
    << drafted.error();
  EXPECT_TRUE(contains(drafted.error(), "// warpforge:begin transposeNaive")) << drafted.error();
}

TEST(DraftProblem, RefusesWrongMarkersInTheSourceNamingTheLine) {
  auto request = transpose_request();
  request.source_text = "// warpforge:begin other\n" + request.source_text;
  auto drafted = draft_problem(request);
  ASSERT_FALSE(drafted.has_value());
  EXPECT_TRUE(contains(drafted.error(), "transpose_app.cu:8: region 'transposeNaive' begins inside region 'other'"))
    << drafted.error();
}

TEST(DraftProblem, UpperSnakeNamesDimsAfterParameters) {
  EXPECT_EQ(upper_snake("blockSize"), "BLOCK_SIZE");
  EXPECT_EQ(upper_snake("wA"), "W_A");
  EXPECT_EQ(upper_snake("n"), "N");
  EXPECT_EQ(upper_snake("size_x"), "SIZE_X");
}

} // namespace

namespace {

TEST(DraftProblem, DraftsFromALogTheInjectionLibraryWroteOnAnH100) {
  // The output changed in the first hashed launch only: the second found the result already there.
  auto request = transpose_request();
  request.launches = launches_of("h100_transpose_launches.jsonl", "transposeNaive");
  ASSERT_EQ(request.launches.size(), 5u);
  auto drafted = draft_problem(request);
  ASSERT_TRUE(drafted.has_value()) << drafted.error();
  const auto& s = drafted->spec_text;
  EXPECT_TRUE(contains(s, "WIDTH = 4096")) << s;
  EXPECT_TRUE(contains(s, "count = \"WIDTH * HEIGHT\"")) << s;
  EXPECT_TRUE(contains(s, "role = \"output\"   # its bytes changed in 1 of 2 hashed launches")) << s;
  EXPECT_TRUE(contains(s, "role = \"input\"   # its bytes were the same before and after 2 hashed launches")) << s;
  EXPECT_TRUE(contains(s, "grid = [\"ceil_div(WIDTH, TILE_DIM)\", \"ceil_div(WIDTH, TILE_DIM)\", 1]")) << s;
  EXPECT_FALSE(contains(s, "[[configs]]")) << "one size observed: the spec's [dims] alone";
}

} // namespace

namespace {

TEST(DraftProblem, TheProgramsArgumentsCannotBreakOutOfACommentOrAString) {
  auto request = transpose_request();
  request.command = {"./app", "x\nname = \"injected\"", "it's"};
  request.build = "make";
  request.verify = "true";
  auto drafted = draft_problem(request);
  ASSERT_TRUE(drafted.has_value()) << drafted.error();
  const auto& s = drafted->spec_text;
  EXPECT_FALSE(contains(s, "\nname = \"injected\"")) << s;
  EXPECT_TRUE(contains(s, "#   ./app 'x?name = \"injected\"' 'it'\\''s'\n")) << s;
  EXPECT_TRUE(contains(s, "time = \"./app 'x\\nname = \\\"injected\\\"' 'it'\\\\''s'\"")) << s;
}

} // namespace
