"""The Pulumi program (``main: stacks/`` in Pulumi.yaml) and what feeds it.

``__main__`` is the entry point Pulumi runs; ``program`` builds the components a stack config
names; ``stack_config`` is the config's shape (``gpufleet:`` generated, ``site:`` yours);
``placement_parts`` maps a planned placement to components; ``config_writer`` and ``generate``
write ``Pulumi.<env>.yaml`` for ``gpufleet generate``. Only ``program`` and ``__main__`` import
pulumi.
"""
