"""The resource type tokens the policies read, named once.

A token is the engine's name for a resource type (``<package>:<module>:<Type>``), as the
provider SDKs define it; the footprint readers register under these and the rules select
resources by them.
"""

from __future__ import annotations

# AWS
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_AUTOSCALING_GROUP = "aws:autoscaling/group:Group"
AWS_FLEET = "aws:ec2/fleet:Fleet"
AWS_SPOT_FLEET_REQUEST = "aws:ec2/spotFleetRequest:SpotFleetRequest"
AWS_CAPACITY_RESERVATION = "aws:ec2/capacityReservation:CapacityReservation"
AWS_CAPACITY_BLOCK = "aws:ec2/capacityBlockReservation:CapacityBlockReservation"
AWS_TRAINING_JOB = "aws:sagemaker/trainingJob:TrainingJob"
AWS_S3_BUCKETS = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")
AWS_S3_PUBLIC_ACCESS_BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
AWS_S3_ENCRYPTION = (
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
    "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2",
)

# GCP
GCP_INSTANCE = "gcp:compute/instance:Instance"
GCP_INSTANCE_TEMPLATES = (
    "gcp:compute/instanceTemplate:InstanceTemplate",
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
)
GCP_INSTANCE_GROUP_MANAGERS = (
    "gcp:compute/instanceGroupManager:InstanceGroupManager",
    "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
)
GCP_RESERVATION = "gcp:compute/reservation:Reservation"
GCP_STORAGE_BUCKET = "gcp:storage/bucket:Bucket"

# Azure
AZURE_SCALE_SET = "azure-native:compute:VirtualMachineScaleSet"
AZURE_ML_COMPUTE = "azure-native:machinelearningservices:Compute"
AZURE_CAPACITY_RESERVATION = "azure-native:compute:CapacityReservation"
AZURE_STORAGE_ACCOUNT = "azure-native:storage:StorageAccount"
