"""confsite: a static website generator for conference proceedings."""

__version__ = "0.1.0"
