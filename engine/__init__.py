"""The offline engine: run a Pulumi Python program with no CLI, credentials or network.

``program_dir`` runs a program directory with its stack config; ``program_process`` runs it in
a process of its own (``program_child``, the language host's part) against ``monitor_server``,
which speaks Pulumi's resource-monitor protocol, so an untrusted program reaches
gpufleet only through them; ``run_limits`` bounds such a run. ``capture`` records every
resource registration as the engine would receive it (transforms applied), in that server or
for code run in this process under Pulumi's mock runtime; ``mock_outputs`` answers with
realistic computed values; ``wire`` decodes property values; ``stack_export`` writes a capture
as a ``pulumi stack export`` deployment; ``resource_tree`` summarises a capture for people.
"""
