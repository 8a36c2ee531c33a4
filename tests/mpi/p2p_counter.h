/* Point-to-point messages posted through PMPI_Isend / PMPI_Irecv since the last reset, with
 * their sizes in bytes (p2p_counter.cpp). */
#pragma once
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

void p2p_counter_reset(void);
/* send = 1: PMPI_Isend calls, 0: PMPI_Irecv calls. */
int p2p_counter_messages(int send);
long long p2p_counter_bytes(int send, int index);

#ifdef __cplusplus
}
#endif
