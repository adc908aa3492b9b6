// mpi_bands.cpp: MpiBands over MPI_COMM_WORLD.
#include "cli/mpi_bands.h"

// The C API only: Open MPI and MPICH would also pull in their deprecated C++ bindings.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

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

std::vector<std::string> MpiBands::gather(const std::string& mine) {
    long long size = (long long)mine.size();
    std::vector<long long> sizes(static_cast<size_t>(ranks_));
    MPI_Allgather(&size, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    std::vector<int> counts(static_cast<size_t>(ranks_)), at(static_cast<size_t>(ranks_));
    long long total = 0;
    for (int r = 0; r < ranks_; ++r) {
        at[size_t(r)] = int(total);
        counts[size_t(r)] = int(sizes[size_t(r)]);
        total += sizes[size_t(r)];
    }
    // MPI counts are ints: one gather holds at most 2 GiB
    if (total > 0x7fffffffLL) throw std::runtime_error("the bands' rows add up to more than 2 GiB, more than one MPI gather carries");
    std::string all(size_t(total), '\0');
    MPI_Allgatherv(mine.data(), int(mine.size()), MPI_BYTE, all.data(), counts.data(), at.data(), MPI_BYTE, MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (int r = 0; r < ranks_; ++r) out.push_back(all.substr(size_t(at[size_t(r)]), size_t(counts[size_t(r)])));
    return out;
}

}  // namespace wlcli
