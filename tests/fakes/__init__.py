"""Local fakes of outside services, for tests and benchmarks (nothing reaches the internet)."""
