"""The Pulumi program (``main: stacks/`` in Pulumi.yaml) and what feeds it.

``__main__`` is the entry point Pulumi runs; ``program`` builds the parts a stack config names
through ``component_registry`` (every component, the placements it builds, how it is built
from the config); ``stack_config`` is the config's shape (``gpufleet:`` generated, ``site:``
yours); ``placement_parts`` maps a planned placement to components; ``config_writer`` and
``generate`` write ``Pulumi.<env>.yaml`` for ``gpufleet generate``. Only ``program`` and
``__main__`` import pulumi (the registry imports each component when it builds it).
"""
