"""The ``gpufleet`` command line: click commands that parse, call the planner, and render."""
