"""Pulumi ComponentResources, one module per component (named after it), grouped by cloud
(``aws``, ``gcp``, ``azure``); ``tagging`` (the tags every child carries) and
``component_args`` (the base of every args class) are shared. Which components the stacks
build, and how, is ``stacks/component_registry.py``."""
