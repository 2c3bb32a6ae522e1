"""Elastic Beanstalk: environments and the configuration templates they may start from.

Both hold option settings (``settings``: namespace, name, value). An environment runs an
Auto Scaling group of the instance types ``aws:ec2:instances`` ``InstanceTypes`` lists
(comma-separated) or ``aws:autoscaling:launchconfiguration`` ``InstanceType`` names, from
``aws:autoscaling:asg`` ``MinSize`` to ``MaxSize`` (Beanstalk's defaults: 1 and 4), one
instance when ``aws:elasticbeanstalk:environment`` ``EnvironmentType`` is ``SingleInstance``;
a scheduled action (``aws:autoscaling:scheduledaction``) may raise its size for a while. With
``EnableSpot`` it buys the first ``SpotFleetOnDemandBase`` instances on-demand and
``SpotFleetOnDemandAboveBasePercentage`` of the rest (defaults: 0, and 70 for a load-balanced
environment, 0 for a single instance), spot otherwise. An environment that names a
configuration template (``templateName``) takes the template's settings where it sets none
(``stack_capacity`` passes them in when the template is in the stack); a template alone is
a template: machines, no count. With no instance type set Beanstalk launches its default CPU
types.

Setting defaults: Elastic Beanstalk Developer Guide, "General options for all environments"
(https://docs.aws.amazon.com/elasticbeanstalk/latest/dg/command-options-general.html).
"""

from __future__ import annotations

from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.aws import _region
from gpufleet.capacity.footprints.model import GpuFootprint, Machine
from gpufleet.capacity.footprints.reading import Reading, inherits, reads, shown
from gpufleet.capacity.property_values import as_list, is_unknown

_ASG = "aws:autoscaling:asg"
_INSTANCES = "aws:ec2:instances"
_LAUNCH = "aws:autoscaling:launchconfiguration"
_ENVIRONMENT = "aws:elasticbeanstalk:environment"
_SCHEDULED = "aws:autoscaling:scheduledaction"
DEFAULT_MIN_SIZE, DEFAULT_MAX_SIZE = 1.0, 4.0
# The part of the instances above the on-demand base bought on-demand, when spot is enabled
# and the environment does not say: by environment type.
_DEFAULT_ON_DEMAND_PERCENT = {"loadbalanced": 70.0, "singleinstance": 0.0}


class _Settings:
    """An environment's or template's option settings: the last value of each (namespace,
    name), and its scheduled actions' sizes."""

    def __init__(self, r: Reading) -> None:
        self.values: dict[tuple[str, str], Any] = {}
        self.scheduled: list[tuple[str, Any]] = []
        listed = r.get("settings")
        if is_unknown(listed):
            r.unknown_value("settings are")
            listed = None
        for entry in as_list(listed):
            if is_unknown(entry):
                r.unknown_value("a setting is")
                continue
            if not isinstance(entry, dict):
                continue
            namespace, name = entry.get("namespace"), entry.get("name")
            if not isinstance(namespace, str) or not isinstance(name, str):
                if is_unknown(namespace) or is_unknown(name):
                    r.unknown_value("a setting's namespace or name is")
                continue
            key = (namespace.strip().lower(), name.strip().lower())
            if key[0] == _SCHEDULED:
                self.scheduled.append((name, entry.get("value")))
            else:
                self.values[key] = entry.get("value")

    def get(self, namespace: str, name: str) -> Any:
        return self.values.get((namespace, name.lower()))


def _machines(r: Reading, settings: _Settings) -> list[Machine | None]:
    machines: list[Machine | None] = []
    listed = settings.get(_INSTANCES, "InstanceTypes")
    if listed is not None and not r.unreadable(listed, "InstanceTypes"):
        if not isinstance(listed, str):
            r.undetermined.append(f"InstanceTypes {shown(listed)} is not a list of types")
        else:
            machines += [
                r.machine("aws", name, "InstanceTypes")
                for name in listed.split(",")
                if name.strip()
            ]
    machines.append(r.machine("aws", settings.get(_LAUNCH, "InstanceType"), "InstanceType"))
    return machines


def _market(r: Reading, settings: _Settings, most: float | None, single: bool) -> dict[str, Any]:
    """The market fields of its group: on-demand unless spot is enabled; then its on-demand
    base and percentage above it, as an Auto Scaling group's."""
    enabled = settings.get(_INSTANCES, "EnableSpot")
    if enabled is None or r.unreadable(enabled, "EnableSpot"):
        return {"market": "on_demand"}
    if str(enabled).strip().lower() != "true":
        return {"market": "on_demand"}
    base = r.number(
        settings.get(_INSTANCES, "SpotFleetOnDemandBase"), "SpotFleetOnDemandBase", 0.0, whole=True
    )
    percent = r.number(
        settings.get(_INSTANCES, "SpotFleetOnDemandAboveBasePercentage"),
        "SpotFleetOnDemandAboveBasePercentage",
        _DEFAULT_ON_DEMAND_PERCENT["singleinstance" if single else "loadbalanced"],
        most=100.0,
    )
    if most is None or base is None or percent is None:
        return {"market": "on_demand", "on_demand_base": base, "on_demand_percent": percent}
    on_demand = min(base, most) + max(most - base, 0.0) * percent / 100.0
    bought = "spot" if on_demand == 0 else "on_demand" if on_demand == most else "mixed"
    return {"market": bought, "on_demand_base": base, "on_demand_percent": percent}


@reads(types.AWS_BEANSTALK_ENVIRONMENT)
def environment(r: Reading) -> GpuFootprint | None:
    """An Elastic Beanstalk environment: min / max size of its instance types (its settings, or its
    configuration template's), spot per its spot settings."""
    settings = _Settings(r)
    named = r.get("templateName")
    if named is not None:
        # Its template is not in the stack (else its settings were passed in): what it leaves
        # to the template is not known.
        shown_name = "(unknown during preview)" if is_unknown(named) else shown(named)
        r.undetermined.append(
            f"its configuration template {shown_name} is not in this stack: the settings it "
            "gives (instance types, sizes, spot) are not known"
        )
    machines = _machines(r, settings)
    kind = settings.get(_ENVIRONMENT, "EnvironmentType")
    single = False
    if kind is not None and not r.unreadable(kind, "EnvironmentType"):
        single = str(kind).strip().lower() == "singleinstance"
    if single:
        least: float | None = 1.0
        most: float | None = 1.0
    else:
        least = r.number(settings.get(_ASG, "MinSize"), "MinSize", DEFAULT_MIN_SIZE, whole=True)
        most = r.number(settings.get(_ASG, "MaxSize"), "MaxSize", DEFAULT_MAX_SIZE, whole=True)
        r.at_most(least, "min size", most, "max size")
    raised = [
        r.number(value, f"scheduled action {name}", None, whole=True)
        for name, value in settings.scheduled
        if name.strip().lower() in ("minsize", "maxsize", "desiredcapacity")
    ]
    notes: tuple[str, ...] = ()
    if most is not None and any(size is not None and size > most for size in raised):
        most = max(size for size in raised if size is not None)
        notes = ("a scheduled action raises its size for a while: counted at that size",)
    return r.footprint(
        cloud="aws",
        kind="Elastic Beanstalk environment",
        is_template=False,
        machines=machines,
        expected_units=least,
        max_units=most,
        region=_region(r),
        notes=notes,
        **_market(r, settings, most, single),
    )


@reads(types.AWS_BEANSTALK_CONFIGURATION_TEMPLATE)
def configuration_template(r: Reading) -> GpuFootprint | None:
    """An Elastic Beanstalk configuration template: the instance types and spot settings
    environments launch with it; no count."""
    settings = _Settings(r)
    return r.footprint(
        cloud="aws",
        kind="Elastic Beanstalk configuration template",
        is_template=True,
        machines=_machines(r, settings),
        region=_region(r),
        **_market(r, settings, None, False),
    )


@inherits(
    types.AWS_BEANSTALK_ENVIRONMENT, "templateName", types.AWS_BEANSTALK_CONFIGURATION_TEMPLATE
)
def with_template(environment: dict[str, Any], template: dict[str, Any]) -> dict[str, Any]:
    """An environment's properties with its template's settings first: its own, after them,
    decide where both set an option."""
    own = environment.get("settings")
    given = template.get("settings")
    if is_unknown(own) or is_unknown(given):
        merged: Any = own if is_unknown(own) else given
    else:
        merged = [*as_list(given), *as_list(own)]
    return {**environment, "settings": merged, "templateName": None}
