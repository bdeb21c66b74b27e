// warpforge: the coordinator. Everything happens in cli/.
#include "cli/app.hpp"

int main(int argc, char** argv) {
  return warpforge::cli::run_command_line(argc, argv);
}
