"""What tags the machines a group or fleet launches carry, as each cloud gives them.

A resource that launches machines is tagged itself, but its bill is its machines', and AWS
does not hand a group's or a fleet's own tags down to them:

- an Auto Scaling group gives its instances the tags it marks ``propagateAtLaunch``, and its
  launch templates give theirs (``tagSpecifications`` for ``instance``); the provider's
  ``defaultTags`` reach neither (the group's tags are a list, the specifications the
  template's data);
- an EC2 Fleet's tags stay on the fleet ("to tag instances at launch, specify the tags in the
  Launch Template", the SDK says); a Spot Fleet request's stay on the request: its instances
  get their launch specifications' ``tags`` and their templates' specifications;
- an EKS managed node group's tags stay on the node group (EKS API reference, CreateNodegroup
  ``tags``: they "do not propagate to any other resources associated with the node group, such
  as the Amazon EC2 instances"): its nodes get their launch template's specifications;
- a Batch compute environment's ``computeResources.tags`` go to the instances it launches,
  not its own ``tags``.

Templates are found through the launcher's property dependencies (a preview knows them while
the template's id is unknown), else by the id or name the launcher gives. A template that is
not in the stack cannot be read: the launcher's machines may then carry anything, which
``LaunchedTags.unread`` says. GCP and Azure machines carry what their template, node pool
(``nodeConfig.resourceLabels``) or scale set carries, which ``required-tags`` reads on those
resources themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.property_values import as_list, get_path, is_unknown
from gpufleet.capacity.stack_resource import StackResource
from gpufleet.capacity.taggable import ignored_tag_keys, list_entries


@dataclass(frozen=True)
class LaunchedTags:
    """The tags every machine a launcher starts will carry (the keys common to all the ways it
    launches them), whether some keys cannot be known yet, and what could not be read."""

    entries: dict[str, Any]
    keys_unknown: bool
    how: str  # where they come from, for messages
    unread: str | None = None


@dataclass(frozen=True)
class _Source:
    entries: dict[str, Any]
    keys_unknown: bool = False


class _Stack:
    """The stack's launch templates, found by URN, id or name."""

    def __init__(self, resources: list[StackResource]) -> None:
        self.by_urn = {r.urn: r for r in resources}
        self.templates: dict[str, StackResource] = {}
        for r in resources:
            if r.type != types.AWS_LAUNCH_TEMPLATE:
                continue
            for key in ("id", "name", "arn"):
                value = r.props.get(key)
                if isinstance(value, str) and value and not is_unknown(value):
                    self.templates.setdefault(value, r)

    def templates_of(
        self, launcher: StackResource, specs: list[Any]
    ) -> tuple[list[StackResource], str | None]:
        """The launch templates ``specs`` (``{id | name, version}`` objects) name, and why
        some cannot be read (not in the stack)."""
        linked = [
            self.by_urn[urn]
            for urns in launcher.property_dependencies.values()
            for urn in urns
            if urn in self.by_urn and self.by_urn[urn].type == types.AWS_LAUNCH_TEMPLATE
        ]
        found = list({r.urn: r for r in linked}.values())
        missing = []
        for spec in specs:
            if not isinstance(spec, dict):
                continue
            named = [spec.get(k) for k in ("id", "launchTemplateId", "name", "launchTemplateName")]
            named = [n for n in named if isinstance(n, str) and n]
            if not named or any(is_unknown(n) for n in named):
                continue  # linked through its dependency, if at all
            template = next((self.templates[n] for n in named if n in self.templates), None)
            if template is None:
                missing.append(named[0])
            elif template.urn not in {r.urn for r in found}:
                found.append(template)
        if missing and not found:
            return [], f"its launch template {missing[0]} is not in this stack"
        return found, None


def instance_tag_specs(template: StackResource) -> _Source:
    """The tags a launch template gives the instances launched from it."""
    specs = template.props.get("tagSpecifications")
    if is_unknown(specs):
        return _Source({}, keys_unknown=True)
    entries: dict[str, Any] = {}
    unknown = False
    for spec in as_list(specs):
        if not isinstance(spec, dict):
            continue
        kind = spec.get("resourceType")
        if is_unknown(kind):
            unknown = True
            continue
        if kind != "instance":
            continue
        tags = spec.get("tags")
        if is_unknown(tags):
            unknown = True
        elif isinstance(tags, dict):
            entries.update(tags)
    return _Source(entries, unknown)


def _combined(sources: list[_Source], how: str, unread: str | None = None) -> LaunchedTags:
    """Tags a launcher's machines all carry, launched any of these ways: for one way, its
    tags; for several (templates of a mixed group's versions), the keys all of them give."""
    if not sources:
        return LaunchedTags({}, False, how, unread)
    common = set(sources[0].entries)
    for source in sources[1:]:
        common &= set(source.entries)
    entries = {k: v for source in sources for k, v in source.entries.items() if k in common}
    return LaunchedTags(entries, any(s.keys_unknown for s in sources), how, unread)


def _with(first: _Source, sources: list[_Source]) -> list[_Source]:
    """Each way to launch, with ``first`` (tags every launch gets) added under its own."""
    if not sources:
        return [first]
    return [
        _Source({**first.entries, **s.entries}, first.keys_unknown or s.keys_unknown)
        for s in sources
    ]


def _template_specs(props: dict[str, Any], *paths: tuple[str, ...]) -> list[Any]:
    """The values at ``paths``, through lists at any step (a fleet's list of configs)."""
    found: list[Any] = []
    for path in paths:
        found.extend(v for v in _values(props, path) if v is not None)
    return found


def _values(value: Any, path: tuple[str, ...]) -> list[Any]:
    if isinstance(value, list):
        return [v for item in value for v in _values(item, path)]
    if not path:
        return [value]
    if not isinstance(value, dict):
        return []
    return _values(value.get(path[0]), path[1:])


def _autoscaling_group(r: StackResource, stack: _Stack) -> LaunchedTags:
    propagated, unknown = list_entries(as_list(r.props.get("tags")), launched_only=True)
    if is_unknown(r.props.get("tags")):
        unknown = True
    specs = _template_specs(
        r.props,
        ("launchTemplate",),
        ("mixedInstancesPolicy", "launchTemplate", "launchTemplateSpecification"),
    )
    specs += _template_specs(
        r.props,
        ("mixedInstancesPolicy", "launchTemplate", "overrides", "launchTemplateSpecification"),
    )
    templates, unread = stack.templates_of(r, specs)
    sources = _with(_Source(propagated, unknown), [instance_tag_specs(t) for t in templates])
    return _combined(
        sources,
        "tags marked propagate_at_launch, and its launch template's tag_specifications "
        "for instances",
        unread,
    )


def _template_launcher(how: str, *paths: tuple[str, ...]) -> Launcher:
    def read(r: StackResource, stack: _Stack) -> LaunchedTags:
        specs = _template_specs(r.props, *paths)
        templates, unread = stack.templates_of(r, specs)
        return _combined([instance_tag_specs(t) for t in templates], how, unread)

    return read


def _spot_fleet_request(r: StackResource, stack: _Stack) -> LaunchedTags:
    sources: list[_Source] = []
    specifications = r.props.get("launchSpecifications")
    for spec in as_list(specifications):
        if is_unknown(spec):
            sources.append(_Source({}, keys_unknown=True))
        elif isinstance(spec, dict):
            tags = spec.get("tags")
            sources.append(
                _Source({}, keys_unknown=True)
                if is_unknown(tags)
                else _Source(dict(tags) if isinstance(tags, dict) else {})
            )
    specs = _template_specs(r.props, ("launchTemplateConfigs", "launchTemplateSpecification"))
    templates, unread = stack.templates_of(r, specs)
    sources += [instance_tag_specs(t) for t in templates]
    return _combined(
        sources,
        "its launch specifications' tags, or its launch template's tag_specifications for "
        "instances (the request's own tags stay on the request)",
        unread,
    )


def _batch_compute_environment(r: StackResource, stack: _Stack) -> LaunchedTags:
    if str(get_path(r.props, "computeResources", "type") or "").upper().startswith("FARGATE"):
        return LaunchedTags({}, False, "", None)  # no instances of its own
    tags = get_path(r.props, "computeResources", "tags")
    own = _Source({}, True) if is_unknown(tags) else _Source(tags if isinstance(tags, dict) else {})
    templates, unread = stack.templates_of(
        r, _template_specs(r.props, ("computeResources", "launchTemplate"))
    )
    return _combined(
        _with(own, [instance_tag_specs(t) for t in templates]),
        "computeResources.tags, or its launch template's tag_specifications for instances",
        unread,
    )


Launcher = Callable[[StackResource, _Stack], LaunchedTags]

LAUNCHERS: dict[str, Launcher] = {
    types.AWS_AUTOSCALING_GROUP: _autoscaling_group,
    types.AWS_FLEET: _template_launcher(
        "its launch template's tag_specifications for instances (the fleet's own tags stay "
        "on the fleet)",
        ("launchTemplateConfigs", "launchTemplateSpecification"),
    ),
    types.AWS_SPOT_FLEET_REQUEST: _spot_fleet_request,
    types.AWS_EKS_NODE_GROUP: _template_launcher(
        "its launch template's tag_specifications for instances (the node group's own tags "
        "stay on the node group)",
        ("launchTemplate",),
    ),
    types.AWS_BATCH_COMPUTE_ENVIRONMENT: _batch_compute_environment,
}


def launched_tags(resources: list[StackResource]) -> dict[str, LaunchedTags]:
    """For each launcher of the stack (by URN), what its machines carry; the keys the AWS
    provider ignores left out, as on the resource itself."""
    stack = _Stack(resources)
    found: dict[str, LaunchedTags] = {}
    for r in resources:
        reader = LAUNCHERS.get(r.type)
        if reader is None:
            continue
        launched = reader(r, stack)
        ignored = ignored_tag_keys(r.provider_props)
        if ignored is not None:
            launched = LaunchedTags(
                {k: v for k, v in launched.entries.items() if not ignored(str(k))},
                launched.keys_unknown,
                launched.how,
                launched.unread,
            )
        found[r.urn] = launched
    return found
