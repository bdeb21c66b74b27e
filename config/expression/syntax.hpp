#pragma once
// Internal to config/expression/: the two languages as data, the tree, and the one parser.
//
// Both languages share the grammar, the precedence and every error message; they differ only in
// what this table says (`language`). Lowest precedence first; binary operators are
// left-associative, and comparisons do not chain ("a < b < c" is an error, "(a < b) == c" is not):
//
//   or       := and (OR and)*                    OR  = '||' (symbols) | 'or'  (words)
//   and      := not (AND not)*                   AND = '&&' (symbols) | 'and' (words)
//   not      := 'not' not | equality             words only: looser than comparisons (Python)
//   equality := relation (('==' | '!=') relation)?
//   relation := sum (('<' | '<=' | '>' | '>=') sum)?
//   sum      := product (('+' | '-') product)*
//   product  := unary (('*' | '/' | '%') unary)*
//   unary    := ('-' | '+' | '!') unary | primary '!' symbols only: a unary operator (C)
//   primary  := number | name | name '(' arguments ')' | '(' or ')'
//
// Names are C identifiers; with word logic, `and`, `or` and `not` are reserved. Numbers are
// decimal with optional '_' separators (1_048_576); real numbers may have a fraction and an
// exponent (.5, 1.5e-3). The other logic spelling is an error that names the right one.

#include "foundation/expected/expected.hpp"
#include "config/expression/error.hpp"
#include "config/expression/expression.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::expression::syntax {

enum class number_syntax : std::uint8_t {
  integer, // digits: int64, an overflowing literal is an error
  real,    // digits, fraction, exponent: double
};

enum class logic_spelling : std::uint8_t {
  symbols, // && || !   (C, for specs)
  words,   // and or not (the rule matrix)
};

enum class name_check : std::uint8_t {
  when_reached,      // a name is looked up when evaluation reaches it: "0 && X" is 0 without X
  before_evaluation, // every name must have a value first; all missing ones are listed
};

enum class function : std::uint8_t { ceil_div, round_up, min, max, pow, pow2, log2 };

struct function_info {
  std::string_view name;
  function fn;
  std::size_t arity;
};

struct language {
  number_syntax numbers;
  logic_spelling logic;
  bool typed; // numbers and truth values kept apart, checked at parse time
  name_check names;
  std::span<const function_info> functions;
};

/// Spec expressions: int64, C operators, untyped (a comparison is 1 or 0), names looked up when
/// reached, the integer functions (ceil_div, round_up, min, max, pow, pow2, log2).
extern const language integer_language;
/// Metric formulas and rule conditions: doubles, and/or/not, typed, every name needed, no
/// functions.
extern const language real_language;

enum class operation : std::uint8_t {
  number, name, call,                                               // leaves and calls
  negate, logical_not,                                              // unary
  add, subtract, multiply, divide, modulo,                          // arithmetic
  less, less_equal, greater, greater_equal, equal, not_equal,       // comparisons
  logical_and, logical_or,                                          // logic, short-circuit
};

/// The operator as the language writes it, for messages: "+", "&&" or "and".
std::string_view spelling(operation op, const language& lang);

struct node {
  operation op = operation::number;
  std::int64_t integer = 0;    // number, integer language
  double real = 0.0;           // number, real language
  std::string name;            // name; call: the function's name
  function fn = function::min; // call
  std::vector<node> operands;  // unary: 1, binary: 2, call: its arguments
  std::uint32_t column = 0;    // 1-based column of the token, for errors
};

struct tree {
  std::shared_ptr<const node> root; // shared: expressions are copied, never changed
  result_type type = result_type::number;
  std::vector<name_reference> references; // every name, in text order
};

expected<tree, error> parse(std::string_view text, const language& lang);

} // namespace warpforge::expression::syntax
