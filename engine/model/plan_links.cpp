// plan_links.cpp: the planner's schedule (plan_links.h). Links between ops lined up by the
// placement, relays where the rows are cut otherwise, the gradients' links in training, and the
// edge links of weight streaming; all on colours 8..17, never two on one router.
#include "engine/model/plan_links.h"

#include "engine/fabric/mesh.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <tuple>

namespace wl::model {

namespace {

// The constant that names an input's link colour (gpt::KernelInfo::link); nullptr: never linked.
const char* link_constant(const PlannedOp& o, const std::string& symbol) {
    const gpt::KernelInfo& k = o.kernel_info();
    for (int i = 0; i < 3 && k.inputs[i]; i++)
        if (symbol == k.inputs[i]) return k.link[i];
    return nullptr;
}

// The producer's free send slot for one more linked reader: its constant and the function that
// sends on it; nullptr when it has none left (the residual stream has two readers: two slots).
std::pair<const char*, const char*> send_slot(const PlannedOp& o) {
    const int slots = o.kernel_info().send_slots;
    if (slots >= 1 && !o.constants.count("LY")) return {"LY", gpt::entry::kSendY};
    if (slots >= 2 && !o.constants.count("LY2")) return {"LY2", gpt::entry::kSendY2};
    return {nullptr, nullptr};
}

void plan_relays(std::vector<PlannedOp>& ops, std::vector<lang::RouteSetting>* routes);

// An attention whose heads are cut over several PEs each (attention.wk's S > 1).
bool heads_split(const PlannedOp& o) { return o.is(gpt::OpKind::Attention) && o.constants.count("S") && o.constants.at("S") > 1; }


// Training: the residual stream's gradient as links. A residual's backward is the identity, so
// the gradient of its output, which the layernorm that reads the output computes (its dx, the
// stream's part added there), is both inputs' gradient: that layernorm sends its dx up its columns
// twice, to the matmul that made the second input (its dy: send_dx on LDX, the matmul's LDY) and to
// the layernorm that reads the first input, the stream (its dx starts as it: send_dx2 on LDX2,
// that layernorm's LDS). Each goes where the placement lines the two up with the same rows per PE
// (as plan_links' links); the residual's input then records the colour (Transfer::grad_colour), and
// the host neither reads that dx nor writes those inputs. link: plan_links' allocator, upward.
using LinkAllocator = std::function<int(int x0, int w, int y0, int y1, bool down)>;
void plan_stream_grads(std::vector<PlannedOp>& ops, const LinkAllocator& link) {
    const auto layernorm_of = [&](const std::string& tensor) -> PlannedOp* {   // the layernorm that reads tensor
        for (PlannedOp& o : ops)
            if (o.is(gpt::OpKind::LayerNorm) && o.inputs.front().tensor == tensor && has_backward(o)) return &o;
        return nullptr;
    };
    // to's rows per PE lined up with from's, directly above it in the same columns
    const auto above = [](const PlannedOp& from, const PlannedOp& to, const Transfer& rows) {
        return to.rect.x == from.rect.x && to.rect.w == from.rect.w && to.rect.y < from.rect.y &&
               rows.slice == Slice::Rows && rows.row_offset == 0 && rows.per_pe == from.inputs.front().per_pe &&
               rows.per_pe * to.rect.w == rows.rows;
    };
    for (PlannedOp& r : ops) {
        if (!r.is(gpt::OpKind::Residual) || r.inputs.size() != 2) continue;
        PlannedOp* ln = layernorm_of(r.name);   // computes r's gradient
        if (!ln || ln->inputs.front().between_layers) continue;   // streaming: another layer's, on the same PEs
        const Rect& at = ln->rect;
        PlannedOp* mm = nullptr;                // the second input's matmul, read by r alone
        int readers = 0;
        for (PlannedOp& o : ops) {
            if (o.name == r.inputs[1].tensor) mm = &o;
            for (const Transfer& in : o.inputs) readers += in.tensor == r.inputs[1].tensor;
        }
        if (mm && mm->is(gpt::OpKind::Matmul) && has_backward(*mm) && readers == 1 && !mm->constants.count("LDY") &&
            mm->tiers() == 1 && above(*ln, *mm, mm->output))   // a tiered op's gradients go through the host
            if (const int g = link(at.x, at.w, mm->rect.y, at.y, false)) {
                r.inputs[1].grad_colour = g;
                mm->constants["LDY"] = g;
                ln->constants["LDX"] = g;
            }
        PlannedOp* up = layernorm_of(r.inputs[0].tensor);   // the stream's other reader
        if (up && !up->constants.count("LDS") && above(*ln, *up, up->inputs.front()))
            if (const int g = link(at.x, at.w, up->rect.y, at.y, false)) {
                r.inputs[0].grad_colour = g;
                up->constants["LDS"] = g;
                ln->constants["LDX2"] = g;
            }
    }
}

// Training: the embedding's dy, the gradient of its output, is the dx of the layernorm that reads
// it (the stream's gradient added there, as for every layernorm). Where that layernorm sits below
// the embedding with the same channels per PE, its dx goes up its columns as a link (its send_dx on
// LDX, idle otherwise: the embedding is no residual) into the embedding's stash (keep_dy on LDY,
// one slot per sequence: embedding.wk), which holds it until the tie's stream has given dwte the
// logits' part (the reference's order). The stash's size (NB) is set by size_stash.
void plan_embedding_grad(std::vector<PlannedOp>& ops, const LinkAllocator& link) {
    PlannedOp* emb = nullptr;
    for (PlannedOp& o : ops)
        if (o.is(gpt::OpKind::Embedding) && has_backward(o)) emb = &o;
    if (!emb) return;
    PlannedOp* ln = nullptr;
    for (PlannedOp& o : ops)
        if (o.is(gpt::OpKind::LayerNorm) && o.inputs.front().tensor == emb->name && has_backward(o)) ln = &o;
    if (!ln) return;
    Transfer& x = ln->inputs.front();
    if (!x.colour || ln->rect.x != emb->rect.x || ln->rect.w != emb->rect.w || ln->rect.y <= emb->rect.y ||
        x.per_pe != emb->output.per_pe || x.slice != Slice::Rows || ln->constants.count("LDX"))
        return;
    if (const int g = link(emb->rect.x, emb->rect.w, emb->rect.y, ln->rect.y, false)) {
        x.grad_colour = g;
        ln->constants["LDX"] = g;
        emb->constants["LDY"] = g;
    }
}

// The colours links, relays and edge links take (the kernels keep 1-7 and 18-23 for themselves).
constexpr int kFirst = 8, kLast = 17;

// (x, y, colour) of every router a route already takes, and of every PE whose op's kernel owns the
// colour (its LX, LY, LDX ...: it loops it back on its own PEs), so no new route may take it there.
std::set<std::tuple<int, int, int>> used_cells(const std::vector<PlannedOp>& ops, const std::vector<lang::RouteSetting>& routes) {
    std::set<std::tuple<int, int, int>> used;
    for (const lang::RouteSetting& r : routes) used.insert({r.x, r.y, r.colour});
    for (const PlannedOp& o : ops)
        for (const auto& [k, v] : o.constants)
            if (k.size() >= 2 && k[0] == 'L' && v >= kFirst && v <= kLast)
                for (int y = o.rect.y; y < o.rect.y + o.tiers(); y++)
                    for (int x = o.rect.x; x < o.rect.x + o.rect.w; x++) used.insert({x, y, int(v)});
    return used;
}

}  // namespace

// Schedule: which inputs travel over the fabric. An input is linked when its producer sits in the
// same columns somewhere above (same x and width), both cut it into the same rows per PE (Slice::Rows,
// no padding) and the producer has no other link: then PE p of the producer sends its rows straight
// down its column to PE p of the consumer, on a colour of 8..17 that no other link uses on any
// router of that column between them (the routers between pass it on). In training the gradient
// of such an input goes back up on a second colour where both backwards move it whole. The rest
// stay with the host: time slices (layernorm, the loss), the attention's heads, the logits, and
// ops that the placement did not line up (docs/model-compiler.md, "Links between ops").
void plan_links(std::vector<PlannedOp>& ops, std::vector<lang::RouteSetting>* routes) {
    std::set<std::tuple<int, int, int>> used;   // (x, y, colour) with a link's route
    // A link along columns x0..x0+w-1 between rows y0 (above) and y1: the lowest colour free on
    // every router there, routed down (ramp -> south ... north -> ramp) or up; 0 when none is free.
    auto link = [&](int x0, int w, int y0, int y1, bool down) {
        int colour = 0;
        for (int k = kFirst; k <= kLast && !colour; k++) {
            bool free = true;
            for (int x = x0; x < x0 + w && free; x++)
                for (int y = y0; y <= y1 && free; y++) free = !used.count({x, y, k});
            if (free) colour = k;
        }
        if (!colour) return 0;
        for (int x = x0; x < x0 + w; x++)
            for (int y = y0; y <= y1; y++) {
                used.insert({x, y, colour});
                const bool top = y == y0, bottom = y == y1;
                const uint8_t rx = down ? (top ? kR : kN) : (bottom ? kR : kS);
                const uint8_t tx = down ? (bottom ? kR : kS) : (top ? kR : kN);
                routes->push_back({x, y, colour, Route::of(rx, tx)});
            }
        return colour;
    };
    std::map<std::string, int> producer;
    std::map<std::string, int> readers;         // tensor -> how many inputs read it
    for (size_t i = 0; i < ops.size(); i++) producer[ops[i].name] = int(i);
    for (const PlannedOp& c : ops)
        for (const Transfer& in : c.inputs) readers[in.tensor]++;
    for (PlannedOp& c : ops) {
        for (Transfer& in : c.inputs) {
            const char* constant = link_constant(c, in.symbol);
            auto it = producer.find(in.tensor);
            if (!constant || it == producer.end() || in.slice != Slice::Rows || in.between_layers) continue;
            PlannedOp& p = ops[size_t(it->second)];
            if (p.tiers() > 1 || c.tiers() > 1) continue;   // a tier's rows are not the op's: the host
            const Transfer& out = p.output;
            const auto [slot, send] = send_slot(p);
            // padding rows past the tensor's end: only a reader that skips them (the loss)
            const bool padded = out.per_pe * p.rect.w != out.rows && !c.is(gpt::OpKind::Loss);
            if (!slot || out.slice != Slice::Rows || out.per_pe != in.per_pe ||
                out.rows != in.rows || out.row_offset != 0 || in.row_offset != 0 || padded ||
                p.rect.x != c.rect.x || p.rect.w != c.rect.w || p.rect.y >= c.rect.y)
                continue;
            const int colour = link(c.rect.x, c.rect.w, p.rect.y, c.rect.y, true);
            if (!colour) continue;
            in.colour = colour;
            in.from = p.rect;
            in.send = send;
            c.constants[constant] = colour;
            p.constants[slot] = colour;
            // Training: the gradient goes back up the same columns when the consumer's backward
            // writes it whole (dx of a matmul, GELU or the loss) and the producer's backward takes it whole
            // as dy: the producer's only reader, and no residual between them.
            if (has_backward(c) && has_backward(p) && c.kernel_info().writes_dx && p.kernel_info().takes_dy &&
                c.kernel_info().grad_send(in.symbol.c_str()) && readers[in.tensor] == 1) {
                const int g = link(c.rect.x, c.rect.w, p.rect.y, c.rect.y, false);
                if (g) {
                    in.grad_colour = g;
                    c.constants["LDX"] = g;
                    p.constants["LDY"] = g;
                }
            }
        }
    }
    plan_stream_grads(ops, link);
    plan_embedding_grad(ops, link);
    // A send slot with no link (send_dx, send_dx2, send_y2) still loops its colour back on the op's
    // PEs (the kernel alone needs a route for it): one of 8..17 that none of the op's links use.
    for (PlannedOp& o : ops) {
        const gpt::KernelInfo& info = o.kernel_info();
        std::set<int> mine;
        for (const char* k : {"LX", "LA", "LB", "LY", "LY2", "LDX", "LDX2", "LDY", "LDS"})
            if (o.constants.count(k)) mine.insert(int(o.constants.at(k)));
        for (const char* k : info.idle) {
            if (!k || o.constants.count(k)) continue;
            int d = kLast;
            while (mine.count(d)) d--;
            o.constants[k] = d;
            mine.insert(d);
        }
    }
    // Each layernorm's chain along its row (layernorm.wk; the loss's, crossentropy.wk, is the
    // same): PE p passes its running sum east on colour 1 (p even) or 2 (p odd), and the last PE
    // sends the result back west on colour 3, each router on the way copying it to its PE. Its
    // own colours: no link shares them.
    // The loss over tiers (crossentropy.wk) goes on from each tier's last PE to the next tier's
    // first: south on colour 6 (tier r even) or 7, then west along the next tier's row; the result
    // goes back from the last tier's last PE up the last column and west along every tier.
    for (const PlannedOp& o : ops) {
        if (!o.kernel_info().row_chain) continue;
        const int x0 = o.rect.x, P = o.rect.w, R = o.tiers(), xl = x0 + P - 1;
        for (int y = o.rect.y; y < o.rect.y + R; y++) {
            const int r = y - o.rect.y;
            for (int p = 0; p + 1 < P; p++) {
                const int c = p % 2 == 0 ? 1 : 2;
                routes->push_back({x0 + p, y, c, Route::of(kR, kE)});
                routes->push_back({x0 + p + 1, y, c, Route::of(kW, kR)});
            }
            const uint8_t up = r > 0 ? kN : 0, west = P > 1 ? kW : 0;
            routes->push_back({xl, y, 3, r + 1 == R ? Route::of(kR, west | up) : Route::of(kS, kR | west | up)});
            for (int p = P - 2; p > 0; p--) routes->push_back({x0 + p, y, 3, Route::of(kE, kR | kW)});
            if (P > 1) routes->push_back({x0, y, 3, Route::of(kE, kR)});
            if (r == 0) continue;
            const int h = (r - 1) % 2 == 0 ? 6 : 7;   // from tier r - 1's last PE to this tier's first
            routes->push_back({xl, y - 1, h, Route::of(kR, kS)});
            routes->push_back({xl, y, h, Route::of(kN, P > 1 ? kW : kR)});
            for (int p = P - 2; p > 0; p--) routes->push_back({x0 + p, y, h, Route::of(kE, kW)});
            if (P > 1) routes->push_back({x0, y, h, Route::of(kE, kR)});
        }
    }
    // A tiered embedding's chain down its tiers (embedding.wk's e0, e1): tier r sends y's window
    // south on colour 6 (r even) or 7 (r odd) to tier r + 1; a tiered matmul's in training, its
    // dx (R) or y (RK; matmul.wk's tb0, tb1). Their own colours: no link shares them.
    for (const PlannedOp& o : ops)
        for (int r = 0; (o.is(gpt::OpKind::Embedding) || o.is(gpt::OpKind::Matmul)) && r + 1 < o.tiers(); r++)
            for (int x = o.rect.x; x < o.rect.x + o.rect.w; x++) {
                const int c = r % 2 == 0 ? 6 : 7;
                routes->push_back({x, o.rect.y + r, c, Route::of(kR, kS)});
                routes->push_back({x, o.rect.y + r + 1, c, Route::of(kN, kR)});
            }
    // A head over S PEs (attention.wk, S > 1): its scores east along its PEs on colours 5 and 6
    // alternating, the weights back west from its last PE on 7, every PE on the way a copy.
    for (const PlannedOp& o : ops) {
        if (!heads_split(o)) continue;
        const int S = int(o.constants.at("S")), y = o.rect.y;
        for (int x = o.rect.x; x < o.rect.x + o.rect.w; x++) {
            const int s = (x - o.rect.x) % S;
            if (s + 1 < S) {
                routes->push_back({x, y, s % 2 == 0 ? 5 : 6, Route::of(kR, kE)});
                routes->push_back({x + 1, y, s % 2 == 0 ? 5 : 6, Route::of(kW, kR)});
            }
            routes->push_back({x, y, 7, s + 1 == S ? Route::of(kR, kW) : s == 0 ? Route::of(kE, kR) : Route::of(kE, kR | kW)});
        }
    }
    plan_relays(ops, routes);   // what the rows per PE do not line up: the attention's heads
    for (PlannedOp& p : ops) {
        p.host_out = p.id == gpt::OpId::Logits;   // the host samples from the logits
        for (const PlannedOp& c : ops)
            for (const Transfer& in : c.inputs) p.host_out |= in.tensor == p.name && in.colour == 0;
    }
}

namespace {

// Relays: an input whose producer sits in the same columns above but cuts the rows otherwise
// (qkv's rows per PE into the attention's heads, the heads' y into attproj's rows) still goes
// over the fabric. The producer's PEs pass the rows west along their row, in row order, to its
// PE 0 (the kernels' colours 3 and 4 alternating), which sends them down its column on a colour
// of 8..17 to the consumer's row, where each router gives its PE a copy and passes it east;
// each PE keeps its rows. In training the gradient goes back the same way, up, on a second
// colour (the consumer's send_dx or send_dqkv, the producer's dy). The band's turn (lnf into
// the logits in the next band) is a relay too, an L around the corner. The colours are free of
// every route and loop-back on those routers (docs/model-compiler.md, "Relays").
void plan_relays(std::vector<PlannedOp>& ops, std::vector<lang::RouteSetting>* routes) {
    constexpr int kChain[2] = {3, 4};   // the kernels' rl0, rl1
    std::set<std::tuple<int, int, int>> used = used_cells(ops, *routes);
    auto route = [&](int x, int y, int c, uint8_t rx, uint8_t tx) {
        used.insert({x, y, c});
        routes->push_back({x, y, c, Route::of(rx, tx)});
    };
    // A colour newly given to an op (its LY, LDX ...): its kernel loops it back on every PE of the
    // row that does not send on it, so no later route may take it there.
    auto own = [&](PlannedOp& o, const char* constant, int c) {
        o.constants[constant] = c;
        for (int x = o.rect.x; x < o.rect.x + o.rect.w; x++) used.insert({x, o.rect.y, c});
    };
    // One sender to one row of receivers: the cells of the path in order, the sender's first;
    // each router passes the wavelet from the cell before to the cell after, and the last `copy`
    // cells (the receivers' row) also give their PE a copy. The lowest colour of 8..17 free on
    // every cell; 0 if none.
    using Cells = std::vector<std::pair<int, int>>;
    auto path_route = [&](const Cells& cells, size_t copy) {
        const auto dir = [](std::pair<int, int> a, std::pair<int, int> b) -> uint8_t {   // the port of a towards b
            return b.first > a.first ? kE : b.first < a.first ? kW : b.second > a.second ? kS : kN;
        };
        for (int c = kFirst; c <= kLast; c++) {
            bool free = true;
            for (size_t i = 0; i < cells.size() && free; i++) free = !used.count({cells[i].first, cells[i].second, c});
            if (!free) continue;
            for (size_t i = 0; i < cells.size(); i++) {
                const uint8_t rx = i == 0 ? kR : dir(cells[i], cells[i - 1]);
                uint8_t tx = i + 1 < cells.size() ? dir(cells[i], cells[i + 1]) : 0;
                if (i + copy >= cells.size()) tx |= kR;
                route(cells[i].first, cells[i].second, c, rx, tx);
            }
            return c;
        }
        return 0;
    };
    // From PE 0 of the row `from` along column x0 to the row `to`, then east along to's width w,
    // every router there copying to its PE.
    auto exit_route = [&](int x0, int from, int to, int w) {
        Cells cells;
        const int dir = to > from ? 1 : -1;
        for (int y = from; y != to; y += dir) cells.push_back({x0, y});
        for (int x = x0; x < x0 + w; x++) cells.push_back({x, to});
        return path_route(cells, size_t(w));
    };
    // The band's turn (an L): from (sx, sy) along row sy to column cx, along cx to row ty, then
    // along ty over the receivers' columns rx0 .. rx0+w-1 (entered at the end nearer cx),
    // every router there copying to its PE.
    auto turn_route = [&](int sx, int sy, int cx, int ty, int rx0, int w) {
        Cells cells;
        for (int x = sx; x != cx; x += cx > sx ? 1 : -1) cells.push_back({x, sy});
        for (int y = sy; y != ty; y += ty > sy ? 1 : -1) cells.push_back({cx, y});
        const bool east = cx <= rx0;   // the receivers lie east of the corner: copy eastward
        for (int x = cx; x != (east ? rx0 : rx0 + w - 1); x += east ? 1 : -1) cells.push_back({x, ty});
        for (int k = 0; k < w; k++) cells.push_back({east ? rx0 + k : rx0 + w - 1 - k, ty});
        return path_route(cells, size_t(w));
    };
    std::set<std::pair<int, int>> chained;   // rows (x0, y) whose chain is routed
    auto chain_row = [&](int x0, int y, int w) {   // PE p sends west on kChain[p % 2]
        if (!chained.insert({x0, y}).second) return;
        for (int p = 1; p < w; p++) {
            route(x0 + p, y, kChain[p % 2], kR, kW);
            route(x0 + p - 1, y, kChain[p % 2], kE, kR);
        }
    };
    auto chain = [&](const PlannedOp& o) { chain_row(o.rect.x, o.rect.y, o.rect.w); };
    std::map<std::string, int> producer;
    for (size_t i = 0; i < ops.size(); i++) producer[ops[i].name] = int(i);
    const auto relays = [](const PlannedOp& o) { return o.kernel_info().relays; };
    const auto only_reader = [&](const PlannedOp& p, const PlannedOp& c) {   // one send slot
        bool only = true;
        for (const PlannedOp& o : ops)
            for (const Transfer& in : o.inputs) only &= &o == &c || in.tensor != p.name;
        return only;
    };
    for (PlannedOp& c : ops) {
        if (!relays(c) || c.inputs.empty()) continue;
        // Every input from one producer, host-copied so far, whole rows of its output.
        auto it = producer.find(c.inputs.front().tensor);
        if (it == producer.end()) continue;
        PlannedOp& p = ops[size_t(it->second)];
        bool fits = p.tiers() == 1 && c.tiers() == 1 && relays(p) && !p.constants.count("LY") && p.output.slice == Slice::Rows && p.output.row_offset == 0 &&
                    p.rect.x == c.rect.x && p.rect.y < c.rect.y && (c.is(gpt::OpKind::Attention) || c.inputs.size() == 1);
        for (const Transfer& in : c.inputs)
            fits &= in.tensor == p.name && !in.colour && !in.between_layers && in.slice == Slice::Rows && in.rows == p.output.rows &&
                    in.row_offset + in.per_pe * c.rect.w <= p.output.rows;
        if (!fits || !only_reader(p, c)) continue;
        const int colour = exit_route(c.rect.x, p.rect.y, c.rect.y, c.rect.w);
        if (!colour) continue;
        chain(p);
        p.constants["LY"] = colour;
        if (p.is(gpt::OpKind::Matmul)) {
            p.constants["RY"] = 1;
            p.constants["OC"] = p.output.rows;
        }
        c.constants[c.kernel_info().link[0]] = colour;
        if (c.is(gpt::OpKind::Matmul)) c.constants["RX"] = 1;
        for (Transfer& in : c.inputs) {
            in.colour = colour;
            in.from = p.rect;
            in.send = gpt::entry::kSendY;
        }
        // Training: the gradient back up, the consumer's row west to its PE 0, up to the producer's row.
        if (!has_backward(c) || !has_backward(p)) continue;
        const int g = exit_route(c.rect.x, c.rect.y, p.rect.y, p.rect.w);
        if (!g) continue;
        chain(c);
        c.constants["LDX"] = g;
        p.constants["LDY"] = g;
        for (Transfer& in : c.inputs) in.grad_colour = g;
    }
    // The band's turn: a layernorm whose matmul sits in the next band (lnf -> logits, where the
    // bands turn after lnf) cannot go down a column. Its rows go east along its row (layernorm.wk's
    // chain colours, each PE passing on the rows from the west, then its own: RY = 1), out of its
    // last PE east to the matmul's first column, along that column to the matmul's row, and along
    // it, every PE a copy (matmul.wk's RX = 1 keeps its rows). The gradient goes back the same
    // way: the matmul's relay west to its PE 0 (send_dx), along its first column to the
    // layernorm's row and west along it, every PE a copy (the layernorm's dy: LDY with RY = 1).
    for (PlannedOp& c : ops) {
        if (!c.is(gpt::OpKind::Matmul) || c.inputs.size() != 1) continue;
        Transfer& in = c.inputs.front();
        auto it = producer.find(in.tensor);
        if (it == producer.end() || in.colour || in.slice != Slice::Rows || in.row_offset) continue;
        PlannedOp& p = ops[size_t(it->second)];
        const int ex = p.rect.x + p.rect.w - 1;   // the layernorm's last PE, which sends
        if (!p.is(gpt::OpKind::LayerNorm) || c.tiers() > 1 || p.constants.count("LY") || p.output.slice != Slice::Rows ||
            p.output.rows != in.rows || p.output.per_pe * p.rect.w != p.output.rows || c.rect.x <= ex ||
            !only_reader(p, c))
            continue;
        const int colour = turn_route(ex, p.rect.y, c.rect.x, c.rect.y, c.rect.x, c.rect.w);
        if (!colour) continue;
        own(p, "LY", colour);
        p.constants["RY"] = 1;
        own(c, "LX", colour);
        c.constants["RX"] = 1;
        in.colour = colour;
        in.from = p.rect;
        in.send = gpt::entry::kSendY;
        if (!has_backward(c) || !has_backward(p)) continue;
        const int g = turn_route(c.rect.x, c.rect.y, c.rect.x, p.rect.y, p.rect.x, p.rect.w);
        if (!g) continue;
        chain(c);
        own(c, "LDX", g);
        own(p, "LDY", g);
        in.grad_colour = g;
    }
    // A generation step's matmul (matmul.wk's gemv) needs x's whole column on every PE. Unless it
    // comes relayed (RX: every row passes each PE), the row gathers it to its PE 0 along the chain,
    // on every tier, and PE 0 sends it back east to all (GATHER): P blocks where the PEs sending
    // to each other move P^2, for K + P cycles more (docs/model-compiler.md, "A token from the KV cache").
    for (PlannedOp& o : ops) {
        if (!o.is(gpt::OpKind::Matmul) || o.constants.count("RX") || o.rect.w < 2) continue;
        for (int t = 0; t < o.tiers(); t++) chain_row(o.rect.x, o.rect.y + t, o.rect.w);
        o.constants["GATHER"] = 1;
    }
}

}  // namespace

std::vector<lang::RouteSetting> edge_link_routes(const PlannedOp& o, bool out) {
    std::vector<lang::RouteSetting> routes;
    const int c = int(o.constants.at("LW")), end = o.rect.x + o.rect.w;
    for (int y = o.rect.y; y < o.rect.y + o.tiers(); y++)
        for (int x = 0; x < end; x++) {
            const bool before = x < o.rect.x, last = x + 1 == end;
            const Route r = out ? Route::of(before ? kE : last ? kR : uint8_t(kR | kE), kW)
                                : Route::of(kW, before ? kE : last ? kR : uint8_t(kR | kE));
            routes.push_back({x, y, c, r});
        }
    return routes;
}

std::vector<lang::RouteSetting> edge_link_to(const PlannedOp& o, int px) {
    std::vector<lang::RouteSetting> routes;
    const int c = int(o.constants.at("LW"));
    for (int y = o.rect.y; y < o.rect.y + o.tiers(); y++)
        for (int x = 0; x <= o.rect.x + px; x++) routes.push_back({x, y, c, Route::of(kW, x == o.rect.x + px ? kR : kE)});
    return routes;
}

// Streaming: the edge links. Each of the layer's weight-holding ops (matmul.wk, layernorm.wk), and in
// training the tied wte's two (the LM head's rows; the embedding's picked rows), takes
// its weights over the link of its own row, entering the mesh's west edge: a colour of 8..17 free
// on every router from the edge to the op's last PE (those before the op pass it east, the op's
// give their PE a copy and pass it on), set as the op's LW (its load_w() takes them; MeshGPT
// feeds the link). Each op gets a row of its own, so the layer's ops stream side by side; a tiered
// op a link on each of its rows, the same colour (its tiers run the one kernel).
void plan_edge_links(std::vector<PlannedOp>& ops, std::vector<lang::RouteSetting>* routes) {
    std::set<std::tuple<int, int, int>> used = used_cells(ops, *routes);
    for (PlannedOp& o : ops) {
        if (!wants_edge_link(o)) continue;
        const int end = o.rect.x + o.rect.w;
        for (int c = kFirst; c <= kLast && !o.constants.count("LW"); c++) {
            bool free = true;
            for (int y = o.rect.y; y < o.rect.y + o.tiers(); y++)
                for (int x = 0; x < end && free; x++) free = !used.count({x, y, c});
            if (!free) continue;
            for (int y = o.rect.y; y < o.rect.y + o.tiers(); y++)
                for (int x = 0; x < end; x++) used.insert({x, y, c});
            o.constants["LW"] = c;
            for (const lang::RouteSetting& r : edge_link_routes(o, false)) routes->push_back(r);
        }
    }
}

}  // namespace wl::model
