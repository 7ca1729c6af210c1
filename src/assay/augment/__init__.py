"""Making benchmarks rigorous: more test inputs by type-aware mutation, labelled by the reference (EvalPlus's method, for every language)."""
