// mpi_bands.h: waferlab-cli under mpirun. Each MPI rank runs one band of the mesh's rows
// (engine/fabric/band.h), its messages carried by MPI (Debian's OpenMPI): the boundary queues'
// changes to the ranks above and below after every cycle, a max over every rank, and the
// bands' rows to every rank at the end of a run. docs/scale.md says how to run it.
#pragma once
#include "engine/fabric/band.h"

#include <cstdlib>
#include <stdexcept>

namespace wlcli {

class MpiBands final : public wl::BandLink {
public:
    // This process's band when mpirun started it with more than one rank (MPI initialised on the
    // first call, finalised at exit), else nullptr. Ranks other than 0 print nothing: rank 0
    // speaks for the run, as every rank ends with the same report.
    static MpiBands* world();

    int rank() const override { return rank_; }
    int ranks() const override { return ranks_; }
    void exchange(const std::string& up, const std::string& down, std::string* from_up, std::string* from_down) override;
    void max(uint64_t* v, int n) override;
    std::vector<std::string> gather(const std::string& mine) override;

private:
    MpiBands(int rank, int ranks) : rank_(rank), ranks_(ranks) {}
    int rank_, ranks_;
};

// True when the environment says mpirun started this process with more than one rank (before
// MPI is initialised): Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE for each rank, MPICH's and
// Slurm's PMI_SIZE.
inline bool under_mpirun() {
    const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
    if (!n) n = std::getenv("PMI_SIZE");
    return n && std::atoi(n) > 1;
}

// This process's rank under mpirun (MpiBands::world()), nullptr in one process; std::runtime_error
// when mpirun started a build without MPI. Every verb that splits its work calls it first, so the
// ranks other than 0 go quiet before anything prints.
inline wl::BandLink* mpirun_ranks() {
    if (!under_mpirun()) return nullptr;
#ifdef WAFERLAB_MPI
    return MpiBands::world();
#else
    throw std::runtime_error("started by mpirun, but this build has no MPI (install libopenmpi-dev: tools/setup, then rebuild)");
#endif
}

}  // namespace wlcli
