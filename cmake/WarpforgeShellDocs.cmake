# The bash and zsh completions and the man page of `warpforge`, written from the command line's
# own definition (apps/warpforge/cli/command_tree.hpp, apps/warpforge/cli/shell_docs.hpp) each time the executable links, so
# they never drift from --help. They land beside the executable, in the bundle's layout:
#   <dir of warpforge>/share/bash-completion/completions/warpforge
#   <dir of warpforge>/share/zsh/site-functions/_warpforge
#   <dir of warpforge>/share/man/man1/warpforge.1
# and are installed with the coordinator component (scripts/bundle.sh) under the same paths.
# Nothing outside the build is needed (no help2man): the executable writes them itself through a
# hidden option, `warpforge --generate-shell-docs <bash|zsh|man> <file>`.
include_guard(GLOBAL)

function(warpforge_shell_docs target)
  set(share "$<TARGET_FILE_DIR:${target}>/share")
  set(bash_file "${share}/bash-completion/completions/warpforge")
  set(zsh_file "${share}/zsh/site-functions/_warpforge")
  set(man_file "${share}/man/man1/warpforge.1")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND $<TARGET_FILE:${target}> --generate-shell-docs bash "${bash_file}"
    COMMAND $<TARGET_FILE:${target}> --generate-shell-docs zsh "${zsh_file}"
    COMMAND $<TARGET_FILE:${target}> --generate-shell-docs man "${man_file}"
    COMMENT "warpforge: bash and zsh completion and the man page, from the command line definition"
    VERBATIM)
  install(FILES "${bash_file}" DESTINATION share/bash-completion/completions COMPONENT coordinator)
  install(FILES "${zsh_file}" DESTINATION share/zsh/site-functions COMPONENT coordinator)
  install(FILES "${man_file}" DESTINATION share/man/man1 COMPONENT coordinator)
endfunction()
