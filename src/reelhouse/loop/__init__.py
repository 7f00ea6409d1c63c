"""Keeping the event loop free.

Dedicated worker threads and their nice values, time slices for loops that run on the event
loop, and the watchdog that names a task that blocked it.
"""
