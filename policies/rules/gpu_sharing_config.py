"""Rule ``gpu-sharing-config``: a MIG plan a machine boots with fits its GPU.

A machine that cuts its GPUs into MIG instances at boot (``nvidia-smi mig -cgi ...``) gets
nothing from a plan its GPU cannot take: the driver refuses a profile the GPU does not have,
or instances that overlap or need more than its seven compute slices, and the replicas meant
for them start on the wrong device or not at all. So the rule reads what the resource itself
says it will run at boot — every text among its properties, base64- or gzip-encoded ones too
(launch templates' and instances' user data, instance templates' startup scripts, scale sets'
custom data, and whatever property another type keeps it in) — and checks each GPU instance
list it creates against NVIDIA's profiles and placement rules for the machine's GPU
(``planner/mig_profiles.py``, ``planner/gpu_sharing.placed``):

- the GPU is the machine's (its GPU footprint); on a template that names no machine (a group's
  overrides do), the ``# gpufleet-mig-gpu: <GPU>`` line gpufleet's boot scripts carry; a plan
  for neither, or for a GPU other than the machine's, is a violation;
- a list is the profiles one ``-cgi`` creates (ids or names, shell variables set in the same
  text resolved); one it cannot read, a GPU without MIG, a profile the GPU does not have, or
  a list with no valid placement is a violation (fail closed).

Each ``-cgi`` is checked alone, as one GPU's instances (gpufleet creates a GPU's whole layout in
one); instances added to a GPU by several commands are not summed.
"""

from __future__ import annotations

import base64
import binascii
import re
import shlex
import zlib
from collections.abc import Iterator
from typing import Any

from gpufleet.capacity.property_values import is_unknown
from gpufleet.components.replica_slots import MIG_GPU_MARKER
from gpufleet.planner.mig_profiles import MIG_PROFILES, placed
from gpufleet.policies.policy_builders import Findings, ResourceView, Settings, resource_policy
from gpufleet.policies.shared_reads import shared_gpu_footprints
from gpufleet.policy_tags import COST

# Boot text is small (EC2 takes 16 KiB, Azure 64 KiB): a decompressed text beyond this is not
# read further (its MIG commands, if any, are past it: the rule says it cannot read them).
MAX_TEXT = 1 << 20
_BASE64 = re.compile(r"[A-Za-z0-9+/\r\n]{24,}={0,2}")
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+|local\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)", re.M)
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_CREATE = ("-cgi", "--create-gpu-instance")


def _decoded(text: str) -> str | None:
    """The text a base64 (and maybe gzip) string holds, or None when it holds no text."""
    if len(text) < 24 or not _BASE64.fullmatch(text.strip()):
        return None
    try:
        raw = base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError):
        return None
    if raw[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(wbits=31)
        try:
            raw = inflater.decompress(raw, MAX_TEXT)
        except zlib.error:
            return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _texts(value: Any) -> Iterator[str]:
    """Every string among ``value``'s properties, and what encoded ones hold."""
    if isinstance(value, str):
        if is_unknown(value):
            return
        yield value
        inner = _decoded(value)
        if inner is not None:
            yield inner
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


# Property names that hold what a machine runs at boot, on any type: an unknown one (a
# preview's) may hide a MIG plan; other unknowns (ids, names) cannot.
_BOOT_KEYS = re.compile(r"user_?data|custom_?data|startup|script|cloud_?init|metadata", re.I)


def _unknown_boot_text(
    value: Any, path: tuple[str | int, ...] = ()
) -> tuple[tuple[str | int, ...], Any] | None:
    """The first unknown value under a boot-text property, with its path."""
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        booting = any(isinstance(k, str) and _BOOT_KEYS.search(k) for k in path)
        return (path, value) if booting and is_unknown(value) else None
    for key, item in items:
        found = _unknown_boot_text(item, (*path, key))
        if found is not None:
            return found
    return None


def mig_plans(text: str) -> list[list[str]]:
    """Each GPU instance list a boot text creates (``nvidia-smi mig -cgi A,B,...``), with the
    text's own ``name=value`` shell variables resolved; a token left with ``$`` is unread."""
    if "nvidia-smi" not in text or not any(flag in text for flag in _CREATE):
        return []
    variables = {name: value.strip("'\"") for name, value in _ASSIGNMENT.findall(text)}
    plans = []
    for line in text.splitlines():
        if "nvidia-smi" not in line:
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        for index, word in enumerate(words[:-1]):
            if word in _CREATE:
                value = _VARIABLE.sub(
                    lambda m: variables.get(m.group(1), m.group(0)), words[index + 1]
                )
                plans.append([t.strip() for t in value.split(",") if t.strip()])
    return plans


def _declared_gpu(text: str) -> str | None:
    for line in text.splitlines():
        if MIG_GPU_MARKER in line:
            return line.split(MIG_GPU_MARKER, 1)[1].strip() or None
    return None


def _profile_names(gpu: str, tokens: list[str]) -> tuple[list[str], list[str]]:
    """(profile names, tokens that are none of the GPU's profiles)."""
    table = MIG_PROFILES[gpu]
    by_id = {str(p.profile_id): p.name for p in table}
    by_name = {p.name: p.name for p in table}
    names, unknown = [], []
    for token in tokens:
        word = token.lower().removeprefix("mig").strip()
        name = by_id.get(word) or by_name.get(word)
        if name is None:
            unknown.append(token)
        else:
            names.append(name)
    return names, unknown


def check_sharing_config(resource: ResourceView, settings: Settings) -> Findings:
    findings = Findings()
    plans: list[list[str]] = []
    declared: set[str] = set()
    for text in _texts(resource.props):
        found = mig_plans(text)
        if found:
            plans += found
            gpu = _declared_gpu(text)
            if gpu is not None:
                declared.add(gpu)
    if not plans:
        unknown = _unknown_boot_text(resource.props)
        if unknown is not None:
            findings.unknown = (list(unknown[0]), unknown[1])
        return findings
    machines = {
        m.gpu_name: m.instance_type for f in shared_gpu_footprints(resource) for m in f.machines
    }
    gpus = set(machines) or declared
    if not gpus:
        findings.violate(
            "its boot text creates MIG instances, but nothing says on which GPU: name the "
            f"instance type, or add a '# {MIG_GPU_MARKER} <GPU>' line"
        )
        return findings
    for gpu in sorted(declared - set(machines) if machines else ()):
        findings.violate(f"its MIG plan is for {gpu}, but it runs {', '.join(sorted(machines))}")
    for gpu in sorted(gpus):
        machine = machines.get(gpu, gpu)
        if gpu not in MIG_PROFILES:
            findings.violate(
                f"{machine} carries {gpu}, which has no MIG; GPUs with MIG: "
                f"{', '.join(MIG_PROFILES)}"
            )
            continue
        for tokens in plans:
            unread = [t for t in tokens if "$" in t]
            if unread or not tokens:
                findings.violate(
                    f"cannot read the MIG profiles it creates ({', '.join(unread) or 'none'}); "
                    "give them as ids or names, or as a variable set in the same script"
                )
                continue
            names, unknown = _profile_names(gpu, tokens)
            if unknown:
                has = ", ".join(f"{p.name} ({p.profile_id})" for p in MIG_PROFILES[gpu])
                findings.violate(f"{gpu} has no MIG profile {', '.join(unknown)}; it has {has}")
            elif placed(gpu, names) is None:
                findings.violate(
                    f"MIG instances {', '.join(names)} do not fit one {gpu}: NVIDIA's placements "
                    "allow no layout of them (memory slices overlap, or more than 7 compute slices)"
                )
    return findings


POLICY = resource_policy(
    "gpu-sharing-config",
    "A MIG plan a machine boots with fits its GPU's profiles and placements.",
    check_sharing_config,
    config={},
    display_name="MIG plans that fit their GPU",
    tags=[COST],
    applies_to=lambda type_: not type_.startswith("pulumi:"),
    remediation_steps="Create only the GPU's own MIG profiles, in a layout NVIDIA's placement "
    "table allows (gpufleet plan with sharing: mig lays one out), on a GPU with MIG.",
)
