from .cli.commands import run

run()
