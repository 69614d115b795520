"""The `confsite` command line and its commands."""
