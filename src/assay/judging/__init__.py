"""Judging: deciding a verdict on the trusted side from what a sandboxed run reported.

`records`: the result channel's line format and its strict reader. `cases`: case-tested problems in
any language (the harness reports outputs; Assay compares them with expected outputs it never shows
the sandbox). Python's own judges (cases through the driver, HumanEval's check() replay) live in
assay.languages.python.
"""
