// mpi_bands.cpp: MpiBands over MPI_COMM_WORLD.
#include "cli/mpi_bands.h"

// The C API only: Open MPI and MPICH would also pull in their deprecated C++ bindings.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace wlcli {

MpiBands* MpiBands::world() {
    static MpiBands* w = [] () -> MpiBands* {
        if (!under_mpirun()) return nullptr;
        MPI_Init(nullptr, nullptr);
        std::atexit([] { MPI_Finalize(); });
        int rank = 0, ranks = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &ranks);
        if (rank != 0) {   // every rank ends with the same report: rank 0 prints it
            if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) std::abort();
        }
        return new MpiBands(rank, ranks);
    }();
    return w;
}

void MpiBands::exchange(const std::string& up, const std::string& down, std::string* from_up, std::string* from_down) {
    const int above = rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL, below = rank_ + 1 < ranks_ ? rank_ + 1 : MPI_PROC_NULL;
    MPI_Request sent[2];
    MPI_Isend(up.data(), int(up.size()), MPI_BYTE, above, 0, MPI_COMM_WORLD, &sent[0]);
    MPI_Isend(down.data(), int(down.size()), MPI_BYTE, below, 0, MPI_COMM_WORLD, &sent[1]);
    for (auto [from, out] : {std::pair{above, from_up}, std::pair{below, from_down}}) {
        out->clear();
        if (from == MPI_PROC_NULL) continue;
        MPI_Status st;
        MPI_Probe(from, 0, MPI_COMM_WORLD, &st);
        int n = 0;
        MPI_Get_count(&st, MPI_BYTE, &n);
        out->resize(size_t(n));
        MPI_Recv(out->data(), n, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Waitall(2, sent, MPI_STATUSES_IGNORE);
}

void MpiBands::max(uint64_t* v, int n) { MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD); }

// Each rank's bytes broadcast from it into a string of their own: no gathered buffer to cut up
// again (the end of a run's sync moves every band's SRAM and cores: a copy saved is a pass over them).
std::vector<std::string> MpiBands::gather(const std::string& mine) {
    long long size = (long long)mine.size();
    std::vector<long long> sizes(static_cast<size_t>(ranks_));
    MPI_Allgather(&size, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    std::vector<std::string> out(static_cast<size_t>(ranks_));
    for (int r = 0; r < ranks_; ++r) {
        std::string& s = out[size_t(r)];
        if (r == rank_) s = mine;
        else s.resize(size_t(sizes[size_t(r)]));
        // MPI counts are ints: a rank's bytes in pieces of at most 1 GiB
        for (size_t at = 0; at < s.size(); at += size_t(1) << 30)
            MPI_Bcast(s.data() + at, int(std::min(s.size() - at, size_t(1) << 30)), MPI_BYTE, r, MPI_COMM_WORLD);
    }
    return out;
}

}  // namespace wlcli
