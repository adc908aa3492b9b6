// flag_keys.cpp: which config key each GPT verb's flag stands for (cli/verbs.h, flag_keys()). Its
// own file because model_args.cpp reads it, and the web build's node_bench links model_args
// without the CLI's verb table.
#include "cli/verbs.h"

namespace wlcli {

const std::vector<FlagKeys>& flag_keys() {
    static const std::vector<FlagKeys> rows = {
        {"train", "data", "train_input.data", "train_input.corpus=file"},
        {"train", "corpus", "train_input.corpus"},
        {"train", "steps", "runconfig.max_steps"},
        {"train", "mesh", "wafer.mesh"},
        {"train", "arch", "wafer.arch"},
        {"train", "mode", "wafer.mode"},
        {"train", "execution", "wafer.execution"},
        {"generate", "mesh", "wafer.mesh"},
        {"generate", "arch", "wafer.arch"},
        {"generate", "execution", "wafer.execution"},
        {"compile-model", "mesh", "wafer.mesh"},
        {"compile-model", "arch", "wafer.arch"},
        {"compile-model", "execution", "wafer.execution"},
        {"forward", "mesh", "wafer.mesh"},
        {"forward", "arch", "wafer.arch"},
        {"forward", "execution", "wafer.execution"},
        {"forward", "mode", "wafer.mode"},
        {"bench mesh-gpt", "mesh", "wafer.mesh"},
        {"bench mesh-gpt", "arch", "wafer.arch"},
        {"bench swarmx", "mesh", "wafer.mesh"},
        {"bench swarmx", "arch", "wafer.arch"},
        {"bench sparsity", "mesh", "wafer.mesh"},
        {"bench sparsity", "arch", "wafer.arch"},
        {"bench sparsity", "mode", "wafer.mode"},
    };
    return rows;
}

}  // namespace wlcli
