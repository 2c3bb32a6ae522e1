"""Policy checks as the Pulumi engine runs them, offline (``gpufleet check``).

``stack_check`` is the check end to end, short of rendering; ``analyzer_resources`` turns a
capture or a stack export into what the engine sends a policy pack; ``policy_pack_process``
starts a pack as a plugin process; ``analyzer_protocol`` makes the Analyzer gRPC calls;
``policy_config`` reads and validates ``--policy-pack-config`` files; ``check_run`` ties them
into a report; ``source_locations`` points findings at lines; ``baseline`` filters known
findings; ``sarif``, ``junit_report`` and ``github_report`` render reports for CI.
"""
