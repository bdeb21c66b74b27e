#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"

#include "fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace warpforge::config {
namespace {

using testing::expect_error;
using testing::fixture;

toml_reader::placed_errors errors_of(const std::string& name) {
  auto spec = load_problem(fixture(name));
  EXPECT_FALSE(spec.has_value()) << name << " loaded";
  return spec ? toml_reader::placed_errors{} : spec.error();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- enums ----------------------------------------------------------------------------------------

TEST(ProblemSpecEnums, EveryArgRoleRoundTripsThroughItsName) {
  for (const auto role : all_arg_roles)
    EXPECT_EQ(arg_role_from_string(to_string(role)), role);
  EXPECT_EQ(arg_role_from_string("out"), std::nullopt);
}

TEST(ProblemSpecEnums, EveryInitKindRoundTripsThroughItsName) {
  for (const auto kind : all_init_kinds)
    EXPECT_EQ(init_kind_from_string(to_string(kind)), kind);
  EXPECT_EQ(init_kind_from_string("gaussian"), std::nullopt);
}

TEST(ProblemSpecEnums, EveryReferenceKindRoundTripsThroughItsName) {
  for (const auto kind : all_reference_kinds)
    EXPECT_EQ(reference_kind_from_string(to_string(kind)), kind);
  EXPECT_EQ(reference_kind_from_string("baseline"), std::nullopt);
}

// --- a valid spec -----------------------------------------------------------------------------

TEST(ProblemSpec, ValidSpecLoadsEveryField) {
  const auto path = fixture("valid_problem.toml");
  auto spec = load_problem(path);
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  EXPECT_EQ(spec->file, path.string());
  EXPECT_TRUE(contains(spec->raw_text, "name = \"scale\""));
  EXPECT_EQ(spec->name, "scale");
  EXPECT_EQ(spec->kernel.source, fixture("kernel.cu"));
  EXPECT_EQ(spec->kernel.entry, "scale");
  EXPECT_EQ(spec->kernel.flags, std::vector<std::string>{"-use_fast_math"});
  EXPECT_EQ(spec->kernel.arch, "sm_90a");

  ASSERT_EQ(spec->dims.size(), 2u);
  EXPECT_EQ(spec->dims[0].name, "N"); // file order, not alphabetical
  EXPECT_EQ(spec->dims[0].value, 1000);
  EXPECT_EQ(spec->dims[1].name, "M");

  ASSERT_EQ(spec->tunables.size(), 2u);
  EXPECT_EQ(spec->tunables[0].name, "BLOCK");
  EXPECT_EQ(spec->tunables[0].values, (std::vector<std::int64_t>{128, 256, 512}));
  EXPECT_EQ(spec->tunables[0].default_value, 256);
  EXPECT_EQ(spec->tunables[0].method, std::nullopt);
  EXPECT_EQ(spec->tunables[1].values, (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(spec->tunables[1].default_value, 1); // no default: the first value
  EXPECT_EQ(spec->tunables[1].method, "loop_unrolling");
  ASSERT_EQ(spec->constraints.size(), 1u);
  EXPECT_EQ(spec->constraints[0].expr.text(), "BLOCK * UNROLL <= 1024");
  EXPECT_EQ(spec->constraints[0].key, "constraints[0]");

  ASSERT_EQ(spec->args.size(), 3u);
  const auto& x = std::get<buffer_spec>(spec->args[0]);
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.type, dtype::f32);
  EXPECT_EQ(x.count.expr.text(), "N * M");
  EXPECT_EQ(x.count.key, "args[0].count");
  EXPECT_EQ(x.role, arg_role::inout);
  EXPECT_EQ(x.init.kind, init_kind::normal);
  EXPECT_EQ(x.init.mean, 1.0);
  EXPECT_EQ(x.init.stddev, 0.5);
  const auto& factor = std::get<scalar_spec>(spec->args[1]);
  EXPECT_EQ(factor.type, dtype::f32);
  EXPECT_EQ(factor.float_value, 2.5);
  const auto& n = std::get<scalar_spec>(spec->args[2]);
  EXPECT_EQ(n.type, dtype::i32);
  EXPECT_EQ(n.value.expr.text(), "N * M");
  EXPECT_EQ(arg_name(spec->args[2]), "n");

  EXPECT_EQ(spec->launch.grid[0].expr.text(), "ceil_div(N * M, BLOCK * UNROLL)");
  EXPECT_EQ(spec->launch.grid[1].expr.text(), "1"); // padded
  EXPECT_EQ(spec->launch.block[0].expr.text(), "BLOCK");
  EXPECT_EQ(spec->launch.dynamic_smem.expr.text(), "BLOCK * 4");

  EXPECT_EQ(spec->reference.kind, reference_kind::self);
  EXPECT_EQ(spec->reference.rtol, 1e-4);
  EXPECT_EQ(spec->reference.atol, std::nullopt);
  EXPECT_NE(spec->find_tunable("UNROLL"), nullptr);
  EXPECT_EQ(spec->find_tunable("N"), nullptr);
  EXPECT_NE(spec->find_dim("M"), nullptr);
}

TEST(ProblemSpec, ExpressionPlacesPointInsideTheQuotes) {
  auto spec = load_problem(fixture("valid_problem.toml"));
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  const auto& count = std::get<buffer_spec>(spec->args[0]).count;
  EXPECT_EQ(count.place.line, 28u);
  EXPECT_EQ(count.place.column, 10u); // count = "N * M": N is column 10
}

TEST(ProblemSpec, ToleranceFallsBackToPerDtypeDefaults) {
  reference_spec reference;
  EXPECT_EQ(tolerance_for(reference, dtype::f32), (tolerance{1e-5, 1e-6}));
  EXPECT_EQ(tolerance_for(reference, dtype::i32), (tolerance{0.0, 0.0}));
  EXPECT_GT(tolerance_for(reference, dtype::f16).rtol, tolerance_for(reference, dtype::f32).rtol);
  reference.rtol = 0.5;
  EXPECT_EQ(tolerance_for(reference, dtype::f32), (tolerance{0.5, 1e-6}));
}

TEST(ProblemSpec, ParseFromStringNamesTheGivenFileAndResolvesPathsNextToIt) {
  const std::string text = R"(name = "inline"
[kernel]
source = "kernel.cu"
entry = "scale"
[[args]]
name = "x"
dtype = "f64"
count = 64
role = "output"
[launch]
grid = [1]
block = [64]
)";
  auto spec = parse_problem(text, fixture("inline.toml"));
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  EXPECT_EQ(spec->file, fixture("inline.toml").string());
  EXPECT_EQ(spec->raw_text, text);
  EXPECT_EQ(spec->reference.kind, reference_kind::self); // no [reference]: self
  EXPECT_EQ(spec->launch.dynamic_smem.expr.text(), "0");

  auto broken = parse_problem("name = 3\n", "virtual/spec.toml");
  ASSERT_FALSE(broken.has_value());
  EXPECT_EQ(broken.error().front().file, "virtual/spec.toml");
}

TEST(ProblemSpec, ReferenceFileOfTheRightSizeLoads) {
  auto spec = load_problem(fixture("reference_file_ok.toml"));
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  EXPECT_EQ(spec->reference.kind, reference_kind::file);
  EXPECT_EQ(spec->reference.expected_file, fixture("expected_two_floats.bin"));
  EXPECT_EQ(spec->reference.atol, 0.0);
}

TEST(ProblemSpec, UnreadableFileIsAnErrorNamingIt) {
  auto spec = load_problem(fixture("does_not_exist.toml"));
  ASSERT_FALSE(spec.has_value());
  ASSERT_EQ(spec.error().size(), 1u);
  EXPECT_EQ(spec.error()[0].file, fixture("does_not_exist.toml").string());
  EXPECT_EQ(spec.error()[0].line, 0u);
}

// --- malformed fixtures: each error names file, key and line ----------------------------------

TEST(ProblemSpecFixtures, BadDtypeNamesTheKeyAndSuggestsTheShortName) {
  const auto errors = errors_of("bad_dtype.toml");
  const auto* e = expect_error(errors, fixture("bad_dtype.toml"), "args[0].dtype", 12, "float32");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->column, 9u);
  EXPECT_TRUE(contains(e->message, "f32")) << e->message; // lists the alternatives
  EXPECT_EQ(e->hint, "did you mean 'f32'?");
}

TEST(ProblemSpecFixtures, MissingEntryPointsAtTheKernelTable) {
  const auto errors = errors_of("missing_entry.toml");
  expect_error(errors, fixture("missing_entry.toml"), "kernel.entry", 3, "missing required key");
  EXPECT_EQ(errors.size(), 1u) << to_string(errors);
}

TEST(ProblemSpecFixtures, UnknownKeyWithATypoSuggestsTheKnownKey) {
  const auto errors = errors_of("unknown_key_typo.toml");
  const auto* e =
    expect_error(errors, fixture("unknown_key_typo.toml"), "kernel.flgs", 6, "unknown key");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->hint, "did you mean 'flags'?");
}

TEST(ProblemSpecFixtures, NegativeCountIsRejectedAtTheDefaultPoint) {
  const auto errors = errors_of("negative_count.toml");
  const auto* e = expect_error(errors, fixture("negative_count.toml"), "args[0].count", 13,
                               "positive element count, got -1024");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(contains(to_string(*e), "negative_count.toml:13:"));
}

TEST(ProblemSpecFixtures, DivisionByZeroInTheGridNamesTheOperatorColumn) {
  const auto errors = errors_of("division_by_zero_grid.toml");
  const auto* e = expect_error(errors, fixture("division_by_zero_grid.toml"), "launch.grid[0]", 21,
                               "by zero");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->column, 12u); // the '/' in grid = ["N / (BLOCK - 256)"]
  EXPECT_TRUE(contains(e->message, "BLOCK=256")) << e->message;
}

TEST(ProblemSpecFixtures, UnknownNameInAnExpressionSuggestsTheDim) {
  const auto errors = errors_of("unknown_name.toml");
  const auto* e = expect_error(errors, fixture("unknown_name.toml"), "args[0].count", 13,
                               "unknown name 'NUN'");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->column, 14u);
  EXPECT_EQ(e->hint, "did you mean 'NUM'?");
}

TEST(ProblemSpecFixtures, BlockOverTheThreadLimitIsRejected) {
  const auto errors = errors_of("block_too_large.toml");
  expect_error(errors, fixture("block_too_large.toml"), "launch.block", 20,
               "= 2048 threads exceeds 1024");
}

TEST(ProblemSpecFixtures, DefaultNotAmongTheValuesIsRejected) {
  const auto errors = errors_of("default_not_in_values.toml");
  expect_error(errors, fixture("default_not_in_values.toml"), "tunables[0].default", 10,
               "default 384 is not one of the values");
  // The broken tunable does not cascade into "unknown name 'BLOCK'" in the launch.
  EXPECT_EQ(errors.size(), 1u) << to_string(errors);
}

TEST(ProblemSpecFixtures, MissingKernelSourceNamesThePath) {
  const auto errors = errors_of("missing_kernel_source.toml");
  expect_error(errors, fixture("missing_kernel_source.toml"), "kernel.source", 4,
               fixture("no_such_kernel.cu").string());
}

TEST(ProblemSpecFixtures, BadRoleSuggestsTheClosestRole) {
  const auto errors = errors_of("bad_role.toml");
  const auto* e =
    expect_error(errors, fixture("bad_role.toml"), "args[1].role", 17, "unknown value 'outptu'");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->hint, "did you mean 'output'?");
}

TEST(ProblemSpecFixtures, TomlSyntaxErrorBecomesASpecErrorWithPlace) {
  const auto errors = errors_of("toml_syntax_error.toml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, fixture("toml_syntax_error.toml").string());
  EXPECT_EQ(errors[0].line, 10u) << to_string(errors[0]);
  EXPECT_GT(errors[0].column, 0u);
  EXPECT_TRUE(contains(errors[0].message, "TOML syntax error")) << errors[0].message;
}

TEST(ProblemSpecFixtures, BadExpressionSyntaxAndUnknownFunctionAreBothReported) {
  const auto errors = errors_of("bad_expression_syntax.toml");
  const auto path = fixture("bad_expression_syntax.toml");
  const auto* syntax = expect_error(errors, path, "args[0].count", 13, "bad expression");
  ASSERT_NE(syntax, nullptr);
  EXPECT_EQ(syntax->column, 18u); // count = "N * (2 +": the end of the text
  const auto* function = expect_error(errors, path, "launch.grid[0]", 17, "ceil_dvi");
  ASSERT_NE(function, nullptr);
  EXPECT_EQ(function->column, 10u);
}

TEST(ProblemSpecFixtures, NoOutputBufferIsRejected) {
  const auto errors = errors_of("no_output.toml");
  expect_error(errors, fixture("no_output.toml"), "args", 7, "no output buffer");
}

TEST(ProblemSpecFixtures, EntryMissingFromTheSourceIsRejected) {
  const auto errors = errors_of("entry_not_in_source.toml");
  expect_error(errors, fixture("entry_not_in_source.toml"), "kernel.entry", 5,
               "never mentions 'scale_kernel'");
}

TEST(ProblemSpecFixtures, DefaultPointViolatingAConstraintIsRejected) {
  const auto errors = errors_of("constraint_violated.toml");
  const auto* e = expect_error(errors, fixture("constraint_violated.toml"), "constraints[0]", 2,
                               "\"ROWS <= TILE\" is false");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(contains(e->message, "ROWS=64, TILE=32")) << e->message;
}

TEST(ProblemSpecFixtures, OutputWithInitIsRejected) {
  const auto errors = errors_of("output_with_init.toml");
  expect_error(errors, fixture("output_with_init.toml"), "args[0].init", 12, "poisons");
}

TEST(ProblemSpecFixtures, ReferenceFileOfTheWrongSizeIsRejected) {
  const auto errors = errors_of("reference_file_size.toml");
  expect_error(errors, fixture("reference_file_size.toml"), "reference.path", 19,
               "has 8 bytes; the output and inout buffers take 12");
}

TEST(ProblemSpecFixtures, KeyAfterATableHeaderGetsAPlacementHint) {
  const auto errors = errors_of("constraints_after_table.toml");
  const auto* e = expect_error(errors, fixture("constraints_after_table.toml"),
                               "tunables[0].constraints", 10, "unknown key");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(contains(e->hint, "top-level key")) << e->hint;
}

TEST(ProblemSpecFixtures, EveryErrorOfAFileIsCollectedInLineOrder) {
  const auto errors = errors_of("many_errors.toml");
  const auto path = fixture("many_errors.toml");
  expect_error(errors, path, "args[0].dtype", 12, "unknown value 'f31'");
  expect_error(errors, path, "args[1].value", 19, "does not fit in i8");
  expect_error(errors, path, "launch.grid[0]", 22, "grid x must be in [1, 2147483647], got 0");
  expect_error(errors, path, "launch.dynamic_smem", 24, "got -1");
  ASSERT_EQ(errors.size(), 4u) << to_string(errors);
  for (std::size_t i = 1; i < errors.size(); ++i)
    EXPECT_LE(errors[i - 1].line, errors[i].line);
}

// --- inline specs for the remaining checks ----------------------------------------------------

toml_reader::placed_errors inline_errors(const std::string& body) {
  const std::string text = "name = \"inline\"\n[kernel]\nsource = \"kernel.cu\"\nentry = \"scale\"\n" + body;
  auto spec = parse_problem(text, fixture("inline.toml"));
  EXPECT_FALSE(spec.has_value()) << body;
  return spec ? toml_reader::placed_errors{} : spec.error();
}

const std::string output_arg = "[[args]]\nname = \"y\"\ndtype = \"f32\"\ncount = 64\nrole = \"output\"\n";
const std::string launch = "[launch]\ngrid = [1]\nblock = [64]\n";

TEST(ProblemSpecChecks, DuplicateNamesAreRejected) {
  auto errors = inline_errors("[dims]\nN = 4\n[[tunables]]\nname = \"N\"\nvalues = [1]\n" +
                              output_arg + output_arg + launch);
  EXPECT_NE(testing::find_error(errors, "tunables[0].name"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "args[1].name"), nullptr) << to_string(errors);
}

TEST(ProblemSpecChecks, TunableValuesMustBeDistinctIntegersAndRangesSane) {
  auto errors = inline_errors("[[tunables]]\nname = \"A\"\nvalues = [1, 1]\n"
                              "[[tunables]]\nname = \"B\"\nrange = { from = 4, to = 1 }\n"
                              "[[tunables]]\nname = \"C\"\nrange = { from = 1, to = 4, step = 0 }\n"
                              "[[tunables]]\nname = \"D\"\nvalues = [true, false]\n"
                              "[[tunables]]\nname = \"E\"\nvalues = [1]\nrange = { from = 1, to = 2 }\n"
                              "[[tunables]]\nname = \"F\"\n" +
                              output_arg + launch);
  EXPECT_NE(testing::find_error(errors, "tunables[0].values[1]"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "tunables[1].range"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "tunables[2].range.step"), nullptr) << to_string(errors);
  const auto* boolean = testing::find_error(errors, "tunables[3].values[0]");
  ASSERT_NE(boolean, nullptr) << to_string(errors);
  EXPECT_TRUE(contains(boolean->hint, "0 or 1"));
  EXPECT_NE(testing::find_error(errors, "tunables[4].range"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "tunables[5].values"), nullptr) << to_string(errors);
}

TEST(ProblemSpecChecks, ScalarAndBufferKeysAreNotMixed) {
  auto errors = inline_errors(output_arg +
                              "[[args]]\nname = \"s\"\ndtype = \"i32\"\nvalue = 1\nrole = \"input\"\n"
                              "[[args]]\nname = \"b\"\ndtype = \"f32\"\ncount = 4\nrole = \"input\"\nvalue = 2\n"
                              "[[args]]\nname = \"f\"\ndtype = \"i32\"\nvalue = 1.5\n" +
                              launch);
  EXPECT_NE(testing::find_error(errors, "args[1].role"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "args[2].value"), nullptr) << to_string(errors);
  const auto* float_for_int = testing::find_error(errors, "args[3].value");
  ASSERT_NE(float_for_int, nullptr) << to_string(errors);
  EXPECT_TRUE(contains(float_for_int->message, "integer dtype i32"));
}

TEST(ProblemSpecChecks, InitDistributionsAreValidated) {
  auto errors = inline_errors(
    output_arg +
    "[[args]]\nname = \"a\"\ndtype = \"f32\"\ncount = 4\nrole = \"input\"\ninit = { kind = \"uniform\", low = 1.0, high = 1.0 }\n"
    "[[args]]\nname = \"b\"\ndtype = \"f32\"\ncount = 4\nrole = \"input\"\ninit = { kind = \"normal\", stddev = 0.0 }\n"
    "[[args]]\nname = \"c\"\ndtype = \"f32\"\ncount = 4\nrole = \"input\"\ninit = \"constant\"\n"
    "[[args]]\nname = \"d\"\ndtype = \"f32\"\ncount = 4\nrole = \"input\"\ninit = \"gaussian\"\n"
    "[[args]]\nname = \"e\"\ndtype = \"f32\"\ncount = 4\nrole = \"input\"\ninit = { kind = \"zeros\", value = 1 }\n" +
    launch);
  EXPECT_NE(testing::find_error(errors, "args[1].init"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "args[2].init"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "args[3].init"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "args[4].init"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "args[5].init.value"), nullptr) << to_string(errors);
}

TEST(ProblemSpecChecks, LaunchNeedsOneToThreeDimensionsAndAnArch) {
  auto errors = parse_problem("name = \"x\"\n[kernel]\nsource = \"kernel.cu\"\nentry = \"scale\"\n"
                              "arch = \"hopper\"\n" +
                                output_arg + "[launch]\ngrid = [1, 1, 1, 1]\nblock = []\n",
                              fixture("inline.toml"));
  ASSERT_FALSE(errors.has_value());
  EXPECT_NE(testing::find_error(errors.error(), "kernel.arch"), nullptr);
  EXPECT_NE(testing::find_error(errors.error(), "launch.grid"), nullptr);
  EXPECT_NE(testing::find_error(errors.error(), "launch.block"), nullptr);
}

TEST(ProblemSpecChecks, MissingTablesAndWrongTypesAreReported) {
  auto spec = parse_problem("name = 7\nkernel = \"k.cu\"\n", fixture("inline.toml"));
  ASSERT_FALSE(spec.has_value());
  const auto& errors = spec.error();
  const auto* name = testing::find_error(errors, "name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->message, "expected a string, found an integer");
  EXPECT_NE(testing::find_error(errors, "kernel"), nullptr);
  EXPECT_NE(testing::find_error(errors, "args"), nullptr);
  EXPECT_NE(testing::find_error(errors, "launch"), nullptr);
}

TEST(ProblemSpecChecks, ReferenceKernelNeedsSourceAndEntryAndTakesItsOwnLaunch) {
  auto errors = inline_errors(output_arg + launch +
                              "[reference]\nkind = \"kernel\"\nsource = \"kernel.cu\"\n"
                              "[reference.launch]\ngrid = [\"1 / 0\"]\nblock = [32]\n");
  EXPECT_NE(testing::find_error(errors, "reference.entry"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "reference.launch.grid[0]"), nullptr) << to_string(errors);
}

TEST(ProblemSpecChecks, ReferenceKeysDependOnItsKind) {
  auto errors = inline_errors(output_arg + launch +
                              "[reference]\nkind = \"self\"\nsource = \"kernel.cu\"\nrtol = -1.0\n");
  EXPECT_NE(testing::find_error(errors, "reference.source"), nullptr) << to_string(errors);
  EXPECT_NE(testing::find_error(errors, "reference.rtol"), nullptr) << to_string(errors);
}

// --- [reference] allow_lower_precision (issue 21) ----------------------------------------------

problem_spec inline_spec(const std::string& body) {
  auto spec = parse_problem("name = \"inline\"\n[kernel]\nsource = \"kernel.cu\"\nentry = \"scale\"\n" + body,
                            fixture("inline.toml"));
  EXPECT_TRUE(spec.has_value()) << to_string(spec.error());
  return spec ? *spec : problem_spec{};
}

TEST(ProblemSpecLowerPrecision, UnsetItIsNoneAndGivenItIsRead) {
  EXPECT_EQ(inline_spec(output_arg + launch).reference.allow_lower_precision, std::nullopt);
  EXPECT_EQ(inline_spec(output_arg + launch + "[reference]\nkind = \"self\"\nallow_lower_precision = true\n")
                .reference.allow_lower_precision,
            std::optional<bool>{true});
  EXPECT_EQ(inline_spec(output_arg + launch + "[reference]\nkind = \"self\"\nallow_lower_precision = false\n")
                .reference.allow_lower_precision,
            std::optional<bool>{false});
}

TEST(ProblemSpecLowerPrecision, ANonBooleanOrAnIntegerProblemIsAPlacedError) {
  auto errors = inline_errors(output_arg + launch + "[reference]\nkind = \"self\"\nallow_lower_precision = \"yes\"\n");
  EXPECT_NE(testing::find_error(errors, "reference.allow_lower_precision"), nullptr) << to_string(errors);
  const std::string integer_output = "[[args]]\nname = \"y\"\ndtype = \"i32\"\ncount = 64\nrole = \"output\"\n";
  errors = inline_errors(integer_output + launch + "[reference]\nkind = \"self\"\nallow_lower_precision = true\n");
  const auto* error = testing::find_error(errors, "reference.allow_lower_precision");
  ASSERT_NE(error, nullptr) << to_string(errors);
  EXPECT_TRUE(contains(to_string(*error), "no float output")) << to_string(*error);
}

// --- [work] flop (issue 21: the physical-limit gate's compute floor) ------------------------------

TEST(ProblemSpecWork, FlopIsAnExpressionOfTheDimsResolvedAtEachPoint) {
  auto spec = inline_spec("[dims]\nN = 64\n" + output_arg + launch + "[work]\nflop = \"2 * N * N * N\"\n");
  ASSERT_TRUE(spec.flop.has_value());
  EXPECT_EQ(spec.flop->key, "work.flop");
  auto resolved = resolve_problem(spec, {});
  ASSERT_TRUE(resolved) << to_string(resolved.error());
  EXPECT_EQ(resolved->flop, std::optional<std::int64_t>{2 * 64 * 64 * 64});
  EXPECT_EQ(inline_spec(output_arg + launch).flop, std::nullopt);
}

TEST(ProblemSpecWork, AFlopThatIsNotPositiveOrAnUnknownKeyIsAPlacedError) {
  auto errors = inline_errors("[dims]\nN = 64\n" + output_arg + launch + "[work]\nflop = \"N - 64\"\n");
  const auto* error = testing::find_error(errors, "work.flop");
  ASSERT_NE(error, nullptr) << to_string(errors);
  EXPECT_TRUE(contains(to_string(*error), "must be positive")) << to_string(*error);
  errors = inline_errors(output_arg + launch + "[work]\nbytes = 1\n");
  EXPECT_NE(testing::find_error(errors, "work.bytes"), nullptr) << to_string(errors);
}

} // namespace
} // namespace warpforge::config
