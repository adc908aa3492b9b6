// output_path.h: the one check a verb's output file passes before anything is computed for it.
// The output must not be a file the verb reads (the same file by any name: ./x, a link), and a
// file already at that path must be of the output's own kind, which it then replaces (a
// checkpoint replaces a checkpoint, atomically). Otherwise the verb stops naming both paths, so
// `train --data precious.txt --out precious.txt` costs nobody their text.
#pragma once
#include <string>
#include <vector>

namespace wlcli {

struct NamedPath {
    std::string flag;   // "--data", or "the config's train_input.data"
    std::string path;
};

// What an output is, by the bytes every file of its kind begins with.
struct OutputKind {
    const char* name;        // "checkpoint"
    const char* signature;   // "WLGPTCKP"
};
inline constexpr OutputKind kCheckpointOutput{"checkpoint", "WLGPTCKP"};
inline constexpr OutputKind kSvgOutput{"SVG plot", "<svg"};
inline constexpr OutputKind kCsvOutput{"op table CSV", "op,tensor,layer,"};

// Throws std::runtime_error naming `out` and the input it would overwrite, or the kind of file it is not.
void guard_output(const NamedPath& out, const OutputKind& kind, const std::vector<NamedPath>& inputs);

}  // namespace wlcli
