// ranks.h: the processes (or threads) that share one piece of work, as each of them sees the
// others: its own rank of n, and the collective calls every rank makes in the same order. MPI's
// ranks in waferlab-cli under mpirun (cli/mpi_bands.h), threads in tests (tests/unit/thread_bands.h).
// A band of a split mesh (engine/fabric/band.h) and a wafer of SwarmX (engine/model/swarmx.h) are
// each a rank.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace wl {

class Ranks {
public:
    virtual ~Ranks() = default;
    virtual int rank() const = 0;
    virtual int ranks() const = 0;
    // v[k] = the largest v[k] over every rank, on every rank.
    virtual void max(uint64_t* v, int n) = 0;
    // Every rank's bytes, in rank order, on every rank.
    virtual std::vector<std::string> gather(const std::string& mine) = 0;
};

}  // namespace wl
