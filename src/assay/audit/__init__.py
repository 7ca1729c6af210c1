"""Benchmark audits: static checks over a benchmark's own files that find defects before any sample runs (translation lints for benchmarks carried over from Python into other languages)."""
