// sparsity.cpp: see sparsity.h.
#include "engine/model/sparsity.h"

#include "engine/gpt/rng.h"
#include "engine/model/mesh_gpt.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace wl::model {

bool mask_kind_from_name(const std::string& name, MaskKind* kind) {
    if (name == "magnitude") *kind = MaskKind::Magnitude;
    else if (name == "random") *kind = MaskKind::Random;
    else return false;
    return true;
}

const char* mask_kind_name(MaskKind kind) { return kind == MaskKind::Magnitude ? "magnitude" : "random"; }

std::vector<uint8_t> prune_mask(const float* w, size_t n, double density, MaskKind kind, uint64_t seed) {
    if (!(density >= 0 && density <= 1)) throw std::invalid_argument("prune_mask: density must be in 0..1");
    const size_t keep = std::min(n, size_t(std::llround(density * double(n))));
    std::vector<uint8_t> mask(n, 0);
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), size_t(0));
    if (kind == MaskKind::Magnitude) {
        // A total order (|w| descending, then index), so every platform keeps the same set.
        std::nth_element(idx.begin(), idx.begin() + std::ptrdiff_t(keep), idx.end(), [w](size_t a, size_t b) {
            const float fa = std::fabs(w[a]), fb = std::fabs(w[b]);
            return fa != fb ? fa > fb : a < b;
        });
    } else {
        gpt::Rng rng(seed);
        for (size_t i = 0; i < keep; i++) std::swap(idx[i], idx[i + size_t(rng.below(n - i))]);   // Fisher-Yates, first keep
    }
    for (size_t i = 0; i < keep; i++) mask[idx[i]] = 1;
    return mask;
}

const std::vector<std::string>& pruned_parameters() {
    static const std::vector<std::string> names = [] {   // the blocks' matmuls, in op_table()'s order
        std::vector<std::string> n;
        for (const gpt::OpRow& r : gpt::op_table())
            if (r.prunable) n.push_back(r.params[0]);
        return n;
    }();
    return names;
}

PruneStats prune_linear_weights(gpt::GPT& model, double sparsity, MaskKind kind, uint64_t seed) {
    if (!(sparsity >= 0 && sparsity <= kMaxSparsity))
        throw std::invalid_argument("sparsity must be in 0..0.95 (the fraction of each weight matrix set to zero)");
    PruneStats s;
    model.mask.assign(model.num_parameters, 1);
    const std::vector<std::string>& names = pruned_parameters();
    for (int l = 0; l < model.cfg.n_layer; l++)
        for (size_t m = 0; m < names.size(); m++) {
            const ParamSlice sl = param_slice(model.cfg, names[m], l);
            float* w = model.params_memory.data() + sl.offset;
            const size_t n = size_t(sl.rows) * size_t(sl.cols);
            const uint64_t mseed = gpt::derive_rng(seed, uint64_t(l), m).next_u64();
            const std::vector<uint8_t> mask = prune_mask(w, n, 1.0 - sparsity, kind, mseed);
            for (size_t i = 0; i < n; i++) {
                if (!mask[i]) w[i] = 0.0f;
                model.mask[sl.offset + i] = mask[i];
                s.kept += mask[i];
            }
            s.weights += n;
        }
    return s;
}

namespace {

// Whether the weight at params[i] is one of the non-zeros the sparse layout keeps.
bool kept(const float* params, const std::vector<uint8_t>& mask, size_t i) {
    return mask.empty() ? params[i] != 0.0f : mask[i] != 0;   // -0 too: it would add only a zero
}
bool kept(const gpt::GPT& model, size_t i) { return kept(model.params_memory.data(), model.mask, i); }

ParamSlice weight_slice(const PlannedOp& op, const gpt::GPTConfig& cfg) {
    std::string param;
    for (const auto& [sym, name] : op.weights)
        if (sym == "w") param = name;
    return param_slice(cfg, param, op.layer);
}
ParamSlice weight_slice(const PlannedOp& op, const gpt::GPT& model) { return weight_slice(op, model.cfg); }

}  // namespace

SparseRows sparse_rows(const PlannedOp& op, int p, const gpt::GPT& model) {
    return sparse_rows(op, p, model.cfg, model.params_memory.data(), model.mask);
}

SparseRows sparse_rows(const PlannedOp& op, int p, const gpt::GPTConfig& cfg, const float* params,
                       const std::vector<uint8_t>& mask) {
    const int K = int(op.constants.at("K")), NC = int(op.constants.at("NC"));
    const ParamSlice sl = weight_slice(op, cfg);
    const std::vector<WeightPiece> rows = weight_pieces(op, p, "w", sl);   // row j of the PE: rows[j], K floats
    SparseRows r;
    r.wr.assign(size_t(NC), 0);
    for (size_t j = 0; j < size_t(NC); j++) {   // the last PE's rows past the matrix: none
        for (int k = 0; j < rows.size() && k < K; k++) {
            const size_t i = sl.offset + rows[j].model + size_t(k);
            if (!kept(params, mask, i)) continue;
            r.wv.push_back(params[i]);
            r.wk.push_back(uint32_t(k));
        }
        r.wr[j] = uint32_t(r.wv.size());
    }
    return r;
}

SparseColumns sparse_columns(const PlannedOp& op, int p, const gpt::GPT& model) {
    const int P = int(op.constants.at("P")), K = int(op.constants.at("K")), NC = int(op.constants.at("NC"));
    const int KP = K / P;
    const ParamSlice sl = weight_slice(op, model);
    SparseColumns c;
    for (int q = 0; q < P; q++) {   // PE q's rows, in its wv's order
        const std::vector<WeightPiece> rows = weight_pieces(op, q, "w", sl);
        uint32_t at = 0;   // the next non-zero's place in PE q's wv
        for (size_t j = 0; j < size_t(NC); j++) {
            for (int k = 0; j < rows.size() && k < K; k++) {
                if (!kept(model, sl.offset + rows[j].model + size_t(k))) continue;
                if (k / KP == p) {
                    c.wtk.push_back(uint32_t(k - p * KP));
                    c.wts.push_back(at);
                }
                at++;
            }
            c.wtr.push_back(uint32_t(c.wtk.size()));
        }
    }
    return c;
}

std::function<SparseCounts(const PlannedOp&)> sparse_nonzeros(const gpt::GPT& model) {
    return [&model](const PlannedOp& op) {
        SparseCounts c;
        if (!op.is(gpt::OpKind::Matmul)) return c;
        if (!op.row().prunable) return c;
        c.rows = 0;
        for (int p = 0; p < op.rect.w * op.tiers(); p++) c.rows = std::max(c.rows, int(sparse_rows(op, p, model).wv.size()));
        for (int p = 0; p < op.rect.w && op.tiers() == 1; p++)   // training's transposed columns (never tiered)
            c.columns = std::max(c.columns, int(sparse_columns(op, p, model).wtk.size()));
        return c;
    };
}

}  // namespace wl::model
