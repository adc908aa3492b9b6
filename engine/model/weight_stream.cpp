// weight_stream.cpp: see weight_stream.h.
#include "engine/model/weight_stream.h"

#include "engine/fabric/wafer.h"

#include <cmath>

namespace wl::model {

EdgeLink EdgeLink::wse2() {
    const WaferFacts& w = wse2_facts();
    const double edge_pes = 2.0 * (w.grid_w + w.grid_h);
    return {w.io_bytes_per_s / edge_pes / kClockHz};
}

uint64_t EdgeLink::cycles(uint64_t bytes) const {
    return bytes ? uint64_t(std::ceil(double(bytes) / bytes_per_cycle)) : 0;
}

}  // namespace wl::model
