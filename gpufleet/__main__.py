"""``python -m gpufleet`` runs the CLI."""

from gpufleet.cli.main import main

main()
