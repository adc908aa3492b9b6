// machine_state.cpp: see machine_state.h.
#include "engine/fabric/machine_state.h"

#include "engine/core/zeroed_alloc.h"

namespace wl {

void SramArenaDeleter::operator()(uint8_t* p) const { zeroed_free(p, bytes, 1); }

void MachineState::raise(FaultKind k, int pe, int colour, int task, int32_t pc, std::string msg) {
    if (fault_ && (fault_.cycle < now_ || (pe >= 0 && idx(fault_.x < 0 ? 0 : fault_.x, fault_.y < 0 ? 0 : fault_.y) <= pe)))
        return;
    Fault f;
    f.kind = k;
    f.cycle = now_;
    if (pe >= 0) {
        f.x = pe % cfg_.w;
        f.y = pe / cfg_.w;
    }
    f.colour = colour;
    f.task = task;
    if (pc >= 0 && pe >= 0 && cores_[size_t(pe)].prog >= 0) {
        const Program& p = *progs_[size_t(cores_[size_t(pe)].prog)].prog;
        if (size_t(pc) < p.locs.size()) f.loc = p.locs[size_t(pc)];
        f.where = p.where(uint32_t(pc));
    }
    f.message = std::move(msg);
    fault_ = std::move(f);
}

void MachineState::refuse(int i, int port, int colour) {
    raise(FaultKind::NoRoute, i, colour, cores_[size_t(i)].task, -1, Network::refused(colour, port));
}

void MachineState::unread(int i, int colour) {
    const Core& ce = cores_[size_t(i)];
    raise(FaultKind::NoTask, i, colour, ce.task, -1,
          "wavelet on colour " + std::to_string(colour) + " delivered to a CE with no task or reader for it" +
              (ce.prog < 0 ? " (no program loaded)" : ""));
}

}  // namespace wl
