"""File formats topocoll reads and writes (docs/interchange.md): schedule files (JSON, MSCCL
XML; `schedule_files`), LogGOPSim's GOAL text (`goal`) and the MPI libraries' tuning files
(`mpi_tuning`). They depend on the core only, never on the simulator or the command line."""
