"""``python -m gpufleet`` runs the CLI, as the ``gpufleet`` console script does."""

from gpufleet.cli.entry_point import run

run()
