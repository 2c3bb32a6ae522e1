"""The VPC and subnets the AWS component tests place capacity in."""

NETWORK = {"vpc_id": "vpc-0123456789abcdef0"}
SUBNETS = ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"]
