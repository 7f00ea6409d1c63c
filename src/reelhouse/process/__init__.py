"""The server process around the actor tree.

PID 1's init, the data directory's lock, bounds and tracing of the process's memory, and the
niced child that runs backups and database upkeep.
"""
