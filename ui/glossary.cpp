#include "ui/glossary.h"

#include "engine/fabric/program.h"
#include "ui/canvas_model.h"

#include <string>
#include <vector>

namespace wlui {

const char* glossary(std::string_view term) {
    struct Entry {
        const char* term;
        std::string text;
    };
    // The machine's figures come from its one description (engine/fabric/wafer.h, program.h).
    static const std::vector<Entry> kEntries = [] {
    const std::string sram = format_bytes(wl::kSramBytesPerPe), colours = std::to_string(wl::kColours),
                      last_colour = std::to_string(wl::kColours - 1), last_task = std::to_string(wl::kMaxTasks - 1);
    return std::vector<Entry>{
        {"program", "the program placed on this PE by the kernel's layout, with its parameters"},
        {"id", "the task's id: a data task's id is its colour (0.." + last_colour + "); local tasks are " + colours + ".." + last_task},
        {"task", "a piece of code the PE runs when it is triggered: by a wavelet (data task) or by activate (local task)"},
        {"kind", "data: runs once per wavelet on its colour; local: runs when activated; control: runs on a control wavelet"},
        {"colour", "one of " + colours + " virtual channels of the fabric; every wavelet carries one, and routes are set per colour"},
        {"state", "idle: nothing to do; active: ready, waiting for the CE; blocked: will not run until unblocked; running: on the CE now"},
        {"queued", "wavelets waiting in the CE queue for this task's colour"},
        {"route rx > tx", "how this PE's router forwards the colour: the ports it receives from > the ports it sends to "
                          "(several positions: a control wavelet advances to the next)"},
        {"router buffers", "wavelets waiting in the router's input queues, by the port they came in on"},
        {"CE queue", "wavelets the router passed down the ramp, waiting for the compute engine (CE) to take them, head first"},
        {"fwd", "wavelets of this colour the router has forwarded so far"},
        {"busy", "cycles the compute engine (CE) spent running instructions, and the share of all cycles"},
        {"stall", "cycles the CE waited: for a wavelet to arrive, for room on the ramp, or for a free microthread"},
        {"instrs", "instructions the CE issued"},
        {"tasks", "tasks the CE started"},
        {"elements", "vector elements processed by vector ops (fmacs, fmovs, ...): one per element of the DSD"},
        {"sent", "wavelets the CE sent up the ramp into the fabric"},
        {"received", "wavelets the CE took from its queues"},
        {"router stalls", "colour-cycles a wavelet could not move because the next queue was full"},
        {"wavelets", "32-bit messages between routers: counted per port, in and out"},
        {"in", "wavelets that arrived at the router through the port"},
        {"out", "wavelets the router sent out through the port"},
        {"N", "the port to the north neighbour (y - 1)"},
        {"S", "the port to the south neighbour (y + 1)"},
        {"E", "the port to the east neighbour (x + 1)"},
        {"W", "the port to the west neighbour (x - 1)"},
        {"RAMP", "the port between the router and its own PE's compute engine: up to send, down to receive"},
        {"symbol", "a variable of the program in this PE's SRAM (" + sram + ")"},
        {"address", "the byte address in this PE's SRAM"},
        {"value", "what the SRAM holds there, read as the symbol's type (or the format chosen above)"},
        {"microthread", "one of " + std::to_string(wl::kMicrothreads) + " per PE that run async vector ops while the main thread goes on"},
        {"model", "the GPT configuration whose training step (or forward pass) both machines run (models/*.yaml)"},
        {"GPU", "the modelled GPU: its peak FLOP/s, memory bandwidth and kernel-launch cost (docs/gpu-model.md)"},
        {"profile", "how well the GPU software uses it: precision and the efficiency assumed for matmuls, memory and attention"},
        {"batch (0: config)", "sequences per micro-batch on each GPU; 0 takes the batch size from the model's config file"},
        {"GPUs", "how many GPUs share the step (data parallel); the gradients are then all-reduced between them"},
        {"inference", "on: a forward pass only; off: a training step (forward, backward and the optimiser)"},
        {"wafer weights", "by fit: streamed only when they do not fit SRAM; resident: every weight in the PEs' SRAM; "
                          "streaming: each layer's weights come in over the wafer's I/O once per micro-batch "
                          "(docs/weight-streaming.md)"},
        {"sparsity", "the fraction of the blocks' linear weights that are zero: the wafer's matmuls skip them; the "
                     "GPU's dense kernels do not, and only 2:4 structured sparsity doubles its tensor-core math "
                     "(docs/gpu-model.md)"},
        {"the run on screen", "on: the comparison is of the Model window's GPT (its training run, or else its compiled "
                              "model): its config, vocabulary, mesh, batch and weights, and its measured step; off: the "
                              "model and settings picked here"},
        {"measured", "the run's last training step as the emulator timed it: its wafer cycles (the slowest wafer's launches, "
                     "streams and SwarmX) at the WSE clock. The analytical estimate above is the cost model's for the same "
                     "step on the same mesh"},
        {"log scale", "on: bar lengths on a log axis over six decades, so small ops stay visible; off: lengths proportional to time"},
        {"compute-bound", "the op's time is set by arithmetic: FLOPs / (peak FLOP/s x efficiency) is its largest term"},
        {"memory-bound", "the op's time is set by moving data: bytes / (memory bandwidth x efficiency) is its largest term"},
        {"launch-bound", "the op is so small that the fixed cost of starting its GPU kernels (a few microseconds each) dominates"},
        {"roofline", "achieved FLOP/s against arithmetic intensity (FLOPs per byte moved); the lines are each machine's limit: "
                     "bandwidth x intensity on the left, peak FLOP/s on the right"},
        // The Wafer vs GPU window's kernel view (engine/gpu/kernel_compare.h).
        {"this kernel", "the loaded kernel's finished run on the emulated mesh, against the same operation (its counted FLOPs "
                        "and bytes) on the modelled GPU"},
        {"GPT step", "a GPT training step (or a forward pass) on the modelled GPU, against the wafer's analytical estimate"},
        {"cycles", "how many clock cycles the run took on the emulated mesh, from launch to the end of the host block"},
        {"WSE clock", "the wafer's clock frequency: cycles divided by it give seconds (the figure Cerebras gave at Hot Chips 34)"},
        {"wafer time", "the run's cycles divided by the WSE clock: how long the kernel would take on a wafer"},
        {"FLOPs", "floating-point operations the run's vector ops did, counted by the emulator: 2 per fmacs element (a "
                  "multiply and an add), 1 per element of fadds, fmuls, fexps and the other arithmetic ops, 0 for fmovs "
                  "(a copy). Scalar instructions are not counted"},
        {"bytes in and out", "the operation's inputs and outputs: what the host block's fill copied onto the PEs and its "
                             "print read back. A GPU doing the same operation must move at least these through its memory"},
        {"SRAM traffic", "bytes the vector ops read from and wrote to the PEs' SRAM (4 per memory operand per element); a "
                         "GPU keeps most such reuse in registers and caches, so it is not what the GPU is charged"},
        {"link wavelets", "32-bit wavelets that crossed a link from one PE's router to a neighbour's"},
        {"GPU time", "the GPU model's time for the same FLOPs and bytes as one kernel: max(FLOPs / (fp32 peak x efficiency), "
                     "bytes / (memory bandwidth x efficiency)) + the launch overhead"},
        {"launch overhead", "the fixed time the host needs to start one GPU kernel (a few microseconds), paid however little "
                            "the kernel does"},
        {"time axis", "seconds, linear from 0: the wafer's measured time and the GPU's modelled time share one scale"},
        // The Train section's words (the guide beside a training run).
        {"resident", "every layer's ops have PEs of their own, and their weights, gradients and AdamW moments stay in "
                     "those PEs' SRAM for the whole run: nothing moves on or off the wafer but the batches"},
        {"streaming", "weight streaming: one layer's ops serve every layer in turn. Before each, that layer's weights "
                      "stream in over the mesh's edge, and after its backward its gradients stream out; AdamW runs on "
                      "them in the store off the wafer (docs/weight-streaming.md)"},
        {"wafers", "data parallelism: each wafer (a whole emulated mesh) takes its share of the step's batch; SwarmX sums "
                   "their gradients and sends the sum back, so every wafer makes the same update"},
        {"grad norm", "the length (L2 norm) of all the gradients together, summed over the PEs that hold weights; when it "
                      "is over the config's grad_clip every gradient is scaled down to it, so one odd batch cannot throw "
                      "the weights far"},
        {"TRAIN = 1", "a switch in the op's kernel file: set to 1, the kernel is compiled with its backward and AdamW code "
                      "as well as its forward (0: the forward only, for inference)"},
        {"models/kernels/", "the kernel files the GPT is built from (matmul.wk, attention.wk, layernorm.wk, ...), in the "
                            "same language as the examples: the Model window opens any op's kernel in the editor"},
        {"tokens/s (wall)", "tokens trained per second of real time in this tab: the emulator's work plus drawing the page "
                            "and everything else the tab does between frames"},
        {"emulator alone", "tokens per second of the time spent emulating the mesh only, so it is higher than the wall "
                           "figure. Neither is the wafer's own speed: that is the wafer time per step (its cycles at the "
                           "WSE clock)"},
        // The run modes, in docs/engine.md's words (Fast mode).
        {"cycle mode", "every router and compute engine steps each cycle: the cycle counts are exact (the truth fast mode "
                       "is checked against), and you can step and watch wavelets hop. Switching reloads the kernel at cycle 0"},
        {"fast mode", "functional: each PE runs until it blocks, and a fabric vector op moves its whole vector at once. The "
                      "results are cycle mode's (unless they depend on timing); the cycles are an estimate. Stepping and the "
                      "wavelet animation are cycle mode's. Switching reloads the kernel at cycle 0"},
        {"estimated", "fast mode's estimate: a wavelet sent at cycle s over h links arrives at s + h + 2, and a task starts at "
                      "the later of its PE's clock and its input; link contention and full queues are not modelled, so it can "
                      "read low (within 10% on every example). Cycle mode gives the exact count"},
        {"% of peak", "the share of the GPU's peak FLOP/s the whole step achieves (model FLOPs utilisation)"},
        {"mesh", "the emulated wafer's size in PEs: the analytical estimate's, and the mesh the forward pass is compiled onto "
                 "and measured on"},
        {"emulated", "the forward pass compiled onto the emulated mesh and run there, op by op (models/kernels/): measured in "
                     "fast mode, whose cycles are estimated from timestamps carried on the wavelets (docs/engine.md), then timed "
                     "at the clock; a batch of B counts as B sequences one after another"},
    };
    }();
    for (const Entry& e : kEntries)
        if (term == e.term) return e.text.c_str();
    return nullptr;
}

}  // namespace wlui
