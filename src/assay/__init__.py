"""Assay: trustworthy evaluation of code written by language models."""

__version__ = "0.1.0"
