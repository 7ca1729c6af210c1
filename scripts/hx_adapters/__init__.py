"""Adapters that fit HumanEval-X's canonical solutions (their own names and types) to MultiPL-E's prompts.

Each language module has `adapt(problem, row) -> str`: a whole program, as a chat model would write
it, that holds HumanEval-X's declaration and canonical solution and defines the MultiPL-E entry point
(with MultiPL-E's exact signature) as a thin wrapper that converts the arguments to HumanEval-X's
types, calls its solution, and converts the result back. The language plugin splices that program
into MultiPL-E's prompt like any chat reply, and the case harness judges it on HumanEval+'s inputs.
"""
