# One helper per kind of target, so every library and test suite is built the same way.

set(WARPFORGE_WARNINGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)

# warpforge_library(<folder> SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
# Builds lib `warpforge_<folder>` (alias warpforge::<folder>) from the folder's explicit sources.
# Headers are included as "<folder>/<file>.hpp" from the repository root.
function(warpforge_library folder)
  cmake_parse_arguments(arg "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(target warpforge_${folder})
  add_library(${target} ${arg_SOURCES})
  add_library(warpforge::${folder} ALIAS ${target})
  target_include_directories(${target} PUBLIC "${PROJECT_SOURCE_DIR}")
  target_compile_options(${target} PRIVATE ${WARPFORGE_WARNINGS})
  target_link_libraries(${target} PUBLIC ${arg_DEPS} PRIVATE ${arg_PRIVATE_DEPS})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# warpforge_test_suite(<name> SOURCES ... DEPS ... [LABELS ...] [TIMEOUT s])
# One GoogleTest binary per library (fewer links on 2 CI cores); one ctest per test case.
# A case that calls GTEST_SKIP() is reported by ctest as skipped, never as passed.
function(warpforge_test_suite name)
  cmake_parse_arguments(arg "" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 120)
  endif()
  if(NOT arg_LABELS)
    set(arg_LABELS cpu)
  endif()
  add_executable(${name} ${arg_SOURCES})
  target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}")
  target_compile_options(${name} PRIVATE ${WARPFORGE_WARNINGS})
  target_compile_definitions(${name} PRIVATE
    WARPFORGE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    WARPFORGE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  target_link_libraries(${name} PRIVATE ${arg_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  # gtest_discover_tests flattens its PROPERTIES, so several labels ("gpu;cheat") would become
  # stray property names: it gets the first, and a script ctest reads after the discovered tests
  # gives every test of the binary (<name>_TESTS, the list discovery sets) all of them.
  list(GET arg_LABELS 0 first_label)
  list(LENGTH arg_LABELS label_count)
  if(label_count GREATER 1)
    set(labels_script "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
    file(WRITE "${labels_script}"
      "if(${name}_TESTS)\n  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${arg_LABELS}\")\nendif()\n")
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${arg_TIMEOUT} LABELS "${first_label}"
               SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
  if(label_count GREATER 1) # after gtest_discover_tests' own include file
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_script}")
  endif()
endfunction()

# warpforge_embed_text(<target> <variable> <file>)
# Compiles a data file (a signature table, a rule matrix, a schema) into <target> as
#   extern const std::string_view <variable>;   (namespace warpforge::embedded)
# so the bundle carries its data with no path to look up. The file stays the one source of truth:
# editing it rebuilds the target. Declare the variable where it is used.
function(warpforge_embed_text target variable file)
  get_filename_component(source "${file}" ABSOLUTE)
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/embedded_${variable}.cpp")
  add_custom_command(
    OUTPUT "${generated}"
    COMMAND "${CMAKE_COMMAND}" -DINPUT=${source} -DOUTPUT=${generated} -DVARIABLE=${variable}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake"
    DEPENDS "${source}" "${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake"
    COMMENT "Embedding ${file}")
  target_sources(${target} PRIVATE "${generated}")
endfunction()
