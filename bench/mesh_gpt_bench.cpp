// mesh_gpt_bench.cpp: `waferlab-cli bench mesh-gpt` for the web build, run under node
// (the CLI itself is native only). Same arguments and JSON as the CLI verb.
#include "cli/verbs.h"

int main(int argc, char** argv) { return wlcli::bench_mesh_gpt(wlcli::Args::parse(argc, argv, 1)); }
