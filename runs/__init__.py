"""``gpufleet scale``: on-request runs, time-boxed, through the clouds' own SDKs.

A run changes a deployed workload's capacity and leaves a guard in the cloud that returns it to
zero when the run's time is up, even if nobody comes back. ``run_duration`` reads ``--for``;
``stack_target`` reads the stack config the workload was deployed from; ``run_parts`` decides
which of its parts scale and spreads the instances over them; ``scale_run`` is the command end
to end, short of rendering. One module per kind of group: ``aws_groups`` (Auto Scaling groups),
``gcp_groups`` (managed instance groups and their autoscalers), ``gcp_nodes`` (a compact
cluster's stopped VMs), ``azure_scale_sets`` (scale sets and their autoscale settings); the
clients, credentials and error wording of each cloud are in ``aws_access``, ``gcp_access`` and
``azure_access``, and a cloud's refusal is a ``cloud_error.CloudError``. Only those cloud
modules import boto3, google-cloud-compute or the Azure SDKs, and only when a run needs them.
"""
