"""Every resource type the provider SDKs say can name a machine or accelerators, classified.

``data/gpu_capable_types.json`` is generated from the installed SDKs
(``scripts/generate_gpu_capable_types.py``): each type whose arguments, or the input objects
nested in them, name an instance type, VM size, machine type or spec, accelerators, GPUs, a
node configuration or instance requirements, with the property paths that do. Each of those
types is, by review, one of:

- read by a reader of its own (``aws``, ``gcp``, ``azure``): GPUs per node x the most nodes;
- read *by name* (``NAMED_MACHINE_TYPES``): a type that can hold GPUs but whose size gpufleet
  does not read. Its machine and accelerator properties (the table's paths) are looked at;
  one naming a GPU machine or asking for accelerators makes it a GPU resource whose size is
  undetermined — reported by ``gpu-size-undetermined``, unpriced in the budget, its machines
  held to ``gpu-instance-size`` — never passed as holding none;
- holding no GPUs (``NOT_GPU_CAPACITY``), with the reason.

A test fails while a type of the table is in none of these, so a provider upgrade that adds a
way to get a GPU is classified before it ships.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from gpufleet import resource_types as types
from gpufleet.capacity.footprints.model import GpuFootprint, Machine
from gpufleet.capacity.footprints.reading import (
    READERS,
    SCALERS,
    Reading,
    looks_like_gpu,
    reads,
    shown,
)
from gpufleet.capacity.property_values import is_unknown
from gpufleet.clouds import Cloud, cloud_of_type
from gpufleet.engine.wire import UNREADABLE_OFFLINE
from gpufleet.planner.gcp_machines import built_in_gpus

TABLE_PATH = Path(__file__).parent.parent / "data" / "gpu_capable_types.json"

# Types that can hold GPUs, whose size gpufleet does not read: looked at by name.
NAMED_MACHINE_TYPES = (
    "aws:appstream/fleet:Fleet",
    "aws:appstream/imageBuilder:ImageBuilder",
    "aws:cloud9/environmentEC2:EnvironmentEC2",
    "aws:codecatalyst/devEnvironment:DevEnvironment",
    "aws:ec2/dedicatedHost:DedicatedHost",
    "aws:ecs/capacityProvider:CapacityProvider",
    "aws:gamelift/fleet:Fleet",
    "aws:gamelift/gameServerGroup:GameServerGroup",
    "aws:imagebuilder/infrastructureConfiguration:InfrastructureConfiguration",
    "aws:lambda/capacityProvider:CapacityProvider",
    "aws:sagemaker/dataQualityJobDefinition:DataQualityJobDefinition",
    "aws:sagemaker/domain:Domain",
    "aws:sagemaker/monitoringSchedule:MonitoringSchedule",
    "aws:sagemaker/space:Space",
    "aws:sagemaker/userProfile:UserProfile",
    "azure-native:azurefleet:Fleet",
    "azure-native:computebulkactions:BulkAction",
    "azure-native:containerinstance:CGProfile",
    "azure-native:containerinstance:ContainerGroup",
    "azure-native:containerinstance:ContainerGroupProfile",
    "azure-native:containerservice:Fleet",
    "azure-native:discovery:NodePool",
    "azure-native:hdinsight:Application",
    "azure-native:hdinsight:Cluster",
    "azure-native:labservices:Lab",
    "azure-native:machinelearningservices:BatchDeployment",
    "azure-native:machinelearningservices:FeaturesetVersion",
    "azure-native:machinelearningservices:Job",
    "azure-native:machinelearningservices:Schedule",
    "azure-native:network:InterconnectGroup",
    "azure-native:redhatopenshift:OpenShiftCluster",
    "azure-native:servicefabric:NodeType",
    "azure-native:virtualmachineimages:VirtualMachineImageTemplate",
    "azure-native:workloads:SapVirtualInstance",
    "gcp:backupdisasterrecovery/restoreWorkload:RestoreWorkload",
    "gcp:cloudrunv2/job:Job",
    "gcp:cloudrunv2/service:Service",
    "gcp:cloudrunv2/workerPool:WorkerPool",
    "gcp:colab/notebookExecution:NotebookExecution",
    "gcp:colab/runtimeTemplate:RuntimeTemplate",
    "gcp:colab/schedule:Schedule",
    "gcp:compute/futureReservation:FutureReservation",
    "gcp:compute/nodeTemplate:NodeTemplate",
    "gcp:container/awsNodePool:AwsNodePool",
    "gcp:container/azureNodePool:AzureNodePool",
    "gcp:dataflow/flexTemplateJob:FlexTemplateJob",
    "gcp:dataflow/job:Job",
    "gcp:dataflow/pipeline:Pipeline",
    "gcp:hypercomputecluster/cluster:Cluster",
    "gcp:workstations/workstationConfig:WorkstationConfig",
)

# Types whose machine properties never put a GPU in the bill, grouped by why.
_NOT_GPU_CAPACITY_BY_REASON: dict[str, tuple[str, ...]] = {
    "a managed data service's own node classes, none with GPUs": (
        "aws:cloudsearch/domain:Domain",
        "aws:elasticsearch/domain:Domain",
        "aws:m2/environment:Environment",
        "aws:mq/broker:Broker",
        "aws:msk/cluster:Cluster",
        "aws:opensearch/domain:Domain",
        "aws:timestreaminfluxdb/dbCluster:DbCluster",
        "aws:timestreaminfluxdb/dbInstance:DbInstance",
        "gcp:alloydb/instance:Instance",
        "gcp:bigtable/instance:Instance",
        "gcp:memcache/instance:Instance",
        "gcp:spanner/instance:Instance",
        "gcp:sql/databaseInstance:DatabaseInstance",
        "gcp:apigee/environment:Environment",
        "gcp:integrationconnectors/connection:Connection",
        "gcp:composer/environment:Environment",
        "gcp:vpcaccess/connector:Connector",
        "gcp:cloudbuild/trigger:Trigger",
        "gcp:cloudbuild/workerPool:WorkerPool",
        "gcp:vertex/aiIndexEndpointDeployedIndex:AiIndexEndpointDeployedIndex",
        "azure-native:networkcloud:ClusterManager",
        "aws:workspacesweb/portal:Portal",
    ),
    "a commitment: it pays for capacity and holds none (the cost engine spends it on the "
    "stack's reservations and lists what it buys beyond them, capacity.declared_commitments)": (
        types.GCP_REGION_COMMITMENT,
    ),
    "a control plane or service's own servers, not the user's capacity": (
        "aws:eks/cluster:Cluster",
        "aws:drs/replicationConfigurationTemplate:ReplicationConfigurationTemplate",
        "gcp:container/awsCluster:AwsCluster",
        "gcp:container/azureCluster:AzureCluster",
    ),
    "names instance types as a filter, a list of supported types or an override of capacity "
    "held elsewhere (read there)": (
        "aws:securityhub/insight:Insight",
        "aws:sagemaker/algorithm:Algorithm",
        "aws:pipes/pipe:Pipe",
        "aws:outposts/capacityTask:CapacityTask",
        "azure-native:compute:ProximityPlacementGroup",
        "azure-native:compute:VirtualMachineScaleSetVM",
        "gcp:compute/resourcePolicy:ResourcePolicy",
    ),
    "hardware the user owns (on-premises or edge): no cloud GPU bill": (
        "azure-native:azurestackhci:VirtualMachine",
        "azure-native:azurestackhci:VirtualMachineInstance",
        "gcp:edgecontainer/nodePool:NodePool",
        "gcp:gkeonprem/bareMetalAdminCluster:BareMetalAdminCluster",
        "gcp:gkeonprem/bareMetalCluster:BareMetalCluster",
    ),
    "its 'instance type' or 'accelerator' is not hardware (a replication scenario, a SQL "
    "tier, an app template, a pipeline feature)": (
        "azure-native:appplatform:CustomizedAccelerator",
        "azure-native:appplatform:DevToolPortal",
        "azure-native:datareplication:Dra",
        "azure-native:datareplication:Fabric",
        "azure-native:datareplication:FabricAgent",
        "azure-native:datareplication:Policy",
        "azure-native:datareplication:ProtectedItem",
        "azure-native:datareplication:ReplicationExtension",
        "azure-native:migrate:MigrateAgent",
        "azure-native:migrate:MigrationEntity",
        "azure-native:migrate:MoveResource",
        "azure-native:migrate:SqlAssessmentV2Operation",
        "azure-native:migrate:SqlAssessmentV3Operation",
        "azure-native:migrate:WorkloadDeployment",
        "azure-native:migrate:WorkloadInstance",
        "azure-native:recoveryservices:ReplicationFabric",
        "azure-native:recoveryservices:ReplicationMigrationItem",
        "azure-native:recoveryservices:ReplicationNetworkMapping",
        "azure-native:recoveryservices:ReplicationPolicy",
        "azure-native:recoveryservices:ReplicationProtectedItem",
        "azure-native:recoveryservices:ReplicationProtectionCluster",
        "azure-native:recoveryservices:ReplicationProtectionContainerMapping",
        "azure-native:recoveryservices:ReplicationRecoveryPlan",
        "gcp:datafusion/instance:Instance",
    ),
    "an inventory of resources in another cloud (Azure's AWS connector): creates nothing": (
        "azure-native:awsconnector:AutoScalingAutoScalingGroup",
        "azure-native:awsconnector:Ec2Instance",
        "azure-native:awsconnector:EcsTaskDefinition",
        "azure-native:awsconnector:EksCluster",
        "azure-native:awsconnector:EksNodegroup",
        "azure-native:awsconnector:OpenSearchDomainStatus",
        "azure-native:awsconnector:SageMakerApp",
        "azure-native:awsconnector:SageMakerNotebookInstanceSummary",
    ),
    "TPUs: accelerators outside gpufleet's GPU catalog": (
        "gcp:tpu/v2QueuedResource:V2QueuedResource",
        "gcp:tpu/v2Vm:V2Vm",
    ),
}

NOT_GPU_CAPACITY: dict[str, str] = {
    type_: reason for reason, types in _NOT_GPU_CAPACITY_BY_REASON.items() for type_ in types
}


# Types that hold data other resources or programs read — a parameter, a secret, an object,
# a config map — which the last net (``named_anywhere``) would otherwise search: what they
# name runs nowhere by itself (the capacity that reads them is read where it is).
HOLDS_DATA: dict[str, str] = {
    type_: "holds data others read (a parameter, secret, object or config): it runs nothing"
    for type_ in (
        "aws:ssm/parameter:Parameter",
        "aws:secretsmanager/secretVersion:SecretVersion",
        "aws:s3/bucketObject:BucketObject",
        "aws:s3/bucketObjectv2:BucketObjectv2",
        "aws:appconfig/hostedConfigurationVersion:HostedConfigurationVersion",
        "aws:dynamodb/tableItem:TableItem",
        "gcp:secretmanager/secretVersion:SecretVersion",
        "gcp:storage/bucketObject:BucketObject",
        "gcp:runtimeconfig/variable:Variable",
        "azure-native:keyvault:Secret",
        "azure-native:appconfiguration:KeyValue",
        "kubernetes:core/v1:ConfigMap",
        "kubernetes:core/v1:Secret",
    )
}


@cache
def gpu_capable_table() -> dict[str, tuple[str, ...]]:
    """The generated table: each GPU-capable type and its machine / accelerator paths."""
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    return {type_: tuple(paths) for type_, paths in data["types"].items()}


# The last step of a path that names accelerators rather than a machine.
_ACCELERATOR_STEP = re.compile(r"accelerator|gpu", re.I)


def _values(value: Any, steps: list[str]) -> list[Any]:
    """Every value at a dotted path, through lists at any step."""
    if isinstance(value, list):
        return [v for item in value for v in _values(item, steps)]
    if not steps:
        return [value]
    if is_unknown(value):
        return [value]
    if not isinstance(value, dict):
        return []
    return _values(value.get(steps[0]), steps[1:])


def requests_accelerators(value: Any) -> bool:
    """Whether an accelerator / GPU property asks for any: a count above 0, a named type, a
    spec; not a flag (``gpuZonalRedundancyDisabled``) or an explicit none."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int | float):
        return value > 0
    if isinstance(value, str):
        return value.strip().upper() not in ("", "NONE", "ACCELERATOR_TYPE_UNSPECIFIED", "0")
    if isinstance(value, dict):
        return any(requests_accelerators(v) for v in value.values())
    if isinstance(value, list):
        return any(requests_accelerators(v) for v in value)
    return False


def _named_machine(r: Reading, cloud: Cloud, value: str, where: str) -> Machine | None:
    # A machine the catalog knows, on any cloud (GKE Multi-Cloud's AWS and Azure node pools
    # are GCP resources naming EC2 or Azure machines; "ml." and other service prefixes on EC2
    # types); else the resource's own cloud's rules (a GPU-looking name is undetermined).
    found = r.catalog.machine_on_any_cloud(value)
    if found is not None:
        return found
    if cloud == "gcp":
        name = value.strip().rsplit("/", 1)[-1].lower()
        if built_in_gpus(name) is None and not looks_like_gpu("gcp", name):
            return None  # a GCE machine's GPUs are its accelerators, read apart
    return r.machine(cloud, value, where)


def read_by_name(r: Reading, type_: str) -> GpuFootprint | None:
    """A GPU-capable type whose size gpufleet does not read: a GPU resource when a machine it
    names is a GPU machine or it asks for accelerators; its size is undetermined."""
    cloud = cloud_of_type(type_)
    if cloud is None:
        return None
    machines: list[Machine] = []
    asks: list[str] = []
    for path in gpu_capable_table().get(type_, ()):
        steps = path.split(".")
        for value in _values(r.props, steps):
            if is_unknown(value) or value in UNREADABLE_OFFLINE:
                r.unreadable(value, path)
            elif _ACCELERATOR_STEP.search(steps[-1]):
                if requests_accelerators(value):
                    asks.append(f"{path} {shown(value)}")
            elif isinstance(value, dict):
                # A machine spec ({machineType, acceleratorType, ...}) or requirements.
                if requests_accelerators(
                    {k: v for k, v in value.items() if _ACCELERATOR_STEP.search(k)}
                ):
                    asks.append(f"{path} {shown(value)}")
                named = value.get("machineType") or value.get("instanceType")
                if isinstance(named, str) and (found := _named_machine(r, cloud, named, path)):
                    machines.append(found)
            elif isinstance(value, str) and (found := _named_machine(r, cloud, value, path)):
                machines.append(found)
    if asks:
        r.undetermined.append(f"it asks for accelerators ({'; '.join(asks)})")
    if not machines and not r.undetermined:
        return None
    r.undetermined.append(f"gpufleet reads no size for {type_}: how many it runs is not known")
    return r.footprint(
        cloud=cloud,
        kind=_kind(type_),
        is_template=False,
        machines=list(dict.fromkeys(machines)),
    )


def _kind(type_: str) -> str:
    """A type's name for messages: ``aws:emr/cluster:Cluster`` -> ``emr Cluster``."""
    module = type_.split(":")[1].split("/")[0]
    return f"{module} {type_.rsplit(':', 1)[-1]}"


def _register(type_: str) -> None:
    reads(type_)(lambda r: read_by_name(r, type_))


for _type in NAMED_MACHINE_TYPES:
    _register(_type)


# Resources that size capacity without naming a machine (autoscalers, scheduled actions, resize
# requests, managed scaling policies) escape the table above. ``data/sizing_types.json`` is
# generated with it (the same script): each type whose arguments set a minimum, maximum,
# desired or target capacity, size, instance, replica or node count, a resize, a scalable
# dimension or a scaling adjustment, with the paths that do. Each is, by review, one of:
#
# - read: a scaler of its own (``reading.sizes``), capacity of its own (``reading.reads``), or
#   read on the capacity that names it (``READ_THROUGH_WHAT_NAMES_IT``);
# - not read, able to size GPU capacity (``UNREAD_SIZERS``): GPU capacity of the stack it
#   targets is undetermined ("its size is set by ..."), never passed at the size it declares;
# - sizing no GPUs (``DOES_NOT_SIZE_GPU``), with the reason.
#
# A type of the table in none of these is treated as not read (``unread_sizing_types``), and a
# test fails until it is classified.
SIZING_TABLE_PATH = TABLE_PATH.parent / "sizing_types.json"

READ_THROUGH_WHAT_NAMES_IT: dict[str, str] = {
    types.DATAPROC_AUTOSCALING_POLICY: "on the Dataproc clusters and workflow "
    "templates whose autoscalingConfig names it (gcp_dataproc)",
}

UNREAD_SIZERS = (
    # Sets the minimum and maximum of Auto Scaling groups, Spot Fleets and ECS services.
    "aws:autoscalingplans/scalingPlan:ScalingPlan",
    # Keep container groups of a container group profile (which can ask for GPUs) running.
    "azure-native:containerinstance:NGroup",
    "azure-native:standbypool:StandbyContainerGroupPool",
    # Sole-tenant nodes of a node template, which can carry accelerators.
    "gcp:compute/nodeGroup:NodeGroup",
)

_DOES_NOT_SIZE_GPU_BY_REASON: dict[str, tuple[str, ...]] = {
    "a managed data or analytics service's own capacity (capacity units, DPUs, vCores, nodes "
    "of its own kinds), none with GPUs": (
        "aws:dms/replicationConfig:ReplicationConfig",
        "aws:docdb/cluster:Cluster",
        "aws:emrserverless/application:Application",
        "aws:finspace/kxCluster:KxCluster",
        "aws:glue/job:Job",
        "aws:glue/mLTransform:MLTransform",
        "aws:mskconnect/connector:Connector",
        "aws:neptune/cluster:Cluster",
        "aws:rds/cluster:Cluster",
        "aws:redshiftserverless/workgroup:Workgroup",
        "azure-native:sql:Database",
        "azure-native:sql:ElasticPool",
        "gcp:spanner/instancePartition:InstancePartition",
        "gcp:vectorsearch/index:Index",
        "gcp:vertex/aiFeatureOnlineStore:AiFeatureOnlineStore",
        "gcp:vertex/aiFeatureStore:AiFeatureStore",
    ),
    "network capacity (load balancer, gateway, firewall or router capacity units)": (
        "aws:alb/loadBalancer:LoadBalancer",
        "aws:lb/loadBalancer:LoadBalancer",
        "azure-native:network:ApplicationGateway",
        "azure-native:network:AzureFirewall",
        "azure-native:network:VirtualHub",
    ),
    "instances of a serverless app, function, web app or agent platform that offers no GPUs": (
        "aws:apprunner/autoScalingConfigurationVersion:AutoScalingConfigurationVersion",
        "aws:ecs/expressGatewayService:ExpressGatewayService",
        "azure-native:app:JavaComponent",
        "azure-native:appplatform:Deployment",
        "azure-native:cognitiveservices:AgentDeployment",
        "azure-native:web:AppServicePlan",
        "azure-native:web:StaticSite",
        "azure-native:web:WebApp",
        "azure-native:web:WebAppSlot",
        "gcp:appengine/flexibleAppVersion:FlexibleAppVersion",
        "gcp:appengine/standardAppVersion:StandardAppVersion",
        "gcp:cloudfunctions/function:Function",
        "gcp:cloudfunctionsv2/function:Function",
        "gcp:vertex/aiReasoningEngine:AiReasoningEngine",
    ),
    "tasks or replicas placed on capacity held elsewhere, whose own bounds (read there) cap "
    "them: an ECS service on its capacity providers' groups, a Service Fabric service on its "
    "node types, an Application Auto Scaling policy within its scalable target's min and max": (
        "aws:appautoscaling/policy:Policy",
        "aws:ecs/service:Service",
        "azure-native:servicefabric:ManagedClusterService",
    ),
    "counts that are not capacity (pipeline artifacts, human labeling tasks, a broker's "
    "message buffer, a resource provider's SKU definitions)": (
        "aws:codepipeline/customActionType:CustomActionType",
        "aws:sagemaker/labelingJob:LabelingJob",
        "azure-native:iotoperations:Broker",
        "azure-native:iotoperationsmq:Broker",
        "azure-native:providerhub:Skus",
        "azure-native:providerhub:SkusNestedResourceTypeFirst",
        "azure-native:providerhub:SkusNestedResourceTypeSecond",
        "azure-native:providerhub:SkusNestedResourceTypeThird",
    ),
    "an inventory of resources in another cloud (Azure's AWS connector): creates nothing": (
        "azure-native:awsconnector:EcsService",
        "azure-native:awsconnector:RdsDbCluster",
    ),
    "nodes the user owns or VMware Engine's node types, none with GPUs in a cloud bill": (
        "gcp:gkeonprem/vMwareNodePool:VMwareNodePool",
        "gcp:vmwareengine/cluster:Cluster",
        "gcp:vmwareengine/privateCloud:PrivateCloud",
    ),
}

DOES_NOT_SIZE_GPU: dict[str, str] = {
    type_: reason for reason, listed in _DOES_NOT_SIZE_GPU_BY_REASON.items() for type_ in listed
}


@cache
def sizing_table() -> dict[str, tuple[str, ...]]:
    """The generated table: each sizing type and the paths that set capacity."""
    data = json.loads(SIZING_TABLE_PATH.read_text(encoding="utf-8"))
    return {type_: tuple(paths) for type_, paths in data["types"].items()}


@cache
def unread_sizing_types() -> frozenset[str]:
    """The sizing types nothing reads: what a resource of one sizes is not known. Called once
    every reader is registered (``stack_capacity``)."""
    read = {*SCALERS, *READERS, *READ_THROUGH_WHAT_NAMES_IT, *DOES_NOT_SIZE_GPU}
    return frozenset(t for t in sizing_table() if t not in read)


# --- every way to a GPU, in words (docs/gpu-coverage.md's table) ---------------------------

README_START = "<!-- ways-to-a-gpu:start (scripts/generate_gpu_capable_types.py writes it) -->"
README_END = "<!-- ways-to-a-gpu:end -->"


@dataclass(frozen=True)
class Way:
    """How gpufleet treats one resource type that can hold GPUs or size GPU capacity."""

    type: str
    verdict: str  # "read", "fails closed", "no GPUs", "sizes: read", "sizes no GPUs"
    how: str


def _first_sentence(text: str | None) -> str:
    words = " ".join((text or "").split())
    return words.split(". ", 1)[0].rstrip(".") if words else ""


_FAILS_CLOSED = (
    "a GPU machine it names or accelerators it asks for make it GPU capacity of undetermined "
    "size: gpu-size-undetermined blocks it (mandatory), gpu-budget cannot price it"
)
_UNREAD_SIZER = (
    "GPU capacity of the stack it sizes becomes undetermined (gpu-size-undetermined blocks): "
    "gpufleet does not read what it sets"
)


def ways_to_a_gpu() -> list[Way]:
    """Every GPU-capable and sizing type of the generated tables, and every other type a reader
    or scaler is registered for, with how gpufleet treats it."""
    ways: dict[str, Way] = {}
    for type_ in sorted({*gpu_capable_table(), *READERS}):
        if type_ in NAMED_MACHINE_TYPES:
            ways[type_] = Way(type_, "fails closed", _FAILS_CLOSED)
        elif type_ in READERS:
            ways[type_] = Way(type_, "read", _first_sentence(READERS[type_].__doc__))
        elif type_ in NOT_GPU_CAPACITY:
            ways[type_] = Way(type_, "no GPUs", NOT_GPU_CAPACITY[type_])
    for type_ in sorted(HOLDS_DATA):
        ways.setdefault(type_, Way(type_, "no GPUs", HOLDS_DATA[type_]))
    for type_ in sorted({*sizing_table(), *SCALERS}):
        if type_ in ways:
            continue
        if type_ in SCALERS:
            ways[type_] = Way(type_, "sizes: read", _first_sentence(SCALERS[type_].__doc__))
        elif type_ in READ_THROUGH_WHAT_NAMES_IT:
            ways[type_] = Way(type_, "sizes: read", f"read {READ_THROUGH_WHAT_NAMES_IT[type_]}")
        elif type_ in DOES_NOT_SIZE_GPU:
            ways[type_] = Way(type_, "sizes no GPUs", DOES_NOT_SIZE_GPU[type_])
        else:
            ways[type_] = Way(type_, "sizes: fails closed", _UNREAD_SIZER)
    return sorted(ways.values(), key=lambda w: w.type)


def readme_table() -> str:
    """docs/gpu-coverage.md's table of ``ways_to_a_gpu``, between its markers."""
    rows = [f"| `{w.type}` | {w.verdict} | {w.how.replace('|', '/')} |" for w in ways_to_a_gpu()]
    return "\n".join(
        [
            README_START,
            "",
            "| resource type | gpufleet | how |",
            "|---|---|---|",
            *rows,
            "",
            README_END,
        ]
    )
