"""The site model to files: page contexts, Jinja, downloads, the search index and related papers."""
