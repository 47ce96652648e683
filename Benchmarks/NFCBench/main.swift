// Benchmarks: see Makefile 'bench'.
