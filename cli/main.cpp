// waferlab-cli: the headless front door to the engine.
//   waferlab-cli <verb> [args] [--json]      (waferlab-cli help: the verbs; <verb> --help: its flags)
// Every verb drives the same engine API as the app and the tests.
#include "cli/command_line.h"
#include "cli/mpi_bands.h"

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
    using namespace wlcli;
    CommandLine cl = parse_command_line(verb_table(), argc, argv);
    std::fputs(cl.out.c_str(), stdout);
    std::fputs(cl.err.c_str(), stderr);
    if (!cl.verb) return cl.status;
    if (under_mpirun() && cl.args.verb != "run" && cl.args.verb != "check" && cl.args.verb != "train" && cl.args.verb != "bench scale") {
        // every rank would do it all, and say it
        std::fprintf(stderr, "waferlab-cli %s: error: under mpirun only run (and check), train --on-mesh --wafers N and bench scale split the work over the ranks (docs/scale.md)\n",
                     cl.args.verb.c_str());
        return 2;
    }
    try {
        return cl.verb->run(cl.args);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "waferlab-cli %s: error: %s\n", cl.args.verb.c_str(), e.what());   // the whole verb: "lesson check", not "check"
        return 1;
    }
}
