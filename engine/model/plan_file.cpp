// plan_file.cpp: see plan_file.h.
//
// Index: [SECTION] envelope  [SECTION] compile results  [SECTION] the plan
#include "engine/model/plan_file.h"

#include "engine/model/plan_check.h"

#include "engine/core/byte_io.h"
#include "engine/core/fnv.h"
#include "engine/core/source_fingerprint.h"
#include "engine/core/version.h"
#include "engine/fabric/mesh.h"
#include "engine/fabric/program_file.h"

#include <cstring>
#include <unordered_map>

namespace wl::model {

namespace {

constexpr char kMagic[8] = {'W', 'L', 'P', 'L', 'A', 'N', '\r', '\n'};

uint64_t checksum(std::string_view b) {
    Fnv1a f;
    f.add(b.data(), b.size());
    return f.value();
}

// A field read back must be in [lo, hi], or the file is refused naming it.
int in_range(int v, int lo, int hi, const char* what) {
    if (v < lo || v > hi)
        throw ByteError(std::string(what) + " is " + std::to_string(v) + ", outside " + std::to_string(lo) + ".." +
                        std::to_string(hi));
    return v;
}

// [SECTION] envelope

void write_key(ByteWriter& w, const PlanKey& k) {
    const PlanShape& s = k.shape;
    for (int v : {s.n_layer, s.n_head, s.n_embd, s.block_size, s.vocab_size, s.mesh_w, s.mesh_h}) w.i32(v);
    w.u32(s.sram_bytes);
    w.u8(s.train);
    w.u8(s.streaming);
    w.i32(s.sequences);
    w.u32(uint32_t(k.kernels.size()));
    for (const auto& [name, h] : k.kernels) {
        w.str(name);
        w.u64(h);
    }
}

PlanKey read_key(ByteReader& r) {
    PlanKey k;
    PlanShape& s = k.shape;
    for (int* v : {&s.n_layer, &s.n_head, &s.n_embd, &s.block_size, &s.vocab_size})
        *v = in_range(r.i32("the model's shape"), 1, 1 << 24, "a model dimension");
    s.mesh_w = in_range(r.i32("mesh width"), 1, kMaxMeshSide, "the mesh's width");
    s.mesh_h = in_range(r.i32("mesh height"), 1, kMaxMeshSide, "the mesh's height");
    s.sram_bytes = r.u32("SRAM per PE");
    s.train = r.boolean("planned for training");
    s.streaming = r.boolean("streaming execution");
    s.sequences = in_range(r.i32("sequences in flight"), 1, 16, "the sequences in flight");
    k.kernels.resize(r.count("kernel files", 12));
    for (auto& [name, h] : k.kernels) {
        name = r.str("kernel file name");
        h = r.u64("kernel source hash");
    }
    return k;
}

// The payload, once the envelope says it is this build's and whole; "" or why not.
std::string open_envelope(std::string_view bytes, std::string_view* payload, uint64_t* key) {
    try {
        ByteReader r(bytes);
        if (bytes.size() < sizeof kMagic || std::memcmp(r.raw(sizeof kMagic, "magic").data(), kMagic, sizeof kMagic))
            return "is not a plan file";
        const uint32_t format = r.u32("format version");
        if (format != kPlanFileFormat)
            return "was written in format " + std::to_string(format) + "; this build reads format " +
                   std::to_string(kPlanFileFormat);
        const std::string engine = r.str("engine version");
        if (engine != version()) return "was written by engine " + engine + "; this is " + version();
        if (r.str("source fingerprint") != source_fingerprint())
            return "was written by another build of the engine (its sources differ)";
        *key = r.u64("key");
        const uint64_t size = r.u64("payload size"), sum = r.u64("payload checksum");
        if (size > r.left()) return "is truncated (" + std::to_string(r.left()) + " of " + std::to_string(size) + " bytes)";
        if (size < r.left()) return "is corrupt (" + std::to_string(r.left() - size) + " bytes past its end)";
        *payload = r.raw(size_t(size), "payload");
        if (checksum(*payload) != sum) return "is corrupt (its checksum does not match)";
        return "";
    } catch (const ByteError& e) {
        return std::string("is truncated: ") + e.what();
    }
}

// [SECTION] routes (a kernel's, and the plan's links between ops)

void write_routes(ByteWriter& w, const std::vector<lang::RouteSetting>& routes) {
    w.u32(uint32_t(routes.size()));
    for (const lang::RouteSetting& s : routes) {
        for (int v : {s.x, s.y, s.colour}) w.i32(v);
        w.u8(s.route.npos);
        for (const SwitchPos& p : s.route.pos) {
            w.u8(p.rx);
            w.u8(p.tx);
        }
    }
}

// inside(x, y, 1, 1, what) throws for a route outside the grid it belongs to.
template <class Inside>
std::vector<lang::RouteSetting> read_routes(ByteReader& r, const Inside& inside) {
    std::vector<lang::RouteSetting> routes(r.count("routes", 21));
    for (lang::RouteSetting& s : routes) {
        s.x = r.i32("route x");
        s.y = r.i32("route y");
        s.colour = in_range(r.i32("route colour"), 0, kColours - 1, "a route's colour");
        inside(s.x, s.y, 1, 1, "a route");
        s.route.npos = uint8_t(in_range(r.u8("switch positions"), 0, kMaxSwitchPositions, "a route's switch positions"));
        for (SwitchPos& p : s.route.pos) {
            p.rx = uint8_t(in_range(r.u8("route rx"), 0, 31, "a route's rx ports"));
            p.tx = uint8_t(in_range(r.u8("route tx"), 0, 31, "a route's tx ports"));
        }
    }
    return routes;
}

// [SECTION] compile results

void write_compiled(ByteWriter& w, const lang::CompileResult& c) {
    w.str(c.file);
    w.i32(c.errors);
    w.i32(c.grid_w);
    w.i32(c.grid_h);
    w.u32(uint32_t(c.diagnostics.size()));
    for (const lang::Diagnostic& d : c.diagnostics) {
        w.str(d.file);
        w.i32(d.line);
        w.i32(d.col);
        w.put(d.severity);
        w.str(d.message);
        w.u32(uint32_t(d.notes.size()));
        for (const lang::DiagNote& n : d.notes) {
            w.i32(n.line);
            w.i32(n.col);
            w.str(n.message);
        }
    }
    w.u32(uint32_t(c.placements.size()));
    std::unordered_map<const Program*, uint32_t> first_use;   // an image placed again is written once
    for (size_t i = 0; i < c.placements.size(); i++) {
        const lang::Placement& p = c.placements[i];
        auto seen = first_use.emplace(p.program.get(), uint32_t(i));
        w.u32(seen.second ? 0 : seen.first->second + 1);   // 0: written here, else 1 + the placement that holds it
        if (seen.second) write_program(w, *p.program, i ? c.placements[i - 1].program.get() : nullptr);   // PEs differ in a few constants
        for (int v : {p.x, p.y, p.w, p.h}) w.i32(v);
        w.u32(uint32_t(p.consts.size()));
        for (uint32_t v : p.consts) w.u32(v);
    }
    write_routes(w, c.routes);
    w.u32(uint32_t(c.host.size()));
    for (const lang::HostAction& h : c.host) {
        w.put(h.kind);
        w.str(h.name);
        for (int v : {h.x, h.y, h.w, h.h}) w.i32(v);
        w.put(h.gen);
        w.u32(uint32_t(h.args.size()));
        for (double a : h.args) w.f64(a);
        w.i32(h.line);
        w.i32(h.col);
    }
    w.u32(uint32_t(c.colour_names.size()));
    for (const std::string& n : c.colour_names) w.str(n);
}

std::shared_ptr<const lang::CompileResult> read_compiled(ByteReader& r, uint32_t sram_bytes) {
    auto c = std::make_shared<lang::CompileResult>();
    c->file = r.str("kernel file");
    c->errors = r.i32("error count");
    if (c->errors != 0) throw ByteError("kernel " + c->file + " has errors: a plan holds only clean compiles");
    c->grid_w = in_range(r.i32("grid width"), 1, kMaxMeshSide, "a kernel's grid width");
    c->grid_h = in_range(r.i32("grid height"), 1, kMaxMeshSide, "a kernel's grid height");
    c->diagnostics.resize(r.count("diagnostics", 21));
    for (lang::Diagnostic& d : c->diagnostics) {
        d.file = r.str("diagnostic file");
        d.line = r.i32("diagnostic line");
        d.col = r.i32("diagnostic column");
        d.severity = r.get<lang::Severity>("diagnostic severity");
        if (d.severity != lang::Severity::Warning) throw ByteError("a clean compile's diagnostic is not a warning");
        d.message = r.str("diagnostic message");
        d.notes.resize(r.count("diagnostic notes", 12));
        for (lang::DiagNote& n : d.notes) {
            n.line = r.i32("note line");
            n.col = r.i32("note column");
            n.message = r.str("note message");
        }
    }
    // Every placement and route inside the kernel's grid: the op's rectangle (checked by the caller).
    auto inside = [&](int x, int y, int w, int h, const char* what) {
        if (x < 0 || y < 0 || w < 1 || h < 1 || int64_t(x) + w > c->grid_w || int64_t(y) + h > c->grid_h)
            throw ByteError(std::string(what) + " of " + c->file + " lies outside its " + std::to_string(c->grid_w) + "x" +
                            std::to_string(c->grid_h) + " grid");
    };
    c->placements.resize(r.count("placements", 16));
    for (size_t i = 0; i < c->placements.size(); i++) {
        lang::Placement& p = c->placements[i];
        const uint32_t same = r.u32("placement's image");
        if (same > i) throw ByteError("placement " + std::to_string(i) + " of " + c->file + " shares the image of placement " +
                                      std::to_string(same - 1) + ", which is not before it");
        p.program = same ? c->placements[same - 1].program : read_program(r, sram_bytes, i ? c->placements[i - 1].program.get() : nullptr);
        p.x = r.i32("placement x");
        p.y = r.i32("placement y");
        p.w = r.i32("placement width");
        p.h = r.i32("placement height");
        inside(p.x, p.y, p.w, p.h, "a placement");
        p.consts.resize(r.count("per-PE constants", 4));
        for (uint32_t& v : p.consts) v = r.u32("per-PE constant");
        if (p.consts.size() != p.program->nconsts)
            throw ByteError("placement " + std::to_string(i) + " of " + c->file + " gives " + std::to_string(p.consts.size()) +
                            " per-PE constants; its program reads " + std::to_string(int(p.program->nconsts)));
    }
    if (c->placements.empty()) throw ByteError("kernel " + c->file + " places no program");
    c->routes = read_routes(r, inside);
    c->host.resize(r.count("host actions", 34));
    for (lang::HostAction& h : c->host) {
        h.kind = r.get<lang::HostKind>("host action");
        in_range(int(h.kind), 0, int(lang::HostKind::Print), "a host action's kind");
        h.name = r.str("host action name");
        h.x = r.i32("host action x");
        h.y = r.i32("host action y");
        h.w = r.i32("host action width");
        h.h = r.i32("host action height");
        h.gen = r.get<lang::GenKind>("host generator");
        in_range(int(h.gen), 0, int(lang::GenKind::List), "a host generator");
        h.args.resize(r.count("host arguments", 8));
        for (double& a : h.args) a = r.f64("host argument");
        h.line = r.i32("host action line");
        h.col = r.i32("host action column");
    }
    c->colour_names.resize(r.count("colour names", 4));
    if (c->colour_names.size() > size_t(kColours)) throw ByteError("more colour names than colours");
    for (std::string& n : c->colour_names) n = r.str("colour name");
    return c;
}

// [SECTION] the plan

void write_transfer(ByteWriter& w, const Transfer& t) {
    w.str(t.tensor);
    w.str(t.symbol);
    w.put(t.slice);
    w.put(t.tiers);
    for (int v : {t.per_pe, t.rows, t.row_offset, t.colour, t.from.x, t.from.y, t.from.w, t.from.h, t.grad_colour}) w.i32(v);
    w.str(t.send);
    w.u8(t.between_layers);
}

Transfer read_transfer(ByteReader& r) {
    Transfer t;
    t.tensor = r.str("transfer tensor");
    t.symbol = r.str("transfer symbol");
    t.slice = r.get<Slice>("transfer slice");
    in_range(int(t.slice), 0, int(Slice::Tokens), "a transfer's slice");
    t.tiers = r.get<Tiers>("transfer tiers");
    in_range(int(t.tiers), 0, int(Tiers::Last), "a transfer's tiers");
    t.per_pe = in_range(r.i32("transfer per PE"), 0, 1 << 24, "a transfer's rows per PE");
    t.rows = in_range(r.i32("transfer rows"), 0, 1 << 24, "a transfer's rows");
    t.row_offset = in_range(r.i32("transfer row offset"), 0, 1 << 24, "a transfer's row offset");
    t.colour = in_range(r.i32("transfer link colour"), 0, kColours - 1, "a link's colour");
    t.from.x = in_range(r.i32("link from x"), 0, 1 << 16, "a link's producer");
    t.from.y = in_range(r.i32("link from y"), 0, 1 << 16, "a link's producer");
    t.from.w = in_range(r.i32("link from width"), 0, 1 << 16, "a link's producer");
    t.from.h = in_range(r.i32("link from height"), 0, 1 << 16, "a link's producer");
    t.grad_colour = in_range(r.i32("transfer gradient colour"), 0, kColours - 1, "a gradient link's colour");
    t.send = r.str("link send function");
    t.between_layers = r.boolean("transfer between layers");
    return t;
}

// The executables' sizes, as the compiler left them: a field added to one of these types
// breaks the build here, so that it is written and read above before any file leaves it out.
#if defined(__GLIBCXX__) && defined(__x86_64__)
static_assert(sizeof(PlannedOp) == 424 && sizeof(Transfer) == 144 && sizeof(MemoryUse) == 20 &&
                  sizeof(MeshPlan) == sizeof(wl::gpt::GPTConfig) + 80,   // cfg is the caller's, not the file's
              "a MeshPlan type changed: write and read the new field in plan_file.cpp, bump kPlanFileFormat, then update these sizes");
static_assert(sizeof(lang::CompileResult) == 168 && sizeof(lang::Placement) == 56 && sizeof(lang::RouteSetting) == 24 &&
                  sizeof(lang::HostAction) == 96 && sizeof(lang::Diagnostic) == 104,
              "a CompileResult type changed: write and read the new field in plan_file.cpp, bump kPlanFileFormat, then update these sizes");
static_assert(sizeof(Program) == 208 && sizeof(Function) == 48 && sizeof(Symbol) == 48 && sizeof(TaskBinding) == 8 &&
                  sizeof(InitData) == 32 && sizeof(SrcLoc) == 12,
              "a Program type changed: write and read the new field in program_file.cpp, bump kPlanFileFormat, then update these sizes");
#endif

}  // namespace

bool is_plan_file_head(std::string_view head) {
    static_assert(sizeof kMagic == kPlanFileHeadBytes);
    return head.size() >= sizeof kMagic && std::memcmp(head.data(), kMagic, sizeof kMagic) == 0;
}

std::string write_plan_file(const PlanKey& key, const MeshPlan& plan) {
    ByteWriter p;
    write_key(p, key);
    p.i32(plan.mesh_w);
    p.i32(plan.mesh_h);
    p.u32(plan.sram_bytes);
    p.u8(plan.train);
    std::vector<const lang::CompileResult*> distinct;   // in first use order
    std::vector<uint32_t> index;
    for (const PlannedOp& o : plan.ops) {
        size_t i = 0;
        while (i < distinct.size() && distinct[i] != o.compiled.get()) i++;
        if (i == distinct.size()) distinct.push_back(o.compiled.get());
        index.push_back(uint32_t(i));
    }
    p.u32(uint32_t(distinct.size()));
    for (const lang::CompileResult* c : distinct) write_compiled(p, *c);
    p.u32(uint32_t(plan.ops.size()));
    for (size_t i = 0; i < plan.ops.size(); i++) {
        const PlannedOp& o = plan.ops[i];
        p.u8(uint8_t(o.id));
        p.str(o.name);
        p.str(o.op);
        p.i32(o.layer);
        p.f64(o.flops);
        p.str(o.kernel);
        p.u32(uint32_t(o.constants.size()));
        for (const auto& [k, v] : o.constants) {
            p.str(k);
            p.f64(v);
        }
        p.u32(uint32_t(o.weights.size()));
        for (const auto& [sym, param] : o.weights) {
            p.str(sym);
            p.str(param);
        }
        for (int v : {o.rect.x, o.rect.y, o.rect.w, o.rect.h}) p.i32(v);
        p.u32(o.bytes_per_pe);
        for (uint32_t v : {o.memory.weights, o.memory.gradients, o.memory.adam, o.memory.activations, o.memory.scratch}) p.u32(v);
        p.u32(uint32_t(o.inputs.size()));
        for (const Transfer& t : o.inputs) write_transfer(p, t);
        write_transfer(p, o.output);
        p.u32(index[i]);
        p.u8(o.train_only);
        p.u8(o.host_out);
    }
    write_routes(p, plan.links);
    return plan_envelope(key.value(), p.bytes());
}

std::string plan_envelope(uint64_t key, std::string_view payload) {
    ByteWriter w;
    w.reserve(payload.size() + 64);
    w.raw(std::string_view(kMagic, sizeof kMagic));
    w.u32(kPlanFileFormat);
    w.str(version());
    w.str(source_fingerprint());
    w.u64(key);
    w.u64(payload.size());
    w.u64(checksum(payload));
    w.raw(payload);
    return w.take();
}

std::string read_plan_key(std::string_view bytes, PlanKey* key) {
    std::string_view payload;
    uint64_t stored = 0;
    if (std::string why = open_envelope(bytes, &payload, &stored); !why.empty()) return why;
    try {
        ByteReader r(payload);
        *key = read_key(r);
    } catch (const ByteError& e) {
        return std::string("is corrupt: ") + e.what();
    }
    if (key->value() != stored) return "is corrupt (its key does not match its contents)";
    return "";
}

std::string read_plan_file(std::string_view bytes, const wl::gpt::GPTConfig& cfg, PlanKey* key, MeshPlan* out) {
    std::string_view payload;
    uint64_t stored = 0;
    if (std::string why = open_envelope(bytes, &payload, &stored); !why.empty()) return why;
    try {
        ByteReader r(payload);
        *key = read_key(r);
        if (key->value() != stored) return "is corrupt (its key does not match its contents)";
        const PlanShape& s = key->shape;
        if (!(PlanShape::of(cfg, s.mesh_w, s.mesh_h, s.sram_bytes, s.train) == s))
            return "holds an executable for another model shape";
        MeshPlan plan;
        plan.cfg = cfg;
        plan.mesh_w = r.i32("mesh width");
        plan.mesh_h = r.i32("mesh height");
        plan.sram_bytes = r.u32("SRAM per PE");
        plan.train = r.boolean("planned for training");
        plan.streaming = s.streaming;
        if (plan.mesh_w != s.mesh_w || plan.mesh_h != s.mesh_h || plan.sram_bytes != s.sram_bytes || plan.train != s.train)
            return "is corrupt (its plan is not for its key's mesh)";
        std::vector<std::shared_ptr<const lang::CompileResult>> compiled(r.count("compile results", 32));
        for (auto& c : compiled) c = read_compiled(r, plan.sram_bytes);
        plan.ops.resize(r.count("ops", 64));
        for (PlannedOp& o : plan.ops) {
            const uint8_t id = r.u8("op row");
            if (id >= uint8_t(gpt::OpId::Tokens)) return "is corrupt (an op's row is " + std::to_string(id) + ")";
            o.id = gpt::OpId(id);
            o.name = r.str("op name");
            o.op = r.str("op kind");
            o.layer = in_range(r.i32("op layer"), -1, s.n_layer - 1, "an op's layer");
            o.flops = r.f64("op flops");
            o.kernel = r.str("op kernel");
            if (gpt::op_row(o.id).kind == gpt::OpKind::Softmax || o.kernel != o.kernel_info().file)
                return "is corrupt (op " + o.name + " runs " + o.kernel + ", not its row's kernel)";
            const uint32_t nconst = r.count("op constants", 12);
            for (uint32_t i = 0; i < nconst; i++) {
                std::string k = r.str("constant name");
                o.constants[k] = r.f64("constant value");
            }
            o.weights.resize(r.count("op weights", 8));
            for (auto& [sym, param] : o.weights) {
                sym = r.str("weight symbol");
                param = r.str("weight parameter");
            }
            o.rect.x = r.i32("op x");
            o.rect.y = r.i32("op y");
            o.rect.w = r.i32("op width");
            o.rect.h = r.i32("op height");
            if (o.rect.x < 0 || o.rect.y < 0 || o.rect.w < 1 || o.rect.h < 1 || int64_t(o.rect.x) + o.rect.w > plan.mesh_w ||
                int64_t(o.rect.y) + o.rect.h > plan.mesh_h)
                return "is corrupt (op " + o.name + " lies outside the mesh)";
            o.bytes_per_pe = r.u32("op bytes per PE");
            if (o.bytes_per_pe > plan.sram_bytes) return "is corrupt (op " + o.name + " needs more SRAM than a PE has)";
            for (uint32_t* v : {&o.memory.weights, &o.memory.gradients, &o.memory.adam, &o.memory.activations, &o.memory.scratch})
                *v = r.u32("op memory use");
            o.inputs.resize(r.count("op inputs", 26));
            for (Transfer& t : o.inputs) t = read_transfer(r);
            o.output = read_transfer(r);
            const uint32_t c = r.u32("op's compile result");
            if (c >= compiled.size()) return "is corrupt (op " + o.name + " names compile result " + std::to_string(c) + " of " +
                                             std::to_string(compiled.size()) + ")";
            o.compiled = compiled[c];
            if (o.compiled->file != o.kernel) return "is corrupt (op " + o.name + "'s kernel is not its compile result's)";
            if (o.compiled->grid_w > o.rect.w || o.compiled->grid_h > o.rect.h)
                return "is corrupt (op " + o.name + "'s kernel grid is larger than its rectangle)";
            o.train_only = r.boolean("op train only");
            o.host_out = r.boolean("op output to the host");
        }
        if (plan.ops.empty()) return "is corrupt (no ops)";
        plan.links = read_routes(r, [&](int x, int y, int, int, const char* what) {
            if (x < 0 || y < 0 || x >= plan.mesh_w || y >= plan.mesh_h) throw ByteError(std::string(what) + " of a link lies outside the mesh");
        });
        for (const PlannedOp& o : plan.ops)
            for (const Transfer& t : o.inputs)
                if (t.colour && (t.from.w < 1 || t.from.h < 1 || int64_t(t.from.x) + t.from.w > plan.mesh_w ||
                                 int64_t(t.from.y) + t.from.h > plan.mesh_h))
                    return "is corrupt (a link into " + o.name + " comes from outside the mesh)";
        for (const PlannedOp& o : plan.ops) {   // the key hashes every kernel the plan compiled
            bool keyed = false;
            for (const auto& [name, h] : key->kernels) keyed |= name == o.kernel;
            if (!keyed) return "is corrupt (its key leaves out " + o.kernel + ")";
        }
        if (r.left()) return "is corrupt (" + std::to_string(r.left()) + " bytes after the last op)";
        if (std::string why = plan_run_problem(plan); !why.empty()) return "cannot run: " + why;
        *out = std::move(plan);
    } catch (const ByteError& e) {
        return std::string("is corrupt: ") + e.what();
    }
    return "";
}

}  // namespace wl::model
