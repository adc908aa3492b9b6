// output_guard.h: the one check a file the program writes passes before anything is computed
// for it: a CLI verb's output (`train --out`, `compare --csv`), and the app's saves (a kernel's
// Save as, a PNG, a stats CSV, a training checkpoint). The output must not be a file being read
// (the same file by any name: ./x, a link), and a file already at that path must be of the
// output's own kind, which it then replaces (a checkpoint replaces a checkpoint, atomically).
// Otherwise it stops naming both paths, so `train --data precious.txt --out precious.txt` costs
// nobody their text.
#pragma once
#include <string>
#include <vector>

namespace wl {

struct NamedPath {
    std::string flag;   // "--data", "the config's train_input.data", "Save as"
    std::string path;
};

// What an output is: by the bytes every file of its kind begins with, or where a kind has none
// (a kernel is any text), by the end of its name.
struct OutputKind {
    const char* name;                  // "checkpoint"
    const char* signature;             // "WLGPTCKP", or nullptr
    const char* extension = nullptr;   // ".wk", when there is no signature
};
inline constexpr OutputKind kCheckpointOutput{"checkpoint", "WLGPTCKP"};
inline constexpr OutputKind kSvgOutput{"WaferLab SVG plot", "<!-- a WaferLab plot"};   // what sparsity_svg writes first
inline constexpr OutputKind kCsvOutput{"op table CSV", "op,tensor,layer,"};
inline constexpr OutputKind kStatsCsvOutput{"PE statistics CSV", "x,y,program,"};
inline constexpr OutputKind kTimelineCsvOutput{"timeline CSV", "cycle,busy,"};
inline constexpr OutputKind kPngOutput{"PNG image", "\x89PNG"};
inline constexpr OutputKind kKernelOutput{"kernel (.wk)", nullptr, ".wk"};

// Throws std::runtime_error naming `out` and the input it would overwrite, or the kind of file it is not.
void guard_output(const NamedPath& out, const OutputKind& kind, const std::vector<NamedPath>& inputs);

// Whether a and b are one existing file (by any name).
bool same_file(const std::string& a, const std::string& b);

}  // namespace wl
