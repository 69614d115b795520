"""Writing the site: staging, the atomic swap, the spare, and the processes that do it."""
