/* Point-to-point messages posted through PMPI_Isend, PMPI_Send / PMPI_Irecv since the last reset, with
 * their sizes in bytes, and the local reductions (p2p_counter.cpp). */
#pragma once
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

void p2p_counter_reset(void);
/* send = 1: PMPI_Isend and PMPI_Send calls, 0: PMPI_Irecv calls. */
int p2p_counter_messages(int send);
long long p2p_counter_bytes(int send, int index);
/* The destination rank of send `index`, the source rank of receive `index`. */
int p2p_counter_peer(int send, int index);
/* PMPI_Reduce_local calls since the last reset: the bytes each reduced, and how many of the
 * messages posted so far had not completed (through PMPI_Wait, Waitall or Waitsome) when it
 * ran: above 0, the reduction overlapped messages in flight. */
int p2p_counter_reductions(void);
long long p2p_counter_reduction_bytes(int index);
long long p2p_counter_reduction_in_flight(int index);

#ifdef __cplusplus
}
#endif
