"""Running a worker: its HTTP server, health and drain, metrics, the garbage collector's
pauses, and a clear 503 while the store is away."""
