"""Build the site described by site.yaml: the same as `confsite build`, with the same options."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))

from confsite.cli.commands import run  # noqa: E402

if __name__ == "__main__":
    run(["build", *sys.argv[1:]])
