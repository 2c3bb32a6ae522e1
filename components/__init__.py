"""Pulumi ComponentResources, one module per component (named after it), grouped by cloud
(``aws``, ``gcp``, ``azure``); ``tagging`` (the tags every child carries),
``component_args`` (the base of every args class) and ``scaling`` (how a group's size follows
the plan's hours) are shared. Which components the stacks
build, and how, is ``stacks/component_registry.py``."""
