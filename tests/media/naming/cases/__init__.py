"""Case tables for tests/media/test_naming.py, drawn from naming guides users follow."""
