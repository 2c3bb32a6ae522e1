"""EFA network interfaces for a launch template, laid out the way AWS documents per size.

Counts come from ``planner.interconnect.AWS_EFA_INTERFACES``. P5-family sizes take an ENA primary
interface (network card 0, device 0), an EFA-only interface on card 0 device 1, and an EFA-only
interface at device 0 on every further card — 32 EFA-only interfaces in all
(docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html). Other sizes take a
classic EFA (EFA with ENA) primary at card 0 device 0 and, on multi-card sizes such as p4d,
one EFA at device 1 of each further card. Only the primary interface may say whether to
associate a public IP, and gpufleet says no.
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
import pulumi_aws as aws

from gpufleet.planner.interconnect import AWS_EFA_INTERFACES, AWS_EFA_ONLY_LAYOUT


def efa_interface_count(instance_type: str) -> int:
    if instance_type not in AWS_EFA_INTERFACES:
        raise ValueError(
            f"{instance_type} has no EFA; a cluster needs one of "
            f"{', '.join(sorted(AWS_EFA_INTERFACES))}"
        )
    return AWS_EFA_INTERFACES[instance_type]


def efa_network_interfaces(
    instance_type: str, security_group_ids: Sequence[pulumi.Input[str]]
) -> list[aws.ec2.LaunchTemplateNetworkInterfaceArgs]:
    count = efa_interface_count(instance_type)

    def interface(card: int, device: int, kind: str) -> aws.ec2.LaunchTemplateNetworkInterfaceArgs:
        primary = card == 0 and device == 0
        return aws.ec2.LaunchTemplateNetworkInterfaceArgs(
            network_card_index=card,
            device_index=device,
            interface_type=kind,
            security_groups=list(security_group_ids),
            delete_on_termination="true",
            associate_public_ip_address="false" if primary else None,
        )

    if instance_type in AWS_EFA_ONLY_LAYOUT:
        return [
            interface(0, 0, "interface"),
            interface(0, 1, "efa-only"),
            *(interface(card, 0, "efa-only") for card in range(1, count)),
        ]
    return [interface(0, 0, "efa"), *(interface(card, 1, "efa") for card in range(1, count))]
