"""Every registered component, built from a stack config, against the Checkov rules that
docs/components.md's "Secure defaults against Checkov" table names: each rule reads what
Checkov's check reads (checkov/terraform/checks/resource/<cloud>/ and graph_checks/, the
Terraform names mapped to the Pulumi inputs), so a default that stops meeting a rule fails here.
With the defaults only the documented exceptions fail; with the site settings that make them
strict, nothing does; and the settings that loosen a default reach the component through the
stack config.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from gpufleet import resource_types as types
from gpufleet.engine.capture import Capture, Registration, capture_program
from gpufleet.planner.catalog import Offer
from gpufleet.stacks.component_registry import COMPONENTS, ComponentEntry
from gpufleet.stacks.program import build_stack
from gpufleet.stacks.stack_config import (
    Site,
)
from tests.components.component_checks import values_at
from tests.helpers import ROOT
from tests.stacks.probe_site import probe_site
from tests.stacks.test_component_registry import _offer_for, _settings

SECURITY_GROUP_EGRESS_RULE = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
SECURITY_GROUP_RULE = (
    "aws:ec2/securityGroupRule:SecurityGroupRule"  # Checkov's aws_security_group_rule
)
S3_LOGGING = "aws:s3/bucketLogging:BucketLogging"
KEY_VAULT = "azure-native:keyvault:Vault"
ML_WORKSPACE = "azure-native:machinelearningservices:Workspace"
GCP_DISK = "gcp:compute/disk:Disk"
ANYWHERE = ("0.0.0.0/0", "::/0")
GEO_REDUNDANT = ("GRS", "RAGRS", "GZRS", "RAGZRS")
DISK_KEY = "projects/acme-kms/locations/{region}/keyRings/ml/cryptoKeys/disks"

# Whether a resource meets a rule, given everything registered beside it.
Check = Callable[[Registration, Capture], bool]


def _attached(cap: Capture, kinds: tuple[str, ...], bucket: Registration) -> list[Registration]:
    """Resources of ``kinds`` configuring ``bucket`` (a connected resource, in Checkov's graph)."""
    names = {bucket.outputs.get("id"), bucket.outputs.get("bucket")}
    return [r for r in cap.registrations if r.type in kinds and r.inputs.get("bucket") in names]


def _hop_limit_at_most_one(r: Registration, _: Capture) -> bool:
    # CKV_AWS_341: a missing metadata block passes; a hop limit passes only at 1.
    return values_at(r.inputs, "metadataOptions.httpPutResponseHopLimit") in ([], [1])


def _all_traffic_everywhere(rule: dict[str, Any]) -> bool:
    all_ports = rule.get("ipProtocol", rule.get("protocol")) == "-1" or (
        rule.get("fromPort", 0) <= 0 and rule.get("toPort", 0) in (0, 65535)
    )
    cidrs = [
        rule.get("cidrIpv4"),
        rule.get("cidrIpv6"),
        *rule.get("cidrBlocks", []),
        *rule.get("ipv6CidrBlocks", []),
    ]
    return all_ports and any(c in ANYWHERE for c in cidrs)


def _no_unrestricted_egress(r: Registration, _: Capture) -> bool:
    # CKV_AWS_382: no egress of all protocols and ports to 0.0.0.0/0 or ::/0, inline or a rule.
    if r.type == types.AWS_SECURITY_GROUP:
        return not any(_all_traffic_everywhere(e) for e in r.inputs.get("egress", []))
    if r.type == SECURITY_GROUP_RULE and r.inputs.get("type") != "egress":
        return True
    return not _all_traffic_everywhere(r.inputs)


def _kms_by_default(r: Registration, cap: Capture) -> bool:
    # CKV_AWS_145: sse_algorithm aws:kms, on the bucket or a connected configuration.
    configs = [r, *_attached(cap, types.AWS_S3_ENCRYPTION, r)]
    algorithms = [
        algorithm
        for config in configs
        for path in (
            "rules[].applyServerSideEncryptionByDefault.sseAlgorithm",
            "serverSideEncryptionConfiguration.rule.applyServerSideEncryptionByDefault"
            ".sseAlgorithm",
        )
        for algorithm in values_at(config.inputs, path)
    ]
    return "aws:kms" in algorithms


def _access_logged(r: Registration, cap: Capture) -> bool:
    # CKV_AWS_18: a logging block, or a connected aws_s3_bucket_logging.
    return "logging" in r.inputs or bool(_attached(cap, (S3_LOGGING,), r))


def _vault(r: Registration) -> dict[str, Any]:
    return r.inputs.get("properties", {})


def _vault_firewall_denies(r: Registration, _: Capture) -> bool:
    # CKV_AZURE_109: network_acls.default_action Deny.
    return values_at(_vault(r), "networkAcls.defaultAction") == ["Deny"]


def _vault_not_public(r: Registration, _: Capture) -> bool:
    # CKV_AZURE_189: public network access off, or the firewall naming IPs or subnets.
    acls = _vault(r).get("networkAcls", {})
    return _vault(r).get("publicNetworkAccess") == "Disabled" or bool(
        acls.get("ipRules") or acls.get("virtualNetworkRules")
    )


def _disabled(key: str) -> Check:
    # Unset means enabled for every property read so (CKV_AZURE_59, CKV_AZURE_144 fail it).
    return lambda r, _: r.inputs.get(key) == "Disabled"


def _geo_redundant(r: Registration, _: Capture) -> bool:
    # CKV_AZURE_206: account_replication_type GRS, RAGRS, GZRS or RAGZRS (the SKU's suffix).
    return values_at(r.inputs, "sku.name")[0].rsplit("_", 1)[-1] in GEO_REDUNDANT


def _no_shared_keys(r: Registration, _: Capture) -> bool:
    # CKV2_AZURE_40: shared_access_key_enabled set, and false.
    return r.inputs.get("allowSharedKeyAccess") is False


def _encrypted_at_host(r: Registration, _: Capture) -> bool:
    # CKV_AZURE_97: encryption_at_host_enabled true.
    return values_at(r.inputs, "virtualMachineProfile.securityProfile.encryptionAtHost") == [True]


def _customer_key_on_boot_disks(r: Registration, _: Capture) -> bool:
    # CKV_GCP_38: boot_disk.kms_key_self_link or disk_encryption_key_raw. Checkov reads
    # instances only; gpufleet holds instance templates' disks to the same bar.
    if r.type == types.GCP_INSTANCE:
        boot = r.inputs.get("bootDisk", {})
        return bool(boot.get("kmsKeySelfLink") or boot.get("diskEncryptionKeyRaw"))
    boot = [disk for disk in r.inputs.get("disks", []) if disk.get("boot")]
    return len(boot) == 1 and bool(values_at(boot[0], "diskEncryptionKey.kmsKeySelfLink"))


def _disk_key(r: Registration, _: Capture) -> bool:
    # CKV_GCP_37: disk_encryption_key, any value.
    return "diskEncryptionKey" in r.inputs


@dataclass(frozen=True)
class Rule:
    types: tuple[str, ...]  # the resource types it reads
    holds: Check


RULES: dict[str, Rule] = {
    "CKV_AWS_341": Rule((types.AWS_LAUNCH_TEMPLATE,), _hop_limit_at_most_one),
    "CKV_AWS_382": Rule(
        (types.AWS_SECURITY_GROUP, SECURITY_GROUP_EGRESS_RULE, SECURITY_GROUP_RULE),
        _no_unrestricted_egress,
    ),
    "CKV_AWS_145": Rule(types.AWS_S3_BUCKETS, _kms_by_default),
    "CKV_AWS_18": Rule(types.AWS_S3_BUCKETS, _access_logged),
    "CKV_AZURE_109": Rule((KEY_VAULT,), _vault_firewall_denies),
    "CKV_AZURE_189": Rule((KEY_VAULT,), _vault_not_public),
    "CKV_AZURE_59": Rule((types.AZURE_STORAGE_ACCOUNT,), _disabled("publicNetworkAccess")),
    "CKV_AZURE_206": Rule((types.AZURE_STORAGE_ACCOUNT,), _geo_redundant),
    "CKV2_AZURE_40": Rule((types.AZURE_STORAGE_ACCOUNT,), _no_shared_keys),
    "CKV_AZURE_144": Rule((ML_WORKSPACE,), _disabled("publicNetworkAccess")),
    "CKV_AZURE_97": Rule((types.AZURE_SCALE_SET,), _encrypted_at_host),
    "CKV_GCP_38": Rule(
        (types.GCP_INSTANCE, *types.GCP_INSTANCE_TEMPLATES), _customer_key_on_boot_disks
    ),
    "CKV_GCP_37": Rule((GCP_DISK,), _disk_key),
}


def _access_log_bucket(r: Registration) -> bool:
    return r.name.endswith("-access-logs")


# The documented exceptions of the defaults: rule -> the resources it may fail on.
DEFAULT_EXCEPTIONS: dict[str, Callable[[Registration], bool]] = {
    # The log bucket made for a checkpoint bucket: SSE-S3 (all S3 log delivery writes into)
    # and not logged itself.
    "CKV_AWS_145": _access_log_bucket,
    "CKV_AWS_18": _access_log_bucket,
    # Keyless workspace storage is an Azure ML preview needing roles a Contributor cannot grant.
    "CKV2_AZURE_40": lambda r: True,
    # gpufleet makes no Cloud KMS keys (undeletable, and a destroyed one strands kept disks).
    "CKV_GCP_38": lambda r: True,
}


def _site(offer: Offer, **strict: Any) -> Site:
    """Site settings for the offer's region on every cloud; ``strict``: the settings that make
    the documented exceptions meet their rules too."""
    return probe_site(offer, **strict)


def _strict(offer: Offer) -> dict[str, Any]:
    return {
        "aws": {"access_log_bucket": "acme-s3-access-logs"},
        "gcp": {"disk_kms_key": DISK_KEY.format(region=offer.region)},
        "azure": {"storage_shared_key_access": False},
    }


def _build(entry: ComponentEntry, site_of: Callable[[Offer], Site]) -> Capture:
    offer = _offer_for(entry)
    settings = _settings(entry, offer)
    return capture_program(lambda: build_stack(settings, site_of(offer))).capture


def _failures(cap: Capture) -> list[tuple[str, Registration]]:
    return [
        (rule_id, r)
        for rule_id, rule in RULES.items()
        for r in cap.registrations
        if r.type in rule.types and not rule.holds(r, cap)
    ]


@pytest.mark.parametrize("name", list(COMPONENTS))
def test_defaults_fail_only_the_documented_exceptions(name: str) -> None:
    cap = _build(COMPONENTS[name], _site)
    unexpected = [
        (rule_id, r.name)
        for rule_id, r in _failures(cap)
        if not DEFAULT_EXCEPTIONS.get(rule_id, lambda _: False)(r)
    ]
    assert unexpected == []


@pytest.mark.parametrize("name", list(COMPONENTS))
def test_the_strict_site_settings_meet_every_rule(name: str) -> None:
    cap = _build(COMPONENTS[name], lambda offer: _site(offer, **_strict(offer)))
    assert [(rule_id, r.name) for rule_id, r in _failures(cap)] == []


def test_every_rule_reads_resources_the_components_create() -> None:
    """Not vacuous: each rule reads some component's resources, and each documented exception
    fails by default (else it is no exception). CKV_GCP_37 reads standalone disks, which no
    component creates."""
    read: set[str] = set()
    failing: set[str] = set()
    for entry in COMPONENTS.values():
        cap = _build(entry, _site)
        read |= {
            rule_id
            for rule_id, rule in RULES.items()
            if any(r.type in rule.types for r in cap.registrations)
        }
        failing |= {rule_id for rule_id, _ in _failures(cap)}
    assert set(RULES) - read == {"CKV_GCP_37"}
    assert failing == set(DEFAULT_EXCEPTIONS)


# A site setting that loosens a default, the component it reaches, and the rule it then fails.
LOOSENED = [
    ("aws:SpotFleet", {"aws": {"container_imds_access": True}}, "CKV_AWS_341"),
    ("aws:PlacementCluster", {"aws": {"container_imds_access": True}}, "CKV_AWS_341"),
    ("aws:CapacityPool", {"aws": {"container_imds_access": True}}, "CKV_AWS_341"),
    ("azure:SpotScaleSet", {"azure_site": {"encryption_at_host": False}}, "CKV_AZURE_97"),
    (
        "azure:CapacityReservationGroup",
        {"azure_site": {"encryption_at_host": False}},
        "CKV_AZURE_97",
    ),
    (
        "azure:LowPriorityCluster",
        {"azure": {"workspace_public_network_access": True}},
        "CKV_AZURE_144",
    ),
    (
        "azure:LowPriorityCluster",
        {"azure": {"workspace_public_network_access": True}},
        "CKV_AZURE_59",
    ),
]


@pytest.mark.parametrize(("name", "setting", "rule_id"), LOOSENED)
def test_loosening_site_settings_reach_their_component(
    name: str, setting: dict[str, Any], rule_id: str
) -> None:
    cap = _build(COMPONENTS[name], lambda offer: _site(offer, **setting))
    assert rule_id in {failed for failed, _ in _failures(cap)}


def test_further_security_groups_from_the_site_reach_every_aws_launch_template() -> None:
    extra = "sg-0efs0000000000000"
    for entry in COMPONENTS.values():
        if entry.capability.cloud != "aws" or entry.capability.name == "aws:SageMakerSpotTraining":
            continue

        def site_of(offer: Offer) -> Site:
            site = _site(offer)
            assert site.aws_site is not None
            (region,) = site.aws_site.regions.values()
            regions = {offer.region: region.model_copy(update={"security_group_ids": [extra]})}
            return Site(site.aws_site.model_copy(update={"regions": regions}))

        cap = _build(entry, site_of)
        template = cap.one(types.AWS_LAUNCH_TEMPLATE).inputs
        own = cap.one(types.AWS_SECURITY_GROUP).outputs["id"]
        for interface in template["networkInterfaces"]:
            assert interface["securityGroups"] == [own, extra], entry.capability.name


def _readme_rows() -> dict[str, str]:
    """docs/components.md's Checkov table: rule id -> its exception cell."""
    page = (ROOT / "docs" / "components.md").read_text()
    section = page.split("## Secure defaults against Checkov", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `(CKV2?_\w+)` \|(.*)\|\s*$", section, flags=re.MULTILINE)
    return {rule_id: cells.split("|")[-1].strip() for rule_id, cells in rows}


def test_the_docs_table_lists_these_rules_and_these_exceptions() -> None:
    rows = _readme_rows()
    assert list(rows) == list(RULES)
    exceptions = {rule_id for rule_id, cell in rows.items() if cell.startswith("**exception**")}
    assert exceptions == set(DEFAULT_EXCEPTIONS)
