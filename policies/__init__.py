"""CrossGuard policy rules for gpufleet's pack (issue 6); importable without starting the pack."""
