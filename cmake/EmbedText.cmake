# cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DVARIABLE=<name> -P EmbedText.cmake
# Writes the input's bytes as a char array (hex, so any content is safe) and a string_view on it.
file(READ "${INPUT}" content HEX)
string(LENGTH "${content}" hex_length)
math(EXPR byte_count "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
file(WRITE "${OUTPUT}"
  "// Generated from ${INPUT} by cmake/EmbedText.cmake; edit the data file, not this.\n"
  "#include <string_view>\n"
  "namespace warpforge::embedded {\n"
  "namespace { const unsigned char data[] = {${bytes} 0}; }\n"
  "extern const std::string_view ${VARIABLE};\n"
  "const std::string_view ${VARIABLE}{reinterpret_cast<const char*>(data), ${byte_count}};\n"
  "}\n")
