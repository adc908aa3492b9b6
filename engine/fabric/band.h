// band.h: one mesh split across several processes by bands of rows (docs/scale.md).
//
// Band r of n owns rows [y0, y1) of the mesh: their routers, CEs and SRAM. Every band holds a
// whole Machine, loaded the same way, but steps only its own rows. The rows just above and below
// its own (its ghosts) mirror the neighbouring bands' boundary queues that face it:
//
//     band r-1  ... row y0-1  <- ghost here: the queue its S port fills from row y0
//     band r        row y0    <- own; its N port queue is filled from row y0-1 (band r-1's)
//                   ...
//                   row y1-1
//     band r+1      row y1    <- ghost here
//
// Cycle mode's queues have one producer and one consumer, a push becomes visible next cycle and
// a popped slot frees next cycle (router.h), so a router's choices in cycle t read only what its
// neighbours' queues held as cycle t began. After each cycle a band sends each neighbour the
// wavelets it pushed into that neighbour's queues and the slots it popped from the queues the
// neighbour fills; both sides then hold, for every boundary queue, what one process would. That
// is a lookahead of one hop: exact, and the reference the faster protocols are checked against.
// Fast mode's bands hand each other the wavelets that cross their edges in windows instead
// (fast_band.cpp).
//
// A BandLink carries the messages: threads in one process (thread_bands.h, for tests) or MPI
// ranks (cli/mpi_bands.h). Every band makes the same calls in the same order.
#pragma once
#include "engine/core/ranks.h"
#include "engine/fabric/fault.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wl {

struct Band {
    int y0 = 0, y1 = 0;   // rows [y0, y1)
    bool contains(int y) const { return y >= y0 && y < y1; }
};

// Band `rank` of `ranks` over h rows: as even as can be, the first bands one row longer.
Band band_of(int rank, int ranks, int h);
// The band that holds row y.
int band_holding(int y, int ranks, int h);

// The bands as ranks (engine/core/ranks.h: max and gather over every band, in band order), and the
// one call that only neighbours make.
class BandLink : public Ranks {
public:
    // Sends `up` to band rank-1 and `down` to band rank+1, and returns what they sent this band
    // (empty past the mesh's first and last band).
    virtual void exchange(const std::string& up, const std::string& down, std::string* from_up, std::string* from_down) = 0;
};

// A fault and a stuck report as bytes, for a BandLink's messages.
std::string fault_bytes(const Fault& f);
Fault fault_from_bytes(const std::string& b);
std::string stuck_bytes(const std::vector<Stuck>& st);
std::vector<Stuck> stuck_from_bytes(const std::string& b);

}  // namespace wl
