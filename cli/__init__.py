"""The ``gpufleet`` command line: click commands that parse, call the planner, and render
(``main``), their renderers, and ``entry_point``, the console script around them.
"""
