"""Spreading work over local processes and over MPI ranks (mpirun with mpi4py, the `mpi`
extra). The results never depend on how the work was spread: every function returns them in task
order, as one process running them all would."""

from __future__ import annotations

import os
import pickle
import time
import traceback
from collections.abc import Callable, Sequence

from topocoll.errors import InputError

MAX_JOBS = 256  # local processes; more is a typo, not a machine
MAX_THREADS = 64  # threads of one process running engine calls (which release the GIL)


def process_map(
    work: Callable,
    tasks: Sequence,
    jobs: int,
    initializer: Callable,
    initargs: tuple,
    *,
    first: Callable | None = None,
    progress: Callable[[], None] | None = None,
) -> list:
    """[work(task) for task in tasks] over `jobs` spawned processes, each set up once by
    `initializer(*initargs)`; `first(task)` orders the submissions (the costliest first, so
    that no long task ends the sweep alone); `progress()` after each finished task. `work` and
    `initializer` must be module-level functions (pickled by reference)."""
    import multiprocessing

    order = sorted(range(len(tasks)), key=lambda k: first(tasks[k])) if first else range(len(tasks))
    context = multiprocessing.get_context("spawn")
    done: dict[int, object] = {}
    with context.Pool(min(jobs, len(tasks)), initializer, initargs) as pool:
        indexed = [(k, tasks[k]) for k in order]
        for k, result in pool.imap_unordered(_indexed, [(work, item) for item in indexed]):
            done[k] = result
            if progress:
                progress()
    return [done[k] for k in range(len(tasks))]


def _indexed(call: tuple[Callable, tuple[int, object]]) -> tuple[int, object]:
    work, (k, task) = call
    return k, work(task)


def mpi_world(command: str = "compare"):
    """(comm, rank, size) when launched by mpirun with more than one process, else None; mpi4py
    is imported only then. `command` names the caller in the error for a missing mpi4py."""
    env_size = next(
        (
            os.environ[v]
            for v in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE")
            if v in os.environ
        ),
        None,
    )
    if env_size is None or int(env_size) <= 1:
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        raise InputError(
            f"{command} was launched by mpirun with several processes but mpi4py is not "
            "installed; accepted: install mpi4py, or run without mpirun (mpi4py: pip install "
            "'topocoll[mpi]')"
        ) from None
    comm = MPI.COMM_WORLD
    return comm, comm.Get_rank(), comm.Get_size()


def _wait_for_all(comm) -> None:
    """Returns once every rank has come here, sleeping meanwhile: Open MPI's blocking
    collectives spin, which would take a core from the ranks still working."""
    request = comm.Ibarrier()
    while not request.Test():
        time.sleep(0.002)


def _rebuilt(failure: tuple[type, str, int]) -> Exception:
    kind, message, rank = failure
    try:
        error = kind(message)
    except Exception:  # a class that takes other arguments
        error = RuntimeError(f"{kind.__name__} on MPI rank {rank}: {message}")
    error.on_every_rank = True
    return error


def spread_over_ranks(
    tasks: Sequence, run: Callable[[list], list], world, *, everywhere: bool = False
) -> list | None:
    """`run(tasks)` (one result per task, in task order) spread over the ranks of `world`
    (`mpi_world()`; None: this process runs them all). The tasks are dealt to the ranks in a
    snake order (0, 1, .., n-1, n-1, .., 1, 0, 0, 1, ..), so that neither a cost growing along
    the list nor a period of it (a sweep's algorithms at each size) loads one rank more; each
    rank runs `run` on its share, and the shares are merged back in task order, so the answer
    is a single process's. Only rank 0 gets it (the others None) unless `everywhere`. An
    exception in any rank's share is raised on every rank (the lowest failing rank's, with
    `on_every_rank` set), so that no rank waits for one that failed."""
    tasks = list(tasks)
    if world is None:
        return run(tasks)
    comm, rank, nprocs = world
    owned = _dealt(len(tasks), nprocs)
    mine, failure = [tasks[k] for k in owned[rank]], None
    try:
        share = run(mine)
        if len(share) != len(mine):
            raise RuntimeError(f"{len(share)} results for {len(mine)} tasks")
    except Exception as error:
        if not isinstance(error, (ValueError, OSError, TypeError)):
            traceback.print_exc()  # a fault, not an input: its trace from where it happened
        kind = type(error)
        try:
            pickle.dumps(kind)  # sent by reference: a class defined in a function is not
        except Exception:
            kind = RuntimeError
        share, failure = None, (kind, str(error), rank)
    _wait_for_all(comm)
    if everywhere:
        parts = comm.allgather((share, failure))
        failure = next((f for _, f in parts if f), None)
    else:
        parts = comm.gather((share, failure), root=0)
        failure = comm.bcast(next((f for _, f in parts if f), None) if rank == 0 else None)
    if failure:
        raise _rebuilt(failure)
    if parts is None:
        return None
    merged: list = [None] * len(tasks)
    for indices, (part, _) in zip(owned, parts, strict=True):
        for k, result in zip(indices, part, strict=True):
            merged[k] = result
    return merged


def _dealt(count: int, nprocs: int) -> list[list[int]]:
    """Per rank, the indices of the tasks it runs: dealt in a snake order."""
    owned: list[list[int]] = [[] for _ in range(nprocs)]
    for k in range(count):
        turn, seat = divmod(k, nprocs)
        owned[seat if turn % 2 == 0 else nprocs - 1 - seat].append(k)
    return owned


def broadcast(value, world):
    """Rank 0's `value` on every rank of `world` (None: `value`), waiting without spinning."""
    if world is None:
        return value
    _wait_for_all(world[0])
    return world[0].bcast(value, root=0)
