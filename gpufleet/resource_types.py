"""The resource type tokens gpufleet's code names, each once.

A token is the engine's name for a resource type (``<package>:<module>:<Type>``), as the
provider SDKs define it: the policies' footprint readers register under these and their rules
select resources by them; the offline engine answers them with realistic outputs.
"""

from __future__ import annotations

# AWS
AWS_SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
# Subnets whose zone a stack reports (``capacity.zone_names``).
AWS_SUBNETS = ("aws:ec2/subnet:Subnet", "aws:ec2/defaultSubnet:DefaultSubnet")
AWS_IAM_ROLE = "aws:iam/role:Role"
AWS_INSTANCE_PROFILE = "aws:iam/instanceProfile:InstanceProfile"
AWS_SQS_QUEUE = "aws:sqs/queue:Queue"
AWS_EVENT_RULE = "aws:cloudwatch/eventRule:EventRule"
AWS_PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_SPOT_INSTANCE_REQUEST = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
AWS_EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
AWS_BATCH_COMPUTE_ENVIRONMENT = "aws:batch/computeEnvironment:ComputeEnvironment"
AWS_SAGEMAKER_ENDPOINT_CONFIGURATION = "aws:sagemaker/endpointConfiguration:EndpointConfiguration"
AWS_SAGEMAKER_NOTEBOOK_INSTANCE = "aws:sagemaker/notebookInstance:NotebookInstance"
AWS_SAGEMAKER_APP = "aws:sagemaker/app:App"
AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_AUTOSCALING_GROUP = "aws:autoscaling/group:Group"
AWS_AUTOSCALING_SCHEDULE = "aws:autoscaling/schedule:Schedule"
AWS_AUTOSCALING_POLICY = "aws:autoscaling/policy:Policy"
AWS_FLEET = "aws:ec2/fleet:Fleet"
AWS_SPOT_FLEET_REQUEST = "aws:ec2/spotFleetRequest:SpotFleetRequest"
AWS_CAPACITY_RESERVATION = "aws:ec2/capacityReservation:CapacityReservation"
AWS_CAPACITY_BLOCK = "aws:ec2/capacityBlockReservation:CapacityBlockReservation"
AWS_TRAINING_JOB = "aws:sagemaker/trainingJob:TrainingJob"
AWS_SAGEMAKER_TUNING_JOB = "aws:sagemaker/hyperParameterTuningJob:HyperParameterTuningJob"
AWS_SAGEMAKER_ENDPOINT = "aws:sagemaker/endpoint:Endpoint"
AWS_APPAUTOSCALING_TARGET = "aws:appautoscaling/target:Target"
AWS_APPAUTOSCALING_SCHEDULED_ACTION = "aws:appautoscaling/scheduledAction:ScheduledAction"
AWS_EMR_CLUSTER = "aws:emr/cluster:Cluster"
AWS_EMR_INSTANCE_FLEET = "aws:emr/instanceFleet:InstanceFleet"
AWS_EMR_INSTANCE_GROUP = "aws:emr/instanceGroup:InstanceGroup"
AWS_EMR_MANAGED_SCALING_POLICY = "aws:emr/managedScalingPolicy:ManagedScalingPolicy"
AWS_BEANSTALK_ENVIRONMENT = "aws:elasticbeanstalk/environment:Environment"
AWS_BEANSTALK_CONFIGURATION_TEMPLATE = (
    "aws:elasticbeanstalk/configurationTemplate:ConfigurationTemplate"
)
AWS_CODEBUILD_FLEET = "aws:codebuild/fleet:Fleet"
AWS_CODEBUILD_PROJECT = "aws:codebuild/project:Project"
# gpufleet's SageMaker job template (components/aws/sagemaker_spot_training.py): its runs start
# outside the stack, and the cost engine prices one from its registered outputs.
GPUFLEET_SAGEMAKER_SPOT_TRAINING = "gpufleet:aws:SageMakerSpotTraining"
AWS_S3_BUCKET = "aws:s3/bucket:Bucket"
AWS_S3_BUCKETS = (AWS_S3_BUCKET, "aws:s3/bucketV2:BucketV2")
AWS_S3_PUBLIC_ACCESS_BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
AWS_S3_ENCRYPTION = (
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
    "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2",
)

# GCP
GCP_SERVICE_ACCOUNT = "gcp:serviceaccount/account:Account"
GCP_INSTANCE = "gcp:compute/instance:Instance"
GCP_INSTANCE_TEMPLATES = (
    "gcp:compute/instanceTemplate:InstanceTemplate",
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
)
# What capacity launches its machines from (a group's, a fleet's, a VM's template): a group
# may name one by its literal name, id or URL instead of an Output.
LAUNCH_TEMPLATES = (
    AWS_LAUNCH_TEMPLATE,
    AWS_LAUNCH_CONFIGURATION,
    *GCP_INSTANCE_TEMPLATES,
)
GCP_INSTANCE_GROUP_MANAGERS = (
    "gcp:compute/instanceGroupManager:InstanceGroupManager",
    "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
)
GCP_RESERVATION = "gcp:compute/reservation:Reservation"
GCP_REGION_COMMITMENT = "gcp:compute/regionCommitment:RegionCommitment"
GCP_INSTANCES_FROM = (
    "gcp:compute/instanceFromTemplate:InstanceFromTemplate",
    "gcp:compute/instanceFromMachineImage:InstanceFromMachineImage",
)
GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
GKE_CLUSTER = "gcp:container/cluster:Cluster"
VERTEX_DEPLOYMENT_RESOURCE_POOL = "gcp:vertex/aiDeploymentResourcePool:AiDeploymentResourcePool"
VERTEX_PERSISTENT_RESOURCE = "gcp:vertex/aiPersistentResource:AiPersistentResource"
WORKBENCH_INSTANCE = "gcp:workbench/instance:Instance"
GCP_AUTOSCALERS = (
    "gcp:compute/autoscaler:Autoscaler",
    "gcp:compute/regionAutoscaler:RegionAutoscaler",
)
GCP_STORAGE_BUCKET = "gcp:storage/bucket:Bucket"
GCP_RESIZE_REQUESTS = (
    "gcp:compute/resizeRequest:ResizeRequest",
    "gcp:compute/regionResizeRequest:RegionResizeRequest",
)
DATAPROC_CLUSTER = "gcp:dataproc/cluster:Cluster"
DATAPROC_WORKFLOW_TEMPLATE = "gcp:dataproc/workflowTemplate:WorkflowTemplate"
DATAPROC_AUTOSCALING_POLICY = "gcp:dataproc/autoscalingPolicy:AutoscalingPolicy"
VERTEX_MODEL_GARDEN_ENDPOINT = (
    "gcp:vertex/aiEndpointWithModelGardenDeployment:AiEndpointWithModelGardenDeployment"
)

# Azure
AZURE_SCALE_SET = "azure-native:compute:VirtualMachineScaleSet"
AZURE_VIRTUAL_MACHINE = "azure-native:compute:VirtualMachine"
AKS_AGENT_POOL = "azure-native:containerservice:AgentPool"
AKS_MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"
AZURE_BATCH_POOL = "azure-native:batch:Pool"
AZURE_ML_ONLINE_DEPLOYMENT = "azure-native:machinelearningservices:OnlineDeployment"
AZURE_AUTOSCALE_SETTING = "azure-native:monitor:AutoscaleSetting"
AZURE_ML_COMPUTE = "azure-native:machinelearningservices:Compute"
AZURE_CAPACITY_RESERVATION = "azure-native:compute:CapacityReservation"
AZURE_STORAGE_ACCOUNT = "azure-native:storage:StorageAccount"
AZURE_STANDBY_VM_POOL = "azure-native:standbypool:StandbyVirtualMachinePool"
CONTAINER_APPS_ENVIRONMENT = "azure-native:app:ManagedEnvironment"
CONTAINER_APP = "azure-native:app:ContainerApp"
CONTAINER_APPS_JOB = "azure-native:app:Job"
SYNAPSE_SPARK_POOL = "azure-native:synapse:BigDataPool"
