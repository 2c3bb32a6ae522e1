"""Commitments an account holds, and which reserved capacity they pay for.

A reservation (an EC2 capacity reservation, a GCE reservation, an Azure capacity reservation)
bills whether used or not, at the on-demand rate unless a commitment pays for it: EC2 reserved
instances or a Savings Plan, a GCP committed-use discount, an Azure reservation. The plan
advises one, and the stack carries that advice as a ``commitment`` tag; a tag is a forecast,
not a purchase. Only a ``HeldCommitment`` sets the committed rate: one read from the account
by ``gpufleet commitments`` (``--output`` writes them to a file for ``--commitments FILE``),
declared in the stack config as ``site:commitments``, or bought by the stack itself (a GCP
``RegionCommitment``, ``declared_commitments``).

``cover`` decides which reserved capacity the held commitments pay for, instance by instance,
each commitment spent once, so the cost engine and ``gpufleet commitments`` agree:

- **instances** (EC2 reserved instances, Azure reservations): the same instance type in the
  same region, and in the same zone for a zonal one; no size flexibility is assumed.
- **savings_plan** (EC2 Instance and Compute Savings Plans): an hourly spend, in one region
  and instance family or anywhere; it covers as many instances as it pays for at the catalog's
  committed rate of the plan's term (Savings Plans rates are close to it, not equal).
- **resources** (GCP committed-use discounts): GPUs by accelerator type, vCPUs and memory in
  one region, for one machine series (its commitment type, ``family``; none: any); an
  instance is covered only when all three of its resources are. Those of one region, series
  and term pay together, as GCP applies them in aggregate.

A commitment whose end has passed, or that has not started, covers nothing. No pulumi and no
pydantic here: the policy pack reads ``site:commitments`` with it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal, get_args

from gpufleet.capacity.footprints.model import Machine
from gpufleet.clouds import CLOUDS, Cloud
from gpufleet.planner.gcp_machines import GPU_OF_ACCELERATOR, commitment_type
from gpufleet.planner.gpus import normalize_gpu_name
from gpufleet.planner.rates import RateCard
from gpufleet.pricing_models import PRICING_OF_TERM, Commitment

CommitmentKind = Literal["instances", "savings_plan", "resources"]
COMMITMENT_KINDS: tuple[CommitmentKind, ...] = get_args(CommitmentKind)
TERMS: tuple[Commitment, ...] = tuple(PRICING_OF_TERM)
# The most records one declaration holds: a bound on what a hostile config can make gpufleet do.
MAX_COMMITMENTS = 10_000
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class HeldCommitment:
    """One commitment of an account, as gpufleet reads it (see the module's docstring)."""

    cloud: Cloud
    id: str
    term: Commitment
    kind: CommitmentKind
    region: str | None  # None: any region (a Compute Savings Plan)
    zone: str | None = None  # a zonal reserved instance's zone
    instance_type: str | None = None  # instances: the type it is for
    # savings_plan: the EC2 family of an Instance Savings Plan; resources: the GCP commitment
    # type (machine series) it pays for. None: any.
    family: str | None = None
    count: float = 0.0  # instances
    hourly_usd: float = 0.0  # savings_plan: the spend an hour it commits to
    accelerators: Mapping[str, float] = field(default_factory=dict)  # resources: type -> GPUs
    vcpus: float = 0.0  # resources
    memory_gib: float = 0.0  # resources
    start: str | None = None  # ISO date
    end: str | None = None  # ISO date
    source: str = ""  # where it was read (the API), for people

    def active(self, today: date) -> bool:
        started = self.start is None or self.start[:10] <= today.isoformat()
        return started and (self.end is None or self.end[:10] >= today.isoformat())

    def as_config(self) -> dict[str, Any]:
        """Its stack config / file shape (``site:commitments``): camelCase, defaults left out."""
        out: dict[str, Any] = {
            "cloud": self.cloud,
            "id": self.id,
            "term": self.term,
            "kind": _CAMEL_KIND[self.kind],
        }
        optional: dict[str, Any] = {
            "region": self.region,
            "zone": self.zone,
            "instanceType": self.instance_type,
            "family": self.family,
            "count": _number(self.count),
            "hourlyUsd": _number(self.hourly_usd),
            "accelerators": {k: _number(v) for k, v in self.accelerators.items()} or None,
            "vcpus": _number(self.vcpus),
            "memoryGib": _number(self.memory_gib),
            "start": self.start,
            "end": self.end,
            "source": self.source or None,
        }
        out.update({k: v for k, v in optional.items() if v})
        return out


_CAMEL_KIND: dict[CommitmentKind, str] = {
    "instances": "instances",
    "savings_plan": "savingsPlan",
    "resources": "resources",
}
_KIND_OF_CAMEL: dict[str, CommitmentKind] = {camel: kind for kind, camel in _CAMEL_KIND.items()}


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


# --- reading a declaration ------------------------------------------------------------------


Path = tuple[str | int, ...]
# A problem with a declaration: where in it (list index, field) and what is wrong.
Problem = tuple[Path, str]


def parse_commitments(value: object) -> tuple[list[HeldCommitment], list[Problem]]:
    """The commitments a declaration lists (``site:commitments``, a ``--commitments`` file's
    ``commitments``), and one problem per field of an entry that is not one; such an entry
    is left out (it pays for nothing)."""
    if not isinstance(value, list):
        return [], [((), f"a list of commitments, not {type(value).__name__}")]
    if len(value) > MAX_COMMITMENTS:
        return [], [((), f"{len(value):,} entries; at most {MAX_COMMITMENTS:,}")]
    found: list[HeldCommitment] = []
    problems: list[Problem] = []
    for index, entry in enumerate(value):
        if not isinstance(entry, dict):
            problems.append(((index,), "an object with cloud, id, term and kind"))
            continue
        held, wrong = _entry(entry, index)
        problems += wrong
        if held is not None:
            found.append(held)
    return found, problems


def _entry(entry: dict[str, Any], index: int) -> tuple[HeldCommitment | None, list[Problem]]:
    problems: list[Problem] = []

    def text(key: str, required: bool = False) -> str | None:
        raw = entry.get(key)
        if raw is None:
            if required:
                problems.append(((index, key), "required"))
            return None
        if not isinstance(raw, str) or not raw.strip() or len(raw) > 256:
            problems.append(((index, key), "a non-empty string of at most 256 characters"))
            return None
        return raw.strip()

    def amount(field: str, raw: object) -> float:
        if raw is None:
            return 0.0
        if (
            isinstance(raw, bool)
            or not isinstance(raw, int | float)
            or not math.isfinite(raw)
            or raw < 0
        ):
            problems.append(((index, field), "a number, 0 or more"))
            return 0.0
        return float(raw)

    unknown = set(entry) - _KEYS
    if unknown:
        problems.append(((index,), f"unknown field(s) {', '.join(sorted(map(str, unknown)))}"))
    cloud = text("cloud", True)
    if cloud is not None and cloud not in CLOUDS:
        problems.append(((index, "cloud"), f"one of {', '.join(CLOUDS)}"))
    ident = text("id", True)
    term = text("term", True)
    if term is not None and term not in TERMS:
        problems.append(((index, "term"), f"one of {', '.join(TERMS)}"))
    kind_word = text("kind", True)
    kind = _KIND_OF_CAMEL.get(kind_word or "")
    if kind_word is not None and kind is None:
        problems.append(((index, "kind"), f"one of {', '.join(_KIND_OF_CAMEL)}"))
    dates = {key: text(key) for key in ("start", "end")}
    for key, value in dates.items():
        if value is not None and not _DATE.match(value):
            problems.append(((index, key), "an ISO date (YYYY-MM-DD)"))
    raw_accelerators = entry.get("accelerators") or {}
    accelerators: dict[str, float] = {}
    if not isinstance(raw_accelerators, dict):
        problems.append(((index, "accelerators"), "an object, accelerator type -> GPUs"))
    else:
        for name, count in raw_accelerators.items():
            accelerators[str(name)] = amount(f"accelerators.{name}", count)
    held = HeldCommitment(
        cloud=cloud,  # type: ignore[arg-type]  # checked above; not returned when wrong
        id=ident or "",
        term=term,  # type: ignore[arg-type]
        kind=kind or "instances",
        region=text("region"),
        zone=text("zone"),
        instance_type=text("instanceType"),
        family=text("family"),
        count=amount("count", entry.get("count")),
        hourly_usd=amount("hourlyUsd", entry.get("hourlyUsd")),
        accelerators=accelerators,
        vcpus=amount("vcpus", entry.get("vcpus")),
        memory_gib=amount("memoryGib", entry.get("memoryGib")),
        start=dates["start"],
        end=dates["end"],
        source=text("source") or "",
    )
    if not problems:
        problems += [((index, *at), why) for at, why in _what_it_lacks(held)]
    return (None, problems) if problems else (held, [])


_KEYS = frozenset(
    {
        "cloud",
        "id",
        "term",
        "kind",
        "region",
        "zone",
        "instanceType",
        "family",
        "count",
        "hourlyUsd",
        "accelerators",
        "vcpus",
        "memoryGib",
        "start",
        "end",
        "source",
    }
)


def _what_it_lacks(held: HeldCommitment) -> list[Problem]:
    """What an entry of its kind must say to pay for anything."""
    if held.kind == "instances" and held.instance_type is None:
        return [(("instanceType",), "required for an instances commitment")]
    if held.kind != "savings_plan" and held.region is None:
        return [(("region",), f"required for a {_CAMEL_KIND[held.kind]} commitment")]
    if held.kind == "instances" and held.count <= 0:
        return [(("count",), "more than 0 instances")]
    if held.kind == "savings_plan" and held.hourly_usd <= 0:
        return [(("hourlyUsd",), "more than 0")]
    if held.kind == "resources" and not held.accelerators:
        return [(("accelerators",), "required for a resources commitment")]
    return []


# --- what they cover -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReservedNeed:
    """Reserved capacity a commitment may pay for: ``units`` instances of ``machine``."""

    key: str
    cloud: Cloud
    region: str | None
    zone: str | None
    machine: Machine
    units: float


@dataclass(frozen=True)
class Coverage:
    """What held commitments pay for of one reserved need: instances per term, and which."""

    units: Mapping[Commitment, float]
    ids: tuple[str, ...]
    ends: tuple[str, ...]

    @property
    def covered(self) -> float:
        return sum(self.units.values())

    def term(self) -> Commitment | None:
        """The term that pays for most of it; None when nothing does."""
        if not self.units:
            return None
        return max(self.units, key=lambda t: (self.units[t], TERMS.index(t)))


NOTHING = Coverage({}, (), ())


@dataclass(frozen=True)
class Covering:
    """What ``cover`` found: each need's coverage (by need key), and what each active
    commitment has left once spent (by its index in ``held``)."""

    by_need: Mapping[str, Coverage]
    left: Mapping[int, Mapping[str, float]]

    def of(self, key: str) -> Coverage:
        return self.by_need.get(key, NOTHING)

    def unspent(self, index: int) -> dict[str, float]:
        """What commitment ``index`` holds that no need took: GPUs by ``gpu:<name>``, and
        ``vcpus`` and ``memory`` (GiB) beyond what buying whole machines rounds up (a vCPU,
        GCP's 256 MB step)."""
        slack = {"vcpus": 1.0, "memory": 0.25}
        return {
            dim: amount
            for dim, amount in self.left.get(index, {}).items()
            if amount > slack.get(dim, 1e-9)
        }


NO_COVERING = Covering({}, {})


def cover(
    needs: Sequence[ReservedNeed],
    held: Sequence[HeldCommitment],
    rates: RateCard,
    today: date,
) -> Covering:
    """Which of ``needs`` the active commitments of ``held`` pay for, each commitment spent
    once: needs in key order, the narrowest commitment first (a zonal one, then regional,
    then a family's Savings Plan, then one for anything). GCP's resource-based commitments
    pay in aggregate, as GCP applies them: those of one region and term are one pool of
    GPUs, vCPUs and memory, so machines of different shapes share it without fragments."""
    payers = _payers(held, today)
    found: dict[str, Coverage] = {}
    for need in sorted(needs, key=lambda n: n.key):
        units: dict[Commitment, float] = {}
        ids: list[str] = []
        ends: list[str] = []
        wanted = need.units
        for payer in payers:
            if wanted <= 1e-9:
                break
            commitment = payer.terms
            per_instance = _per_instance(commitment, need, rates, payer.left)
            if per_instance is None:
                continue
            can = min(
                (payer.left[dim] / amount for dim, amount in per_instance.items() if amount > 0),
                default=0.0,
            )
            if commitment.kind == "instances":
                can = math.floor(can + 1e-9)  # a reserved instance covers whole instances
            taken = min(can, wanted)
            if taken <= 1e-9:
                continue
            before = payer.spent()
            for dim, amount in per_instance.items():
                payer.left[dim] -= taken * amount
            wanted -= taken
            units[commitment.term] = units.get(commitment.term, 0.0) + taken
            paying = payer.paying(held, before)
            ids += [held[i].id for i in paying]
            ends += [end[:10] for i in paying if (end := held[i].end)]
        found[need.key] = Coverage(units, tuple(ids), tuple(ends)) if units else NOTHING
    return Covering(found, {i: left for payer in payers for i, left in payer.shares(held)})


@dataclass
class _Payer:
    """Commitments that pay together: one, or a pool of GCP resource-based ones (``cover``);
    ``terms``: what they pay for (the first's), ``left``: what is left of them. A pool spends
    its members in order (``held``'s): what is left is the last ones'."""

    members: list[int]
    terms: HeldCommitment
    left: dict[str, float]
    full: dict[str, float]  # what its members hold together

    def shares(self, held: Sequence[HeldCommitment]) -> list[tuple[int, dict[str, float]]]:
        """What is left of each member, the pool's spending charged to its members in order."""
        spent = self.spent()
        out = []
        for i in self.members:
            own = _capacity(held[i])
            mine = {dim: amount - min(amount, spent.get(dim, 0.0)) for dim, amount in own.items()}
            for dim, amount in own.items():
                spent[dim] = spent.get(dim, 0.0) - min(amount, spent.get(dim, 0.0))
            out.append((i, mine))
        return out

    def spent(self) -> dict[str, float]:
        return {dim: amount - self.left.get(dim, 0.0) for dim, amount in self.full.items()}

    def paying(self, held: Sequence[HeldCommitment], before: Mapping[str, float]) -> list[int]:
        """The members the spending since ``before`` came from: in order, each holds the next
        stretch of each resource, and paid when the spending went through its stretch."""
        now = self.spent()
        found: list[int] = []
        start: dict[str, float] = {}
        for i in self.members:
            own = _capacity(held[i])
            if any(
                amount > 0
                and now.get(d, 0.0) > max(before.get(d, 0.0), start.get(d, 0.0)) + 1e-9
                and before.get(d, 0.0) < start.get(d, 0.0) + amount - 1e-9
                for d, amount in own.items()
            ):
                found.append(i)
            for d, amount in own.items():
                start[d] = start.get(d, 0.0) + amount
        return found


def _payers(held: Sequence[HeldCommitment], today: date) -> list[_Payer]:
    """The active commitments of ``held`` as payers, narrowest first."""
    payers: list[_Payer] = []
    pools: dict[tuple[object, ...], _Payer] = {}
    for i, commitment in enumerate(held):
        if not commitment.active(today):
            continue
        capacity = _capacity(commitment)
        key = (
            commitment.cloud,
            commitment.region,
            commitment.zone,
            commitment.term,
            commitment.family,
        )
        pool = pools.get(key) if commitment.kind == "resources" else None
        if pool is not None:
            pool.members.append(i)
            for dim, amount in capacity.items():
                pool.left[dim] = pool.left.get(dim, 0.0) + amount
                pool.full[dim] = pool.full.get(dim, 0.0) + amount
            continue
        payer = _Payer([i], commitment, dict(capacity), dict(capacity))
        payers.append(payer)
        if commitment.kind == "resources":
            pools[key] = payer
    ranked = sorted(
        enumerate(payers),
        key=lambda e: (_breadth(e[1].terms), min(held[i].id for i in e[1].members), e[0]),
    )
    return [payer for _, payer in ranked]


def _capacity(held: HeldCommitment) -> dict[str, float]:
    if held.kind == "instances":
        return {"instances": held.count}
    if held.kind == "savings_plan":
        return {"usd": held.hourly_usd}
    return {
        **{f"gpu:{_gpu(t)}": n for t, n in held.accelerators.items()},
        "vcpus": held.vcpus,
        "memory": held.memory_gib,
    }


def _breadth(held: HeldCommitment) -> int:
    if held.kind == "savings_plan":
        return 3 if held.family is None or held.region is None else 2
    return 0 if held.zone is not None else 1


def _per_instance(
    held: HeldCommitment, need: ReservedNeed, rates: RateCard, holds: Mapping[str, float]
) -> dict[str, float] | None:
    """What one instance of ``need`` takes of ``held`` (which ``holds`` that much); None
    when it cannot pay for it."""
    machine = need.machine
    if held.cloud != need.cloud or (held.region is not None and held.region != need.region):
        return None
    if held.kind == "instances":
        same = (held.instance_type or "").lower() == machine.instance_type.lower()
        if not same or (held.zone is not None and held.zone != need.zone):
            return None
        return {"instances": 1.0}
    if held.kind == "savings_plan":
        family = machine.instance_type.split(".", 1)[0].lower()
        if held.family is not None and held.family.lower() != family:
            return None
        rate = rates.rate(
            machine.cloud,
            machine.instance_type,
            need.region,
            PRICING_OF_TERM[held.term],
            machine.attached,
        )
        return None if rate is None or rate.hourly <= 0 else {"usd": rate.hourly}
    if held.family is not None and commitment_type(machine.instance_type) != held.family:
        return None  # a commitment of another machine series
    gpu = f"gpu:{normalize_gpu_name(machine.gpu_name) or machine.gpu_name}"
    if not machine.gpus or gpu not in holds:
        return None
    return {gpu: float(machine.gpus), "vcpus": machine.vcpus, "memory": machine.memory_gib}


def _gpu(accelerator_type: str) -> str:
    """The GPU a GCP accelerator type is (``nvidia-l4`` -> ``L4``); the type when unknown."""
    name = GPU_OF_ACCELERATOR.get(accelerator_type.strip().lower())
    return (normalize_gpu_name(name) or name) if name else accelerator_type


def describe(problem: Problem, where: str) -> str:
    """A problem as ``where[index].field: message``."""
    at, message = problem
    field = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in at)
    return f"{where}{field}: {message}"
