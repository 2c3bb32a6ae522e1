"""The offline engine: run a Pulumi Python program with no CLI, credentials or network.

``capture`` runs a program under Pulumi's mock runtime and records every resource registration
as the engine would receive it (transforms applied); ``mock_outputs`` answers with realistic
computed values; ``wire`` decodes property values; ``program_dir`` runs a program directory with
its stack config; ``stack_export`` writes a capture as a ``pulumi stack export`` deployment;
``resource_tree`` summarises a capture for people.
"""
