"""A plain mpi4py program (no topocoll import): the nine collectives topocoll intercepts on
buffers from the standard array module; rank 0 prints one checksum line per collective.
preload_test.sh runs it with and without LD_PRELOAD=libtopocoll_pmpi.so and compares."""

from array import array

from mpi4py import MPI

N = 29  # per rank: not divisible by most rank counts


def value(rank, i):
    return (rank * 7919 + i * 104729) % 100003


def report(comm, name, data):
    checksum = 0
    for x in data:
        checksum = (checksum * 1000003 + x) % (1 << 64)
    sums = comm.gather(checksum, root=0)  # pickled: point-to-point in mpi4py
    if comm.rank == 0:
        print(name, *sums, flush=True)


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    root = size - 1
    send = array("q", [value(rank, i) for i in range(N * size)])
    recv = array("q", [0] * (N * size))
    one = array("q", [0] * N)

    comm.Allreduce(send[:N], one, op=MPI.SUM)
    report(comm, "allreduce", one)
    comm.Reduce_scatter_block(send, one, op=MPI.SUM)
    report(comm, "reduce_scatter_block", one)
    counts = [N + r % 3 - 1 for r in range(size)]
    out = array("q", [0] * counts[rank])
    comm.Reduce_scatter(send[: sum(counts)], out, recvcounts=counts, op=MPI.SUM)
    report(comm, "reduce_scatter", out)
    comm.Allgather(send[:N], recv)
    report(comm, "allgather", recv)
    buf = array("q", [value(rank, i) if rank == root else -1 for i in range(N)])
    comm.Bcast(buf, root=root)
    report(comm, "bcast", buf)
    one = array("q", [0] * N)
    comm.Reduce(send[:N], one, op=MPI.MAX, root=root)
    report(comm, "reduce", one)
    comm.Gather(send[:N], recv, root=root)
    report(comm, "gather", recv if rank == root else [])
    comm.Scatter(send, one, root=root)
    report(comm, "scatter", one)
    comm.Alltoall(send, recv)
    report(comm, "alltoall", recv)


if __name__ == "__main__":
    main()
